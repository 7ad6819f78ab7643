#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# distro-users.sh SRC CONFIG: the kbuild targets that compile every user
# of the perf subsystem that CONFIG builds, for "distro.sh ours check".
#
# Whole directories where the callers are many and built in (the core
# kernel, mm, the x86 architecture, KVM, the LSMs), plus each other object
# that names one of our interfaces and whose Kconfig option CONFIG sets,
# plus a few files defining tracepoints (every tracepoint reaches
# perf_trace_run_bpf_submit through include/trace/perf.h).
set -euo pipefail
src=${1:?source tree}
config=${2:?.config}
cd "$src"

dirs="kernel/ mm/ virt/ security/ arch/x86/kernel/ arch/x86/kvm/ arch/x86/xen/
arch/x86/mm/ arch/x86/power/ arch/x86/events/ arch/x86/entry/"
echo $dirs

# what uses our interfaces: their names, as callers spell them
re='\bstruct (pmu|perf_event|hw_perf_event|perf_sample_data|perf_callchain_entry|perf_guest_info_callbacks)\b'
re+='|\b(perf_event_[a-z_]+|perf_pmu_[a-z_]+|perf_(un)?register_guest_info_callbacks'
re+='|perf_guest_[a-z_]+|perf_get_x86_pmu_capability|x86_perf_get_lbr|perf_trace_[a-z_]+'
re+='|perf_sample_[a-z_]+|x86_pmu|X86_CONFIG|uprobe_[a-z_]+|perf_swevent_[a-z_]+'
re+='|perf_tp_event|get_perf_callchain|perf_callchain[a-z_]*|[a-z_]*hw_breakpoint[a-z_]*'
re+='|perf_aux_output_[a-z]+|PMU_FORMAT_ATTR|PMU_EVENT_ATTR[A-Z_]*|perf_allow_[a-z]+'
re+='|perf_restore_debug_store|perf_check_microcode)\b'
grep -rlE "$re" --include='*.c' drivers fs net sound lib block io_uring crypto 2>/dev/null |
python3 -c '
import os, re, sys
config = {}
for line in open(sys.argv[1]):
    m = re.match(r"CONFIG_(\w+)=([ym])", line)
    if m:
        config[m.group(1)] = m.group(2)

def rules(d):
    for name in ("Makefile", "Kbuild"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            text = open(p).read().replace("\\\n", " ")
            return [l.split("#")[0] for l in text.splitlines()]
    return []

def built(d, obj, depth=0):
    """Is obj (a .o in directory d) built by this config?"""
    if depth > 3:
        return False
    for line in rules(d):
        m = re.match(r"\s*([\w.-]+?)-(\$\(CONFIG_(\w+)\)|y|objs|m)\s*[:+]?=(.*)", line)
        if not m or obj not in m.group(4).split():
            continue
        var, opt = m.group(1), m.group(3)
        if opt and opt not in config:
            continue
        if var == "obj":
            return True
        if built(d, var + ".o", depth + 1):
            return True
    return False

for f in sys.stdin:
    f = f.strip()
    d, rel = os.path.split(f[:-2] + ".o")
    # objects in a subdirectory may be listed by a parent Makefile
    for _ in range(3):
        if rules(d) and built(d, rel):
            print(f[:-2] + ".o")
            break
        d, up = os.path.split(d)
        rel = up + "/" + rel
' "$config"
# tracepoint definitions in built-in and modular code
echo fs/ext4/super.o drivers/base/core.o net/core/net-traces.o block/blk-core.o
