#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""subsystem.py OPS [PROFILE_DIR]

OPS: a number, or sym:OURS[/STOCK] for the calls of that function in
each kernel's profile (one per operation: a PMI handler for a sampling
row).

Split a profile.sh result (PROFILE_DIR, default build/logs/profile) into
the perf subsystem's share (functions defined in kernel/events and
arch/x86/events of each bench kernel's objects) and the rest of the
kernel (entry, VFS, LSM, scheduler, allocator...), per operation: OPS is
how many operations the profile's difference holds (twice one scale-1
run of the metric: (1 + reps) * iters * 2). The rest is the same code in
both kernels; the subsystem's share is what our code decides.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '../../../..'))
OBJ = {'ours': 'build/obj-bench', 'stock': 'build/obj-stock-bench'}


def subsystem_symbols(obj):
    names = set()
    for d in ('kernel/events', 'arch/x86/events'):
        a = os.path.join(ROOT, obj, d, 'built-in.a')
        out = subprocess.run(['nm', '--defined-only', a], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'tTwW':
                names.add(f[2].split('.')[0])
    return names


def main():
    spec = sys.argv[1]
    pdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, 'build/logs/profile')
    res = {}
    for k, obj in OBJ.items():
        names = subsystem_symbols(obj)
        if spec.startswith('sym:'):
            syms = spec[4:].split('/')
            want = syms[0] if k == 'ours' or len(syms) == 1 else syms[1]
            ops = 0
            for line in open(os.path.join(pdir, f'{k}.txt')):
                f = line.split()
                if len(f) == 3 and f[2].split('.')[0] == want:
                    ops = float(f[1])
            if not ops:
                sys.exit(f'no calls of {want} in {k}.txt')
        else:
            ops = float(spec)
        ours = rest = user = 0
        top = []
        for line in open(os.path.join(pdir, f'{k}.txt')):
            f = line.split()
            if len(f) != 3 or not f[0].isdigit():
                continue
            n, sym = int(f[0]), f[2]
            if sym == '[user]':
                user += n
            elif sym.split('.')[0] in names:
                ours += n
                top.append((n, sym))
            else:
                rest += n
        res[k] = (ours / ops, rest / ops, user / ops)
        print(f'{k:5}: subsystem {ours / ops:8.0f}  rest of kernel {rest / ops:8.0f}  '
              f'user {user / ops:6.0f}  instructions per op')
    o, s = res['ours'][0], res['stock'][0]
    print(f'subsystem share ours/stock: {o / s:.2f}' if s else '')


if __name__ == '__main__':
    main()
