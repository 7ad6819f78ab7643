#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-layers.py [--report] [--result FILE] [OBJDIR]

Hold kernel/events to its layer order. The order is the table of the
"Layers" section of Documentation/perf-core/design.rst (one row per layer,
bottom first, its files after its name); the references are those of the
built objects in OBJDIR (default build/obj-test/kernel/events): a symbol
that one file uses (nm -u) and another defines is a call or a variable
reference between them. Prints every reference that runs up a layer
(except the one named callback: the last perf_event_put() freeing the
event), every file the table does not place, every cycle of files, and
whether the lock table at the head of layer/object.h is design.rst's.
Includes too: each layer has its header, kernel/events/layer/<layer>.h,
which includes the header of the layer below it (object.h, the bottom,
none); a file of kernel/events includes its own layer's header and no
other of the core's (INCL), so that the compiler refuses a call up.
Exit status 1 if there is any, unless --report. --result FILE writes
one line for make test's summary: "PASS check-layers" or "FAIL
check-layers: ...".
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN = os.path.join(ROOT, 'Documentation/perf-core/design.rst')
# the one upward call the order allows: (caller's file, symbol)
CALLBACK = {'perf_event_free'}


def layers():
    """[(layer name, [file stem, ...])] from design.rst, bottom first"""
    text = open(DESIGN).read()
    m = re.search(r'^Layers\n=+\n(.*?)^\S[^\n]*\n=+\n', text,
		  re.S | re.M)
    if not m:
        sys.exit('check-layers: no "Layers" section in ' + DESIGN)
    rows, on = [], False
    for line in m.group(1).splitlines():
        if re.match(r'\s+layer\s+files\s*$', line):
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            words = line.split()
            # a row too long for one line goes on under its files
            if words[0].endswith('.c') and rows:
                rows[-1][1].extend(w[:-2] for w in words if w.endswith('.c'))
                continue
            rows.append((words[0], [w[:-2] for w in words[1:]
                                    if w.endswith('.c')]))
    if not rows:
        sys.exit('check-layers: the Layers table has no rows')
    return rows


def lock_table(path, prefix):
    """the lines of the lock table (from its '#  lock' head to a blank)"""
    rows, on = [], False
    for line in open(path).read().splitlines():
        if line.startswith(prefix):
            line = line[len(prefix):]
        elif on:
            break
        if re.match(r'\s*#\s+lock\s', line):
            on = True
        if on:
            if not line.strip():
                break
            rows.append(line.strip())
    return rows


def nm(path, undefined):
    args = ['nm', '-u' if undefined else '--defined-only', path]
    out = subprocess.run(args, capture_output=True, text=True,
                         check=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if undefined and f:
            syms.add(f[-1])
        elif len(f) == 3 and f[1] in 'TDBRGSV':	# global definitions
            syms.add(f[2])
    return syms


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(rows, rank):
    """the include rules: (problems, messages)"""
    msgs = []
    here = os.path.join(ROOT, 'kernel/events')
    names = [name for name, _ in rows]
    for i, name in enumerate(names):
        h = os.path.join(here, 'layer', name + '.h')
        if not os.path.exists(h):
            msgs.append('INCL      layer/%s.h: missing (layer %s)' %
                        (name, name))
            continue
        got = INCLUDE.findall(open(h).read())
        want = [names[i - 1] + '.h'] if i else []
        if got != want:
            msgs.append('INCL      layer/%s.h includes %s, not %s' %
                        (name, ' '.join(got) or 'nothing',
                         ' '.join(want) or 'nothing'))
    for f in sorted(os.listdir(here)):
        if f.endswith('.h'):
            msgs.append('INCL      %s: a core header outside layer/' % f)
        if not f.endswith('.c'):
            continue
        stem = f[:-2]
        for inc in INCLUDE.findall(open(os.path.join(here, f)).read()):
            m = re.match(r'layer/(\w+)\.h$', inc)
            if not m or m.group(1) not in names:
                if not inc.startswith('uprobes/'):
                    msgs.append('INCL      %s includes "%s"' % (f, inc))
                continue
            if stem in rank and names.index(m.group(1)) != rank[stem]:
                msgs.append('INCL      %s (%s) includes layer/%s.h' %
                            (f, names[rank[stem]], m.group(1)))
    return msgs


def cycles(edges):
    """strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    argv = sys.argv[1:]
    report = '--report' in argv
    argv = [a for a in argv if a != '--report']
    result = None
    if '--result' in argv:
        i = argv.index('--result')
        result = argv[i + 1]
        del argv[i:i + 2]
    objdir = argv[0] if argv else os.path.join(
        ROOT, 'build/obj-test/kernel/events')
    rows = layers()
    rank = {}
    for i, (_, files) in enumerate(rows):
        for f in files:
            rank[f] = i
    stems = sorted(f[:-2] for f in os.listdir(objdir)
                   if f.endswith('.o') and not f.startswith('built-in') and
                   os.path.exists(os.path.join(ROOT, 'kernel/events',
                                               f[:-2] + '.c')))
    if not stems:
        sys.exit('check-layers: no objects in %s (make kernel)' % objdir)
    defs, uses = {}, {}
    for s in stems:
        o = os.path.join(objdir, s + '.o')
        for sym in nm(o, False):
            defs[sym] = s
        uses[s] = nm(o, True)

    problems = 0
    for s in stems:
        if s not in rank:
            print('UNPLACED  %s.c: not in the Layers table' % s)
            problems += 1
    edges, up = {}, {}
    for s in stems:
        for sym in sorted(uses[s]):
            d = defs.get(sym)
            if not d or d == s:
                continue
            if sym in CALLBACK:
                continue
            edges.setdefault(s, set()).add(d)
            if s in rank and d in rank and rank[d] > rank[s]:
                up.setdefault((s, d), []).append(sym)
    for (s, d), syms in sorted(up.items(), key=lambda x: (rank[x[0][0]],
                                                          x[0])):
        print('UP        %s.c (%s) -> %s.c (%s): %s' %
              (s, rows[rank[s]][0], d, rows[rank[d]][0], ' '.join(syms)))
        problems += 1
    for comp in cycles(edges):
        print('CYCLE     ' + ' '.join(c + '.c' for c in comp))
        problems += 1
    incl = includes(rows, rank)
    for m in incl:
        print(m)
    problems += len(incl)
    # the lock table: one, in design.rst and at the head of layer/object.h
    doc = lock_table(DESIGN, '  ')
    head = lock_table(os.path.join(ROOT, 'kernel/events/layer/object.h'),
                      ' *')
    if not doc or doc != head:
        print('LOCKS     the lock tables of design.rst and layer/object.h '
              'differ (or one is missing)')
        problems += 1
    nedges = sum(len(v) for v in edges.values())
    summary = ('%d files, %d file references, %d upward, %d cycles, '
               '%d include faults' %
               (len(stems), nedges, len(up), len(cycles(edges)), len(incl)))
    print('check-layers: %s%s' % (summary, ' (report only)' if report else ''))
    if result:
        with open(result, 'w') as f:
            if problems:
                f.write('FAIL check-layers: %s, %d problems (make '
                        'check-layers)\n' % (summary, problems))
            else:
                f.write('PASS check-layers\n')
    return 1 if problems and not report else 0


if __name__ == '__main__':
    sys.exit(main())
