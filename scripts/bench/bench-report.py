#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py [--out FILE] OURS.log STOCK.log

Turn the serial logs of two perf-bench guests (scripts/bench/bench.sh) into one
table: metric, ours, stock, ours/stock (medians, ns per operation).
Exit status 1 if any metric failed or is missing in either log, or either
guest did not finish (crash, hang, host timeout)."""
import argparse
import re
import sys

# Metrics that cannot be measured yet: printed as n/a rows.
NA_ROWS = []

LINE = re.compile(r'@@BENCH(-FAIL|-BEGIN|-END|-INIT|-EXIT|-DMESG|-HOST-TIMEOUT)?(?: (.*))?$')


def parse(path):
    res = {'order': [], 'ok': {}, 'fail': {}, 'end': False, 'exit': None,
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
            if name not in res['order']:
                res['order'].append(name)
        elif kind == '-FAIL':
            name, _, why = rest.partition(' ')
            res['fail'][name] = why
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


def cell(r, name):
    if name in r['ok']:
        med, lo, hi, _ = r['ok'][name]
        return f'{med:.0f}' if med >= 100 else f'{med:.1f}'
    if name in r['fail']:
        return 'FAIL'
    return 'missing'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out')
    ap.add_argument('ours')
    ap.add_argument('stock')
    a = ap.parse_args()
    runs = {'ours': parse(a.ours), 'stock': parse(a.stock)}

    order = []
    for r in runs.values():
        for n in r['order']:
            if n not in order:
                order.append(n)
    rows = [('metric', 'ours', 'stock', 'ours/stock')]
    bad = []
    for n in order:
        o, s = runs['ours'], runs['stock']
        unit = (o['ok'].get(n) or s['ok'].get(n) or (0, 0, 0, ''))[3]
        ratio = ''
        if n in o['ok'] and n in s['ok'] and s['ok'][n][0] > 0:
            ratio = f"{o['ok'][n][0] / s['ok'][n][0]:.2f}"
        rows.append((f'{n} [{unit}]' if unit else n, cell(o, n), cell(s, n), ratio))
        for k in ('ours', 'stock'):
            if n not in runs[k]['ok']:
                bad.append(f"{k}: {n}: {runs[k]['fail'].get(n, 'no result')}")

    w = [max(len(r[i]) for r in rows + [(n, '', '', '') for n, _ in NA_ROWS])
         for i in range(4)]
    out = []
    for i, r in enumerate(rows):
        out.append(f'{r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:>{w[2]}}  {r[3]:>{w[3]}}'.rstrip())
        if i == 0:
            out.append('  '.join('-' * x for x in w))
    for n, why in NA_ROWS:
        out.append(f'{n:<{w[0]}}  {why}')
    notes = []
    for k, r in runs.items():
        if not r['begin']:
            bad.append(f'{k}: perf-bench never started (boot failed?)')
        elif not r['end']:
            bad.append(f'{k}: perf-bench did not finish' +
                       (' (host timeout)' if r['timeout'] else ' (guest crashed or hung?)'))
        for d in r['dmesg']:
            notes.append(f'{k}: kernel log: {d}')
    spread = []
    for n in order:
        for k, r in runs.items():
            if n in r['ok']:
                med, lo, hi, _ = r['ok'][n]
                if med > 0 and (hi - lo) / med > 0.05:
                    spread.append(f'{k}:{n} {100 * (hi - lo) / med:.0f}%')
    out.append('')
    out.append(f"medians of the guest repetitions; ours={runs['ours']['kernel']} "
               f"stock={runs['stock']['kernel']}; ns/rt = ns per pipe round trip "
               '(2 context switches)')
    if spread:
        out.append('reps spread (max-min)/median > 5%: ' + ', '.join(spread))
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
