#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse guest serial logs into test results.

parse-results.py [--boot SUFFIX:SMP:LIST:LOG]... [--result FILE]...
                 [--summary FILE]

--boot   one boot: result names get "@SUFFIX"; SMP is the expected CPU
         count; LIST the tests.list that was baked into the initramfs; LOG
         the serial console log.  The boot itself is one test, "boot@SUFFIX",
         failing on a missing @@DONE (crash/hang/timeout), a wrong CPU count
         or a kernel report outside any test.
--result file with extra lines "PASS name" / "FAIL name: reason".
--summary write the final "N passed, N failed" line to FILE too.

Besides the guest's own verdict (@@RESULT), a test fails if the console
shows a kernel report between its @@BEGIN and @@RESULT, unless the test
printed "@@EXPECT-REPORT TEXT" before it and the report contains TEXT (a
test that provokes one on purpose, and checks for it itself).  Prints details
for failures, then "PASS name" / "FAIL name: reason" per test, then
"N passed, N failed" as the very last line.  Exit status 1 if anything
failed or no guest test ran.
"""
import argparse
import re
import sys

REPORT = re.compile(
    r'WARNING:|BUG:|kernel BUG at|KASAN|lockdep|possible circular locking|'
    r'possible recursive locking|inconsistent lock state|'
    r'suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO|'
    r'soft lockup|hard LOCKUP|Oops|general protection fault|refcount_t:|'
    r'list_add corruption|list_del corruption|UBSAN|'
    r'sleeping function called from invalid context|blocked for more than|'
    r'Kernel panic')
# Boot-time messages that merely mention a pattern.
BENIGN = re.compile(r'RCU lockdep checking is enabled')
# A kernel console line carries a printk timestamp (CONFIG_PRINTK_TIME).
KLINE = re.compile(r'\[\s*\d+\.\d+\]\s?(.*)')


def kreport(line):
    """Return the kernel message if LINE is a kernel report, else None."""
    if line.startswith('@@'):
        return None
    m = KLINE.search(line)
    if m and REPORT.search(m.group(1)) and not BENIGN.search(m.group(1)):
        return m.group(1).strip()
    return None


def list_names(path, smp):
    """The result names a boot with smp CPUs reports: a 4th field cpus=N
    keeps a test to the boots with N CPUs."""
    names = []
    for line in open(path, errors='replace'):
        f = line.split('#', 1)[0].split()
        if f and (len(f) < 4 or f[3] == 'cpus=%d' % smp):
            user = ':user' if len(f) > 1 and f[1] == 'user' else ''
            names.append(f[0].replace('/', ':') + user)
    return names


def parse_boot(suffix, smp, listfile, logfile):
    """Return [(status, name, reason, details)] for one boot."""
    expected = list_names(listfile, smp)
    try:
        lines = open(logfile, 'rb').read().decode('utf-8', 'replace')
        lines = lines.replace('\r', '').split('\n')
    except OSError as e:
        lines = []
        missing = str(e)
    else:
        missing = None

    results = {}          # name -> [status, reason, details]
    order = []
    cur = None            # test currently running
    cur_lines = []        # its console lines (for details)
    cur_reports = []
    cur_expect = []       # reports the running test provokes on purpose
    boot_reports = []
    boot_ctx = []         # console lines outside tests
    boot_rep_at = None    # index in boot_ctx of the first report there
    done = False
    timed_out = None
    cpus = None

    for line in lines:
        if line.startswith('@@INIT'):
            m = re.search(r'cpus=(\d+)', line)
            cpus = int(m.group(1)) if m else None
        elif line.startswith('@@BEGIN '):
            cur = line.split(None, 1)[1].strip()
            cur_lines, cur_reports, cur_expect = [], [], []
        elif line.startswith('@@RESULT '):
            f = line.split(None, 3)
            status = f[1] if len(f) > 1 else 'FAIL'
            name = f[2] if len(f) > 2 else '?'
            reason = f[3].strip() if len(f) > 3 else ''
            details = []
            if status != 'PASS':
                details = failure_lines(cur_lines)
            if cur_reports and name == cur:
                if status == 'PASS':
                    reason = 'kernel report on console: ' + cur_reports[0]
                status = 'FAIL'
                details = failure_lines(cur_lines)
            if status not in ('PASS', 'FAIL'):
                reason = f'bad status {status}; ' + reason
                status = 'FAIL'
            if name not in results:
                order.append(name)
            results[name] = [status, reason, details]
            cur = None
        elif line.startswith('@@DMESG '):
            if order:
                results[order[-1]][2].append('dmesg: ' + line[len('@@DMESG '):])
        elif line.startswith('@@EXPECT-REPORT ') and cur is not None:
            # a test that provokes a report (the hard-lockup watchdog's)
            # names it; it checks itself that the report came
            cur_expect.append(line.split(None, 1)[1].strip())
            cur_lines.append(line)
        elif line.startswith('@@DONE'):
            done = True
        elif line.startswith('@@HOST-TIMEOUT'):
            timed_out = line.split()[1] if len(line.split()) > 1 else '?'
        else:
            rep = kreport(line)
            if cur is not None:
                cur_lines.append(line)
                if rep and not any(e in rep for e in cur_expect):
                    cur_reports.append(rep)
            else:
                boot_ctx.append(line)
                if rep:
                    if boot_rep_at is None:
                        boot_rep_at = len(boot_ctx) - 1
                    boot_reports.append(rep)

    out = []
    # The boot itself
    breason = []
    if missing:
        breason.append(f'no serial log ({missing})')
    elif not done and timed_out:
        breason.append(f'no @@DONE: QEMU killed after {timed_out} (hang?)')
    elif not done:
        breason.append('no @@DONE: kernel crashed, hung or timed out')
    if cpus is None and not missing:
        breason.append('guest /init never ran')
    elif cpus is not None and cpus != smp:
        breason.append(f'guest sees {cpus} CPUs, expected {smp}')
    if boot_reports:
        breason.append('kernel report outside tests: ' + boot_reports[0])
    if breason:
        if boot_rep_at is not None:
            det = boot_ctx[max(0, boot_rep_at - 5):boot_rep_at + 60]
        elif cur is None:       # died outside any test: show the end
            det = boot_ctx[-60:]
        else:                   # died in a test: see that test
            det = []
        out.append(('FAIL', f'boot@{suffix}', '; '.join(breason), det))
    else:
        out.append(('PASS', f'boot@{suffix}', '', []))

    if cur is not None:       # a test started but never reported
        reason = 'no result: kernel crashed/hung during the test'
        if cur_reports:
            reason += ': ' + cur_reports[0]
        order.append(cur)
        results[cur] = ['FAIL', reason, cur_lines[-80:]]

    for name in order:
        st, reason, det = results[name]
        out.append((st, f'{name}@{suffix}', reason, det))
    for name in expected:
        if name not in results:
            out.append(('FAIL', f'{name}@{suffix}',
                        'never ran (boot died before it)', []))
    return out, len(results)


# A test's lines that say nothing about a failure: its passed checks
# (kselftest and TAP "ok", the harness's "OK" and "RUN" lines)
QUIET_RE = re.compile(r'^(ok |#\s+OK\s|#\s+RUN\s|# PASSED|#\s+PASS\s)')
DETAIL_LINES = 25


# a failed check's line (TAP, kselftest's harness) and the "#" lines of
# what it got and wanted right after it
NOT_OK_RE = re.compile(r'^(not ok |#\s+FAIL\s|# FAILED)')
NOT_OK_LINES = 24
ELIDED = '...'


def failure_lines(lines):
    """What a failed test printed, for its details: every failed check
    with the "#" lines after it, wherever it came in the test's output (a
    long test's first failure is far from its end), then its last 60
    lines."""
    tail = lines[-60:]
    head = lines[:-60]
    picked, follow = [], 0
    for line in head:
        if NOT_OK_RE.match(line):
            picked.append(line)
            follow = 3
        elif follow and line.startswith('#'):
            picked.append(line)
            follow -= 1
        else:
            follow = 0
    if not picked:
        return tail
    return picked[:NOT_OK_LINES] + [ELIDED] + tail


def interesting(det):
    """The failed checks of @det (failure_lines()) and its last
    DETAIL_LINES lines that are not passed checks."""
    if ELIDED in det:
        cut = det.index(ELIDED)
        tail = [d for d in det[cut + 1:] if not QUIET_RE.match(d)]
        return det[:cut + 1] + tail[-DETAIL_LINES:]
    return [d for d in det if not QUIET_RE.match(d)][-DETAIL_LINES:]


def read_result(path):
    """Results of a --result file: "PASS name[: why]", "FAIL name: why",
    and, as this script prints them, "---- name: why" followed by that
    failure's "  | line"s."""
    res, details, cur = [], {}, None
    for line in open(path):
        line = line.rstrip('\n')
        m = re.match(r'(PASS|FAIL) (\S+?)(?:: (.*))?$', line)
        if m:
            res.append((m.group(1), m.group(2), m.group(3) or '', []))
            continue
        m = re.match(r'---- (\S+?):', line)
        if m:
            cur = m.group(1)
            continue
        if line.startswith('  | ') and cur:
            details.setdefault(cur, []).append(line[4:])
        else:
            cur = None
    return [(st, n, r, details.get(n, [])) for st, n, r, _ in res]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--boot', action='append', default=[])
    ap.add_argument('--result', action='append', default=[])
    ap.add_argument('--summary', help='also write the last line here')
    args = ap.parse_args()

    allres = []
    guest_tests = 0
    for spec in args.boot:
        suffix, smp, listfile, logfile = spec.split(':', 3)
        res, n = parse_boot(suffix, int(smp), listfile, logfile)
        allres += res
        guest_tests += n
    for path in args.result:
        try:
            allres += read_result(path)
        except OSError as e:
            allres.append(('FAIL', path, f'missing result file ({e})', []))
    if args.boot and guest_tests == 0:
        allres.append(('FAIL', 'tests', 'no test ran in the guest', []))

    failed = [r for r in allres if r[0] != 'PASS']
    for st, name, reason, det in allres:
        if st == 'PASS':
            skip = ' (skipped)' if reason.startswith('skip') else ''
            print(f'PASS {name}{skip}')
        else:
            print(f'FAIL {name}: {reason}')
    # What each failure printed comes last, next to the summary, where a
    # log cut to its head and tail still shows it
    for st, name, reason, det in failed:
        det = interesting(det)
        if det:
            print(f'---- {name}: {reason}')
            for d in det:
                print('  | ' + d)
    if any(r[3] for r in failed):
        print('----')
    npass = len(allres) - len(failed)
    summary = f'{npass} passed, {len(failed)} failed'
    print(summary)
    if args.summary:
        with open(args.summary, 'w') as f:
            f.write(summary + '\n')
    sys.exit(1 if failed or (args.boot and guest_tests == 0) else 0)


if __name__ == '__main__':
    main()
