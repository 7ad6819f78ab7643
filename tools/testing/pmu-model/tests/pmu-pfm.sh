#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libpfm4 (Debian's libpfm4-dev, static) on the model, unprivileged: its
# own examples showevtinfo and check_events (built from the package's
# sources) and pmu-pfm (libpfm's perf_examples "self" with exact counts)
# give the stock 6.12 kernel's answers:
# - showevtinfo: the PMUs libpfm detects as present, each with its number
#   of events, maximum encoding, counters and type, and the total of
#   events available and supported, and the core PMU's instructions
#   event. Besides the CPU (/proc/cpuinfo, CPUID), libpfm looks at the
#   kernel: /proc/sys/kernel/perf_event_paranoid (perf_events there at
#   all), /sys/devices/<pmu> and its events/, and
#   /sys/bus/event_source/devices/<pmu>/type: a kernel that registers
#   PMUs or event files stock does not, or lacks some, changes them;
# - check_events: for each event of pmu-pfm's list the fully qualified
#   event, its PMU and its codes (PFM_OS_NONE);
# - pmu-pfm: its checks (exit status 0: the events open as one group on
#   every counter, prctl turns them on and off, the group read's layout,
#   exact counts over a load sweep) and the perf_event_attr libpfm built
#   for each event (PFM_OS_PERF_EVENT_EXT: type, config, config1, the
#   exclude bits).
# The facts were taken on the stock kernel; Skylake-PMU with and without
# the hypervisor bit gave the same.
fails=0
ok() { echo "ok $*"; }
notok() { echo "not ok $*"; fails=$((fails + 1)); }

# same WHAT GOT WANT: GOT must be WANT, line for line
same() {
	if [ "$2" = "$3" ]; then
		ok "$1:"
		echo "$2" | sed 's/^/	/'
	else
		notok "$1: got"
		echo "$2" | sed 's/^/	/'
		echo "expected"
		echo "$3" | sed 's/^/	/'
	fi
}

if grep -q GenuineIntel /proc/cpuinfo; then
	vendor=intel
	events="INST_RETIRED:ANY_P BR_INST_RETIRED:ALL_BRANCHES
UNHALTED_REFERENCE_CYCLES L1D:REPLACEMENT MEM_INST_RETIRED:ALL_LOADS
perf::instructions perf::cycles"
	core_event=skl::INST_RETIRED
elif grep -q AuthenticAMD /proc/cpuinfo; then
	vendor=amd
	events="RETIRED_INSTRUCTIONS RETIRED_BRANCH_INSTRUCTIONS
LS_DISPATCH:LD_DISPATCH REQUESTS_TO_L2_GROUP1:RD_BLK_L
perf::instructions perf::cycles"
	core_event=amd64_fam19h_zen3::RETIRED_INSTRUCTIONS
else
	echo "ok # SKIP neither Intel nor AMD"
	exit 4
fi

# The stock kernel's answers
if [ $vendor = intel ]; then
	want_pmus='Detected PMU models:
[18, ix86arch, "Intel X86 architectural PMU", 7 events, 1 max encoding, 7 counters, core PMU]
[51, perf, "perf_events generic PMU", 82 events, 1 max encoding, 0 counters, OS generic PMU]
[110, rapl, "Intel RAPL", 4 events, 1 max encoding, 3 counters, uncore PMU]
[114, perf_raw, "perf_events raw PMU", 1 events, 1 max encoding, 0 counters, OS generic PMU]
[200, skl, "Intel Skylake", 84 events, 2 max encoding, 11 counters, core PMU]
Total events: 18401 available, 178 supported'
	want_info='PMU name : skl (Intel Skylake)
Name     : INST_RETIRED
Code     : 0xc0'
	want_codes='Requested Event: INST_RETIRED:ANY_P
