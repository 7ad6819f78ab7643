#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# sym.py SYSTEM.MAP A.out [B.out [N]]: pcprof's counts per kernel symbol
# (instructions, and calls: runs of the block at the symbol's address),
# or B less A when two are given, the N largest (default 60)
import sys, bisect, collections
def load_map(p):
    a = []
    for l in open(p):
        f = l.split()
        if len(f) >= 3 and f[1] in 'tTwW':
            a.append((int(f[0], 16), f[2]))
    a.sort()
    return [x[0] for x in a], [x[1] for x in a]
calls = collections.Counter()
def prof(p, keys, names, sign=1):
    c = collections.Counter()
    for l in open(p):
        f = l.split()
        if f[0] == 'user':
            c['[user]'] += int(f[1]); continue
        pc = int(f[0], 16); i = bisect.bisect_right(keys, pc) - 1
        nm = names[i] if i >= 0 else '?'
        c[nm] += int(f[1])
        if i >= 0 and keys[i] == pc and len(f) > 2:
            calls[nm] += sign * int(f[2])
    return c
keys, names = load_map(sys.argv[1])
a = prof(sys.argv[2], keys, names, -1 if len(sys.argv) > 3 else 1)
if len(sys.argv) > 3:
    b = prof(sys.argv[3], keys, names)
    d = collections.Counter({k: b[k] - a[k] for k in set(a) | set(b)})
else:
    d = a
tot = sum(v for k, v in d.items() if k != '[user]')
print("kernel total", tot, "user", d['[user]'])
for k, v in sorted(d.items(), key=lambda x: -abs(x[1]))[:int(sys.argv[4]) if len(sys.argv) > 4 else 60]:
    print("%10d %8d %s" % (v, calls[k], k))
