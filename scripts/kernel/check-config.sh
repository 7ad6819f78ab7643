#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh <.config> <fragment>...
#
# Verify that every option requested by the fragments survived
# olddefconfig.  Later fragments override earlier ones.  An option preceded
# by a "# optional" comment line only produces a warning.
set -euo pipefail

cfg=$1; shift
python3 - "$cfg" "$@" <<'PY'
import re, sys
cfg, frags = sys.argv[1], sys.argv[2:]
final = {}
for line in open(cfg):
    m = re.match(r'(CONFIG_\w+)=(.*)$', line.strip())
    if m:
        final[m.group(1)] = m.group(2)
want = {}
for frag in frags:
    optional = False
    for line in open(frag):
        line = line.strip()
        if re.match(r'#\s*optional\b', line):
            optional = True
            continue
        m = re.match(r'(CONFIG_\w+)=(.*)$', line)
        n = re.match(r'# (CONFIG_\w+) is not set$', line)
        if m:
            want[m.group(1)] = (m.group(2), optional, frag)
        elif n:
            want[n.group(1)] = ('n', optional, frag)
        else:
            continue
        optional = False
errors = 0
for sym, (val, optional, frag) in sorted(want.items()):
    have = final.get(sym, 'n')
    if have == val:
        continue
    tag = 'warning' if optional else 'ERROR'
    print(f'check-config: {tag}: {sym}={val} requested by {frag}, '
          f'but final .config has {sym}={have}', file=sys.stderr)
    if not optional:
        errors += 1
if errors:
    print(f'check-config: {errors} requested option(s) did not stick in {cfg}',
          file=sys.stderr)
    sys.exit(1)
PY
