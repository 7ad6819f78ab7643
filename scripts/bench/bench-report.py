#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py [--out FILE] OURS.log[,OURS2.log...] STOCK.log[,...]

Turn the serial logs of two perf-bench guests (scripts/bench/bench.sh) into one
table: metric, ours, stock, ours/stock (medians, ns per operation), then each
row's own cost (the row less its floor, a no-perf row of the same log: see
struct metric's floor in perf-bench.h) and its ratio, then the scale rows
(those with a size) by family, with the own cost per added unit between
sizes. Several logs per kernel (comma-separated) are boots of it with other
CPU counts; a row's floor is taken from its own log.
Exit status 1 if any metric failed or is missing in either log, or either
guest did not finish (crash, hang, host timeout)."""
import argparse
import re
import sys

# Metrics that cannot be measured yet: printed as n/a rows.
NA_ROWS = []

LINE = re.compile(r'@@BENCH(-FAIL|-SKIP|-BEGIN|-END|-INIT|-EXIT|-DMESG|-HOST-TIMEOUT)?(?: (.*))?$')


def parse(path):
    res = {'order': [], 'ok': {}, 'fail': {}, 'end': False, 'exit': None,
           'floor': {}, 'size': {}, 'own': {}, 'skip': {},
           'dmesg': [], 'timeout': False, 'kernel': '?', 'begin': False}
    try:
        text = open(path, errors='replace').read()
    except OSError as e:
        res['fail']['(log)'] = str(e)
        return res
    for raw in text.splitlines():
        raw = raw.rstrip('\r')
        i = raw.find('@@BENCH')
        if i < 0:
            continue
        m = LINE.match(raw[i:])
        if not m:
            continue
        kind, rest = m.group(1) or '', (m.group(2) or '').strip()
        if kind == '':
            f = rest.split()
            if len(f) < 5:
                continue
            name = f[0]
            try:
                med, lo, hi = float(f[1]), float(f[2]), float(f[3])
            except ValueError:
                continue
            res['ok'][name] = (med, lo, hi, f[4])
            kv = dict(x.split('=', 1) for x in f[5:] if '=' in x)
            if 'floor' in kv:
                res['floor'][name] = kv['floor']
            if 'size' in kv:
                res['size'][name] = int(kv['size'])
            if name not in res['order']:
                res['order'].append(name)
        elif kind == '-FAIL':
            name, _, why = rest.partition(' ')
            res['fail'][name] = why
            if name not in res['order']:
                res['order'].append(name)
        elif kind == '-SKIP':
            name, _, why = rest.partition(' ')
            res['skip'][name] = why
            if name not in res['order']:
                res['order'].append(name)
        elif kind == '-BEGIN':
            res['begin'] = True
        elif kind == '-END':
            res['end'] = True
        elif kind == '-EXIT':
            res['exit'] = rest
        elif kind == '-INIT':
            m2 = re.search(r'kernel=(\S+)', rest)
            if m2:
                res['kernel'] = m2.group(1)
        elif kind == '-DMESG':
            res['dmesg'].append(rest)
        elif kind == '-HOST-TIMEOUT':
            res['timeout'] = True
    return res


def own_costs(res):
    """The own cost of every row of one log that has a floor there."""
    for name, fl in res['floor'].items():
        if name not in res['ok']:
            continue
        med = res['ok'][name][0]
        if fl == '-':
            res['own'][name] = med
            continue
        base, _, k = fl.partition('*')
        if base in res['ok']:
            res['own'][name] = med - float(k or 1) * res['ok'][base][0]


def merge(paths):
    """One kernel's logs (its boots) as one result; the first log wins."""
    parts = [parse(p) for p in paths]
    for r in parts:
        own_costs(r)
    res = parts[0]
    res['logs'] = parts
    for r in parts[1:]:
        for n in r['order']:
            if n not in res['order']:
                res['order'].append(n)
        for key in ('ok', 'fail', 'floor', 'size', 'own', 'skip'):
            for n, v in r[key].items():
                res[key].setdefault(n, v)
    # a row another boot of the kernel ran is not skipped
    for n in list(res['skip']):
        if n in res['ok'] or n in res['fail']:
            del res['skip'][n]
        res['dmesg'] += r['dmesg']
    return res


def num(v):
    return f'{v:.0f}' if abs(v) >= 100 else f'{v:.1f}'


def ratio(a, b):
    """a/b where both are positive and b is not noise, else ''"""
    if a is None or b is None or b <= 0 or a < 0:
        return ''
    return f'{a / b:.2f}'


def table(rows, right=True):
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for i, r in enumerate(rows):
        cells = [f'{r[0]:<{w[0]}}'] + [f'{c:>{w[j + 1]}}' for j, c in enumerate(r[1:])]
        out.append('  '.join(cells).rstrip())
        if i == 0:
            out.append('  '.join('-' * x for x in w))
    return out