Actual    Event: skl::INST_RETIRED:ANY_P:k=1:u=1:e=0:i=0:c=0:t=0:intx=0:intxcp=0
PMU            : Intel Skylake
Codes          : 0x5300c0
Requested Event: BR_INST_RETIRED:ALL_BRANCHES
Actual    Event: skl::BR_INST_RETIRED:ALL_BRANCHES:k=1:u=1:e=0:i=0:c=0:t=0:intx=0:intxcp=0
PMU            : Intel Skylake
Codes          : 0x5300c4
Requested Event: UNHALTED_REFERENCE_CYCLES
Actual    Event: skl::UNHALTED_REFERENCE_CYCLES:k=1:u=1:t=0
PMU            : Intel Skylake
Codes          : 0x530300
Requested Event: L1D:REPLACEMENT
Actual    Event: skl::L1D:REPLACEMENT:k=1:u=1:e=0:i=0:c=0:t=0:intx=0:intxcp=0
PMU            : Intel Skylake
Codes          : 0x530151
Requested Event: MEM_INST_RETIRED:ALL_LOADS
Actual    Event: skl::MEM_INST_RETIRED:ALL_LOADS:k=1:u=1:e=0:i=0:c=0:t=0:intx=0:intxcp=0
PMU            : Intel Skylake
Codes          : 0x5381d0
Requested Event: perf::instructions
Actual    Event: perf::PERF_COUNT_HW_INSTRUCTIONS
PMU            : perf_events generic PMU
Codes          : 0x1
Requested Event: perf::cycles
Actual    Event: perf::PERF_COUNT_HW_CPU_CYCLES
PMU            : perf_events generic PMU
Codes          : 0x0'
	want_attrs='attr INST_RETIRED:ANY_P: skl::INST_RETIRED:ANY_P:e=0:i=0:c=0:t=0:intx=0:intxcp=0:u=1:k=0:precise=0:excl=0:mg=0:mh=1
attr INST_RETIRED:ANY_P: type 4 config 0xc0 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr BR_INST_RETIRED:ALL_BRANCHES: skl::BR_INST_RETIRED:ALL_BRANCHES:e=0:i=0:c=0:t=0:intx=0:intxcp=0:u=1:k=0:precise=0:excl=0:mg=0:mh=1
attr BR_INST_RETIRED:ALL_BRANCHES: type 4 config 0xc4 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr UNHALTED_REFERENCE_CYCLES: skl::UNHALTED_REFERENCE_CYCLES:t=0:u=1:k=0:excl=0:mg=0:mh=1
attr UNHALTED_REFERENCE_CYCLES: type 4 config 0x300 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr L1D:REPLACEMENT: skl::L1D:REPLACEMENT:e=0:i=0:c=0:t=0:intx=0:intxcp=0:u=1:k=0:excl=0:mg=0:mh=1
attr L1D:REPLACEMENT: type 4 config 0x151 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr MEM_INST_RETIRED:ALL_LOADS: skl::MEM_INST_RETIRED:ALL_LOADS:e=0:i=0:c=0:t=0:intx=0:intxcp=0:u=1:k=0:precise=0:excl=0:mg=0:mh=1
attr MEM_INST_RETIRED:ALL_LOADS: type 4 config 0x81d0 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr perf::instructions: perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=0:precise=0:excl=0:mg=0:mh=1
attr perf::instructions: type 0 config 0x1 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr perf::cycles: perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0:precise=0:excl=0:mg=0:mh=1
attr perf::cycles: type 0 config 0 config1 0 exclude user 0 kernel 1 hv 0 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0'
else
	want_pmus='Detected PMU models:
[51, perf, "perf_events generic PMU", 82 events, 1 max encoding, 0 counters, OS generic PMU]
[114, perf_raw, "perf_events raw PMU", 1 events, 1 max encoding, 0 counters, OS generic PMU]
[450, amd64_fam19h_zen3, "AMD64 Fam19h Zen3", 62 events, 1 max encoding, 6 counters, core PMU]
[451, amd64_rapl, "AMD64 RAPL", 1 events, 1 max encoding, 3 counters, uncore PMU]
[452, amd64_fam19h_zen3_l3, "AMD64 Fam19h Zen3 L3", 3 events, 1 max encoding, 4 counters, uncore PMU]
Total events: 18393 available, 149 supported'
	want_info='PMU name : amd64_fam19h_zen3 (AMD64 Fam19h Zen3)
Name     : RETIRED_INSTRUCTIONS
Code     : 0xc0'
	want_codes='Requested Event: RETIRED_INSTRUCTIONS
