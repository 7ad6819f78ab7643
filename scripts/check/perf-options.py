#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that our kernels turn on every perf-touching option of Debian's.

perf-options.py DEBIAN_CONFIG OUR_CONFIG KCONFIG_TREE [RESULT_FILE]

The list is derived, not kept: an option counts as perf-touching when
Debian's amd64 config (package linux-config-6.12) sets it (y or m) and
- its Kconfig entry in KCONFIG_TREE (the unmodified base tree) depends on,
  selects or implies PERF_EVENTS or GUEST_PERF_EVENTS, or
- it is one of the PMU drivers' own options (PERF_EVENTS_*), or
- it is in USERS below: options whose code calls into the perf subsystem
  without Kconfig saying so (read from their callers).
Options that are only capabilities of the architecture (HAVE_*, ARCH_*)
or that Kconfig selects by itself are left out (IMPLIED).

Each one must be set in OUR_CONFIG (y or m), or be listed in PENDING with
the reason it is not yet; a PENDING option that is set is an error too
(take it off the list). Prints one line per option and a verdict; with
RESULT_FILE writes "PASS perf-options" or "FAIL perf-options: ..." there
(parse-results.py --result) and exits 0, else exits 1 on failure.
"""
import lzma
import os
import re
import sys

# Users of the perf subsystem that Kconfig does not tie to PERF_EVENTS.
USERS = {
    'MODULES': 'device PMU drivers and KVM are modules',
    'KVM': 'the vPMU (arch/x86/kvm/pmu.c) and the guest callbacks',
    'KVM_INTEL': 'perf_guest_get_msrs, x86_perf_get_lbr',
    'KVM_AMD': 'amd_pmu_enable_virt/disable_virt',
    'HARDLOCKUP_DETECTOR': 'kernel/watchdog_perf.c: a pinned cycles event',
    'HARDLOCKUP_DETECTOR_PERF': 'the perf flavour of the detector',
    'BPF_SYSCALL': 'perf event arrays, stack maps, perf links',
    'UPROBES': 'the uprobes core lives in kernel/events',
    'KPROBES': 'the kprobe PMU',
    'KPROBE_EVENTS': 'the kprobe PMU',
    'SECURITY': 'security_perf_event_* hooks',
    'SECURITY_SELINUX': "SELinux's perf_event class",
    'AUDIT': 'perf_event_open is audited by the LSM',
    'PM_SLEEP': 'perf_restore_debug_store on resume',
    'CGROUPS': 'the perf_event controller',
    'GUEST_PERF_EVENTS': 'the guest callbacks (KVM, Xen)',
}

# Set by Debian, touching perf only through something else, or selected
# by Kconfig whenever what they serve is on.
IMPLIED = {
    'X86': 'the architecture',
    'INSTRUCTION_DECODER': 'selected by what needs it',
    'MODULES_TREE_LOOKUP': 'selected by MODULES with PERF_EVENTS',
    'KVM_X86': 'follows KVM_INTEL/KVM_AMD',
}

# Not yet: the option and why. Remove an entry when the option is on.
PENDING = {
    'PERF_EVENTS_INTEL_UNCORE': 'no driver yet (issue 14)',
    'PERF_EVENTS_AMD_POWER': 'family 15h accumulated power: no driver '
                             '(Zen energy is rapl.c\'s power PMU)',
}

PERF_SYMS = re.compile(r'\b(PERF_EVENTS|GUEST_PERF_EVENTS)\b')


def read_config(path):
    opener = lzma.open if path.endswith('.xz') else open
    opts = {}
    with opener(path, 'rt') as f:
        for line in f:
            m = re.match(r'CONFIG_(\w+)=(.*)', line)
            if m:
                opts[m.group(1)] = m.group(2)
    return opts


def kconfig_perf_users(tree):
    users = set()
    for root, dirs, files in os.walk(tree):
        rel = os.path.relpath(root, tree)
        if rel.startswith(('tools', 'Documentation', 'scripts')):
            dirs[:] = []
            continue
        if rel.startswith('arch') and not rel.startswith(('arch/x86',)) \
           and rel != 'arch':
            dirs[:] = []
            continue
        for name in files:
            if not name.startswith('Kconfig'):
                continue
            cur = None
            for line in open(os.path.join(root, name), errors='replace'):
                m = re.match(r'\s*(?:menu)?config\s+(\w+)', line)
                if m:
                    cur = m.group(1)
                elif cur and re.match(r'\s*(depends on|select|imply)\b',
                                      line) and PERF_SYMS.search(line):
                    users.add(cur)
    return users


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    result = sys.argv[4] if len(sys.argv) > 4 else None
    try:
        debian = read_config(sys.argv[1])
        ours = read_config(sys.argv[2])
    except OSError as e:
        msg = f'FAIL perf-options: cannot read a config ({e})'
        print(msg)
        if result:
            with open(result, 'w') as f:
                f.write(msg + '\n')
            return 0
        return 1

    cands = kconfig_perf_users(sys.argv[3]) | set(USERS)
    cands |= {o for o in debian if o.startswith('PERF_EVENTS_')}
    cands = {o for o in cands if debian.get(o) in ('y', 'm')
             and not o.startswith(('HAVE_', 'ARCH_')) and o not in IMPLIED}
    cands.add('PERF_EVENTS')

    bad = []
    pending = 0
    for o in sorted(cands):
        on = ours.get(o) in ('y', 'm')
        why = USERS.get(o, 'Kconfig ties it to perf')
        if on and o in PENDING:
            print(f'  stale   {o}: on, but still listed as pending')
            bad.append(o + ' (on: remove from PENDING)')
        elif on:
            print(f'  ok      {o}={ours[o]} (Debian: {debian[o]}; {why})')
        elif o in PENDING:
            pending += 1
            print(f'  pending {o} (Debian: {debian[o]}): {PENDING[o]}')
        else:
            print(f'  MISSING {o} (Debian: {debian[o]}; {why})')
            bad.append(o)
    n = len(cands)
    if bad:
        msg = f'FAIL perf-options: {", ".join(bad)}'
    else:
        msg = (f'PASS perf-options: {n - pending} of {n} perf-touching '
               f'options of Debian\'s config on, {pending} pending')
    print(msg)
    if result:
        with open(result, 'w') as f:
            f.write(msg + '\n')
        return 0
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