def scale_table(runs, order):
    """Scale rows by family: own cost per size, and per added unit."""
    o, s = runs['ours'], runs['stock']
    fam = {}
    for n in order:
        if n in o['size'] or n in s['size']:
            size = o['size'].get(n, s['size'].get(n))
            fam.setdefault(re.sub(r'_\d+$', '', n), []).append((size, n))
    rows = [('scale row', 'size', 'own ours', 'own stock', 'ratio',
             'slope ours', 'slope stock', 'ratio')]
    for f, members in fam.items():
        members.sort()
        # a family of floors (threads_T) has no own cost to show
        if all(o['own'].get(n) is None and s['own'].get(n) is None
               for _, n in members):
            continue
        prev = None
        for size, n in members:
            oo, so = o['own'].get(n), s['own'].get(n)
            slo = sls = None
            if prev and oo is not None and so is not None and \
               prev[1] is not None and prev[2] is not None:
                du = size - prev[0]
                slo, sls = (oo - prev[1]) / du, (so - prev[2]) / du
            rows.append((f, str(size), num(oo) if oo is not None else '-',
                         num(so) if so is not None else '-', ratio(oo, so),
                         num(slo) if slo is not None else '',
                         num(sls) if sls is not None else '',
                         ratio(slo, sls) if slo is not None and sls and sls > 1 else ''))
            prev = (size, oo, so)
    if len(rows) == 1:
        return []
    return ['', 'scale rows: own cost (ns per op) at each size; slope = own cost '
            'per added unit since the size above'] + table(rows)


def cell(r, name):
    if name in r['ok']:
        med, lo, hi, _ = r['ok'][name]
        return f'{med:.0f}' if med >= 100 else f'{med:.1f}'
    if name in r['fail']:
        return 'FAIL'
    if name in r['skip']:
        return 'n/a'
    return 'missing'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out')
    ap.add_argument('ours')
    ap.add_argument('stock')
    a = ap.parse_args()
    runs = {'ours': merge(a.ours.split(',')), 'stock': merge(a.stock.split(','))}

    order = []
    for r in runs.values():
        for n in r['order']:
            if n not in order:
                order.append(n)
    rows = [('metric', 'ours', 'stock', 'ours/stock', 'own ours', 'own stock',
             'own ratio')]
    bad, skipped = [], []
    for n in order:
        o, s = runs['ours'], runs['stock']
        unit = (o['ok'].get(n) or s['ok'].get(n) or (0, 0, 0, ''))[3]
        rt = ''
        if n in o['ok'] and n in s['ok'] and s['ok'][n][0] > 0:
            rt = f"{o['ok'][n][0] / s['ok'][n][0]:.2f}"
        oo, so = o['own'].get(n), s['own'].get(n)
        rows.append((f'{n} [{unit}]' if unit else n, cell(o, n), cell(s, n), rt,
                     num(oo) if oo is not None else '', num(so) if so is not None else '',
                     ratio(oo, so)))
        both_skip = n in o['skip'] and n in s['skip']
        if both_skip:
            skipped.append(f"{n}: {o['skip'][n]}")
        for k in ('ours', 'stock'):
            if n not in runs[k]['ok'] and not both_skip:
                why = runs[k]['fail'].get(n) or runs[k]['skip'].get(n) or 'no result'
                bad.append(f"{k}: {n}: {why}")

    out = table(rows)
    for n, why in NA_ROWS:
        out.append(f'{n:<{w[0]}}  {why}')
    notes = []
    for k, r in runs.items():
        if not r['begin']:
            bad.append(f'{k}: perf-bench never started (boot failed?)')
        elif not r['end']:
            bad.append(f'{k}: perf-bench did not finish' +
                       (' (host timeout)' if r['timeout'] else ' (guest crashed or hung?)'))
        for d in dict.fromkeys(r['dmesg']):
            notes.append(f'{k}: kernel log: {d}')
    spread = []
    for n in order:
        for k, r in runs.items():
            if n in r['ok']:
                med, lo, hi, _ = r['ok'][n]
                if med > 0 and (hi - lo) / med > 0.05:
                    spread.append(f'{k}:{n} {100 * (hi - lo) / med:.0f}%')
    out += scale_table(runs, order)
    out.append('')
    out.append('own = the row less its floor (perf-bench.h, struct metric: '
               'null_syscall per system call, ctxsw_0, fork_exit_0, the '
               'same work without events; a sampling row is already a '
               'difference), measured in the same boot')
    out.append(f"medians of the guest repetitions; ours={runs['ours']['kernel']} "
               f"stock={runs['stock']['kernel']}; ns/rt = ns per pipe round trip "
               '(2 context switches)')
    if spread:
        out.append('reps spread (max-min)/median > 5%: ' + ', '.join(spread))
    for x in skipped:
        out.append('n/a ' + x)
    for x in notes:
        out.append('NOTE ' + x)
    for x in bad:
        out.append('FAIL ' + x)
    text = '\n'.join(out) + '\n'
    sys.stdout.write(text)
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