Actual    Event: amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:k=1:u=1:e=0:i=0:c=0:h=0:g=0
PMU            : AMD64 Fam19h Zen3
Codes          : 0x5300c0
Requested Event: RETIRED_BRANCH_INSTRUCTIONS
Actual    Event: amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS:k=1:u=1:e=0:i=0:c=0:h=0:g=0
PMU            : AMD64 Fam19h Zen3
Codes          : 0x5300c2
Requested Event: LS_DISPATCH:LD_DISPATCH
Actual    Event: amd64_fam19h_zen3::LS_DISPATCH:LD_DISPATCH:k=1:u=1:e=0:i=0:c=0:h=0:g=0
PMU            : AMD64 Fam19h Zen3
Codes          : 0x530129
Requested Event: REQUESTS_TO_L2_GROUP1:RD_BLK_L
Actual    Event: amd64_fam19h_zen3::REQUESTS_TO_L2_GROUP1:RD_BLK_L:k=1:u=1:e=0:i=0:c=0:h=0:g=0
PMU            : AMD64 Fam19h Zen3
Codes          : 0x538060
Requested Event: perf::instructions
Actual    Event: perf::PERF_COUNT_HW_INSTRUCTIONS
PMU            : perf_events generic PMU
Codes          : 0x1
Requested Event: perf::cycles
Actual    Event: perf::PERF_COUNT_HW_CPU_CYCLES
PMU            : perf_events generic PMU
Codes          : 0x0'
	want_attrs='attr RETIRED_INSTRUCTIONS: amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:e=0:i=0:c=0:g=0:u=1:k=0:h=0:excl=0:mg=0:mh=1
attr RETIRED_INSTRUCTIONS: type 4 config 0xc0 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr RETIRED_BRANCH_INSTRUCTIONS: amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS:e=0:i=0:c=0:g=0:u=1:k=0:h=0:excl=0:mg=0:mh=1
attr RETIRED_BRANCH_INSTRUCTIONS: type 4 config 0xc2 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr LS_DISPATCH:LD_DISPATCH: amd64_fam19h_zen3::LS_DISPATCH:LD_DISPATCH:e=0:i=0:c=0:g=0:u=1:k=0:h=0:excl=0:mg=0:mh=1
attr LS_DISPATCH:LD_DISPATCH: type 4 config 0x129 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr REQUESTS_TO_L2_GROUP1:RD_BLK_L: amd64_fam19h_zen3::REQUESTS_TO_L2_GROUP1:RD_BLK_L:e=0:i=0:c=0:g=0:u=1:k=0:h=0:excl=0:mg=0:mh=1
attr REQUESTS_TO_L2_GROUP1:RD_BLK_L: type 4 config 0x8060 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr perf::instructions: perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=0:h=0:precise=0:excl=0:mg=0:mh=1
attr perf::instructions: type 0 config 0x1 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0
attr perf::cycles: perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0:h=0:precise=0:excl=0:mg=0:mh=1
attr perf::cycles: type 0 config 0 config1 0 exclude user 0 kernel 1 hv 1 idle 0 host 0 guest 1 precise_ip 0 cpu -1 flags 0'
fi

# showevtinfo: the detected PMUs and the totals; then the description of
# one event (its regex matches "pmu::EVENT" of every PMU libpfm knows,
# detected or not: the core PMU's instructions event alone)
out=$(showevtinfo "^$core_event\$" 2>&1)
rc=$?
[ $rc = 0 ] || notok "showevtinfo ^$core_event\$: exit status $rc"
got=$(echo "$out" | sed -n '/^Detected PMU models:/,/^Total events:/p' |
      sed 's/^[[:space:]]*//')
same "showevtinfo: detected PMUs" "$got" "$want_pmus"
got=$(echo "$out" | grep -E '^(PMU name|Name|Code) ')
same "showevtinfo: $core_event" "$got" "$want_info"

# check_events: the encoding of each event (PFM_OS_NONE: the PMU's codes)
# shellcheck disable=SC2086
out=$(check_events $events 2>&1)
rc=$?
[ $rc = 0 ] || notok "check_events: exit status $rc"
got=$(echo "$out" | grep -E '^(Requested Event|Actual    Event|PMU      |Codes    )')
same "check_events: event encodings" "$got" "$want_codes"

# pmu-pfm: its own checks, and libpfm's perf_event_attr of each event
out=$(pmu-pfm 2>&1)
rc=$?
echo "$out" | grep -v '^attr '
[ $rc = 0 ] || notok "pmu-pfm: exit status $rc"
got=$(echo "$out" | grep '^attr ')
same "pmu-pfm: perf_event_attr encodings" "$got" "$want_attrs"
[ $fails = 0 ]
