#!/usr/bin/env python3
"""odma compat --shake quotes a failing program's last line in its report and its JSON: what
the program printed must not make the JSON invalid (bytes that are not UTF-8, a line cut in
the middle of a character) nor reach the terminal as an escape sequence.

usage: check_compat_output.py ODMA_COMPAT"""
import json
import os
import subprocess
import sys
import tempfile

from check_util import WRAP, fail, finish

compat = sys.argv[1]


with tempfile.TemporaryDirectory() as tmp:
    for name, line in (('bytes of no character and an escape', b'\xff\xfe bad \x1b[31mred'),
                       ('a reason cut inside a character', '\u20ac'.encode() * 300)):
        out = os.path.join(tmp, 'line')
        with open(out, 'wb') as f:
            f.write(line + b'\n')
        report = os.path.join(tmp, 'r.json')
        r = subprocess.run(WRAP + [compat, '--shake', '1', '--workdir', tmp, '--json', report,
                                   '--', 'sh', '-c', 'cat "$0"; exit 1', out],
                           capture_output=True, timeout=60)
        if r.returncode != 1:
            fail('%s: status %d %r' % (name, r.returncode, r.stderr[-300:]))
            continue
        if b'\x1b' in r.stdout + r.stderr:
            fail('%s: an escape byte reached the terminal' % name)
        try:
            with open(report, 'rb') as f:
                d = json.loads(f.read().decode('utf-8'))
            if 'exited 1' not in d['runs'][0]['reason']:
                fail('%s: reason %r' % (name, d['runs'][0]['reason']))
        except (ValueError, KeyError, IndexError) as e:
            fail('%s: --json is not valid JSON: %s' % (name, e))

finish('compat output')
