#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The PMUs the kernel registers on the model, and every file of the
# power and msr PMUs (format/, events/ with .scale and .unit, cpumask),
# exactly as the stock 6.12 kernel has them (RAPL from model patch 0010:
# four domains on Skylake-PMU, the package on EPYC-PMU; PPERF by CPU
# model on Intel; on EPYC-PMU also IBS's ibs_fetch and ibs_op, 0015,
# and the L3 and data-fabric PMUs amd_l3 and amd_df, 0016: pmu-uncore);
# power registers before msr (its type number is lower).
# "pmu-pmus-sysfs.sh dump" prints it.
d=/sys/bus/event_source/devices
list() {
	echo "pmus: $(ls $d | tr '\n' ' ')"
	for p in power msr; do
		[ -d $d/$p ] || continue
		for f in $d/$p/cpumask $d/$p/format/* $d/$p/events/*; do
			[ -f "$f" ] && echo "${f#$d/}: $(cat "$f")"
		done
	done
	if [ -d $d/power ] && [ -d $d/msr ]; then
		[ "$(cat $d/power/type)" -lt "$(cat $d/msr/type)" ] &&
			echo "power before msr" || echo "msr before power"
	fi
}
[ "$1" = dump ] && { list; exit 0; }

if grep -q GenuineIntel /proc/cpuinfo; then
	# the branch trace store (0021) without PTI: intel_bts
	bts=
	grep -qw bts /proc/cpuinfo && ! grep -qw pti /proc/cpuinfo &&
		bts="intel_bts "
	expect=$(cat <<END
pmus: breakpoint cpu ${bts}kprobe msr power software tracepoint uprobe 
power/cpumask: 0-1
power/format/event: config:0-7
power/events/energy-cores: event=0x01
power/events/energy-cores.scale: 2.3283064365386962890625e-10
power/events/energy-cores.unit: Joules
power/events/energy-pkg: event=0x02
power/events/energy-pkg.scale: 2.3283064365386962890625e-10
power/events/energy-pkg.unit: Joules
power/events/energy-psys: event=0x05
power/events/energy-psys.scale: 2.3283064365386962890625e-10
power/events/energy-psys.unit: Joules
power/events/energy-ram: event=0x03
power/events/energy-ram.scale: 2.3283064365386962890625e-10
power/events/energy-ram.unit: Joules
msr/format/event: config:0-63
msr/events/pperf: event=0x03
msr/events/smi: event=0x04
msr/events/tsc: event=0x00
power before msr
END
)
else
	expect=$(cat <<'END'
pmus: amd_df amd_l3 breakpoint cpu ibs_fetch ibs_op kprobe msr power software tracepoint uprobe 
power/cpumask: 0-1
power/format/event: config:0-7
power/events/energy-pkg: event=0x02
power/events/energy-pkg.scale: 2.3283064365386962890625e-10
power/events/energy-pkg.unit: Joules
msr/format/event: config:0-63
msr/events/tsc: event=0x00
power before msr
END
)
fi
got=$(list)
if [ "$got" = "$expect" ]; then
	echo "ok the PMUs, power/ and msr/ as on the stock kernel"
	exit 0
fi
echo "not ok the PMUs, power/ and msr/ differ from the stock kernel:"
echo "$expect" > /tmp/pmus.want
echo "$got" > /tmp/pmus.got
diff -u /tmp/pmus.want /tmp/pmus.got | sed 's/^/#   /'
exit 1
