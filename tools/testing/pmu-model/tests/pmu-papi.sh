#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PAPI (Debian's papi-tools, on libpfm4) on the model, unprivileged, as
# its users run it: the presets papi_avail finds available are the stock
# 6.12 kernel's list for the vendor, and papi_command_line counts the
# same whether an event is alone or in a group with others.
#
# PAPI opens its event set as one group (a pinned, disabled leader and
# enabled members), then reads it through the control pages (rdpmc) and
# scales each count by time_enabled / time_running. A member whose times
# ran on while its leader was off (as ours did) came out several times
# too large: 145 M branches for 20 M. Its workload is the same at every
# run, so under icount an event alone and in the group differ only by
# PAPI's own few instructions: at most 1000 apart, or 0.1%.
fails=0
ok() { echo "ok $*"; }
notok() { echo "not ok $*"; fails=$((fails + 1)); }

intel="PAPI_L1_DCM PAPI_L1_ICM PAPI_L2_DCM PAPI_L2_ICM PAPI_L1_TCM PAPI_L2_TCM PAPI_L3_TCM PAPI_CA_SNP PAPI_CA_SHR PAPI_CA_CLN PAPI_CA_ITV PAPI_L3_LDM PAPI_TLB_DM PAPI_TLB_IM PAPI_L1_LDM PAPI_L1_STM PAPI_L2_LDM PAPI_L2_STM PAPI_PRF_DM PAPI_MEM_WCY PAPI_STL_ICY PAPI_FUL_ICY PAPI_STL_CCY PAPI_FUL_CCY PAPI_BR_UCN PAPI_BR_CN PAPI_BR_TKN PAPI_BR_NTK PAPI_BR_MSP PAPI_BR_PRC PAPI_TOT_INS PAPI_LD_INS PAPI_SR_INS PAPI_BR_INS PAPI_RES_STL PAPI_TOT_CYC PAPI_LST_INS PAPI_L2_DCA PAPI_L3_DCA PAPI_L2_DCR PAPI_L3_DCR PAPI_L2_DCW PAPI_L3_DCW PAPI_L2_ICH PAPI_L2_ICA PAPI_L3_ICA PAPI_L2_ICR PAPI_L3_ICR PAPI_L2_TCA PAPI_L3_TCA PAPI_L2_TCR PAPI_L3_TCR PAPI_L2_TCW PAPI_L3_TCW PAPI_SP_OPS PAPI_DP_OPS PAPI_VEC_SP PAPI_VEC_DP PAPI_REF_CYC"
amd="PAPI_L1_DCM PAPI_L2_DCM PAPI_L2_ICM PAPI_TLB_DM PAPI_TLB_IM PAPI_BR_TKN PAPI_BR_MSP PAPI_TOT_INS PAPI_FP_INS PAPI_BR_INS PAPI_VEC_INS PAPI_TOT_CYC PAPI_L2_DCH PAPI_L1_DCA PAPI_L2_DCR PAPI_L2_ICH PAPI_L2_ICA PAPI_L2_ICR PAPI_FML_INS PAPI_FAD_INS PAPI_FDV_INS PAPI_FSQ_INS PAPI_FP_OPS"

if grep -q GenuineIntel /proc/cpuinfo; then want=$intel; else want=$amd; fi
got=$(papi_avail -a 2>&1 | awk '/^PAPI_[A-Z0-9_]+ +0x/ { printf "%s ", $1 }')
if [ "$got" = "$want " ]; then
	ok "papi_avail -a: the $(echo $want | wc -w) presets of the stock kernel"
else
	notok "papi_avail -a: $got (expected $want)"
fi

# "PAPI_X : <count>" for each event of a papi_command_line run
count() { # EVENT OUTPUT
	echo "$2" | awk -v e="$1" '$1 == e { print $3 }'
}
events="PAPI_TOT_INS PAPI_TOT_CYC PAPI_BR_INS PAPI_BR_MSP"
# shellcheck disable=SC2086
group=$(papi_command_line $events 2>&1)
for e in $events; do
	alone=$(count $e "$(papi_command_line $e 2>&1)")
	ingroup=$(count $e "$group")
	if [ -z "$alone" ] || [ -z "$ingroup" ]; then
		notok "$e: no count (alone '$alone', in the group '$ingroup')"
		continue
	fi
	diff=$((ingroup - alone))
	[ $diff -lt 0 ] && diff=$((-diff))
	slack=$((alone / 1000))
	[ $slack -lt 1000 ] && slack=1000
	if [ $diff -le $slack ]; then
		ok "$e: $ingroup in a group of four, $alone alone"
	else
		notok "$e: $ingroup in a group of four, $alone alone (more than $slack apart)"
	fi
done
[ $fails = 0 ]
