#!/usr/bin/env python3
# Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
"""Help that matches the tools: for odma, each odma subcommand and doca_dma_copy,
  - --help exits 0 and lists every flag its parser accepts (the flag list is read from the
    parser in the source: the argp registrations, the getopt table, the command table);
  - its man page (built by the tool's --man from the same text) is valid roff (groff -ww
    says nothing) and names every one of those flags too;
  - a bad flag is one line on stderr, "CMD: unknown option '--x' (see CMD --help)", exit 2.
Usage: check_help.py SOURCE_ROOT NAME=EXE=MANPAGE...
"""
import os
import re
import shutil
import subprocess
import sys

from check_util import WRAP, fail, failures

ROOT = sys.argv[1]
TOOLS = dict((a.split('=', 1)[0], a.split('=', 1)[1].split('=')) for a in sys.argv[2:])
ARGP = r'add_param\(\s*(?:NULL|"(\w)")\s*,\s*"([\w-]+)"'


def src(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def argp_flags(path, pattern=ARGP):
    return [(s or None, l) for s, l in re.findall(pattern, src(path))]


def getopt_flags(path, table):
    body = src(path).split(table, 1)[1].split('};', 1)[0]
    return [(None, l) for l in re.findall(r'\{\s*"([\w-]+)"\s*,\s*\w+_argument', body)
            if l not in ('man',)]


# Each tool: its parser's flags (short, long), and extra invocations whose help must list them.
FLAGS = {
    'odma': [(None, c) for c in re.findall(r'\{\s*"(\w+)",\s*"[^"]+"\s*\}', src('tools/odma.c'))],
    'odma-errors': [(None, l) for l in re.findall(r'set_long_name\(\w+,\s*"([\w-]+)"\)',
                                                  src('tools/errors/errors.c'))],
    'odma-caps': argp_flags('tools/caps/caps.c'),
    'doca_caps': argp_flags('tools/caps/caps.c'),
    'odma-bench': argp_flags('tools/bench/bench_main.c') + [(None, 'json')],
    'odma-advise': argp_flags('tools/bench/advise.c') + [(None, 'json')],
    'odma-compat': getopt_flags('tools/compat/compat.c', 'options[] = {'),
    'odma-trace': getopt_flags('tools/trace/trace.c', 'options[] = {'),
    'doca_dma_copy': argp_flags('apps/dma_copy/dma_copy.c'),
}
SHAKE = getopt_flags('tools/compat/compat_shake.c', 'shake_options[] = {')


def run(args, tool=True):
    env = dict(os.environ, ODMA_SYSTEM='bf3')
    wrap = WRAP if tool else []
    return subprocess.run(wrap + args, capture_output=True, text=True, timeout=60, env=env)


def lists(text, name, flags, what):
    for short, long in flags:
        item = long if name == 'odma' else '--' + long
        if not re.search(r'(?<![\w-])' + re.escape(item) + r'(?![\w-])', text):
            fail('%s: %s does not list %s' % (name, what, item))
        if short and not re.search(r'(?<![\w-])-' + short + r'\b', text):
            fail('%s: %s does not list -%s' % (name, what, short))


for name, (exe, man) in sorted(TOOLS.items()):
    flags = FLAGS[name]
    if not flags:
        fail('%s: no flags found in its parser (the test is out of date)' % name)
    r = run([exe, '--help'])
    if r.returncode != 0:
        fail('%s --help exited %d' % (name, r.returncode))
    lists(r.stdout, name, flags, '--help')
    if name == 'odma-compat':
        r = run([exe, '--shake', '--help'])
        if r.returncode != 0:
            fail('odma compat --shake --help exited %d: %s' % (r.returncode, r.stderr))
        lists(r.stdout, name + ' --shake', SHAKE, '--shake --help')
    if name in ('odma-caps', 'doca_caps'):  # --lib names every library --list-libs lists
        libs = re.findall(r'^doca_(\w+)\s', run([exe, '--list-libs']).stdout, re.M)
        line = next((l for l in r.stdout.splitlines() if '--lib <' in l), '')
        for lib in libs or ['(none listed)']:
            if not re.search(r'\b%s\b' % re.escape(lib), line):
                fail('%s: --lib in --help does not name %s: %r' % (name, lib, line))
    # a bad flag: one line, naming it and --help; exit 2
    r = run([exe, '--no-such-flag-xyz'])
    lines = r.stderr.splitlines()
    if r.returncode != 2 or len(lines) != 1 or r.stdout or not re.fullmatch(
            r"(\S+(?: \w+)?): unknown option '--no-such-flag-xyz' \(see \1 --help\)", lines[0]):
        fail('%s --no-such-flag-xyz: exit %d, stdout %r, stderr %r' %
             (name, r.returncode, r.stdout, r.stderr))
    # the man page: valid roff that names every flag
    with open(man) as f:
        page = f.read()
    if not page.startswith('.\\"') or '\n.TH ' not in page or '\n.SH NAME\n' not in page:
        fail('%s: %s lacks .TH or .SH NAME' % (name, man))
    if shutil.which('groff'):
        g = run(['groff', '-man', '-Tascii', '-P-cbou', '-ww', man], tool=False)
        if g.returncode != 0 or g.stderr:
            fail('%s: groff -ww on %s: %s' % (name, man, g.stderr))
        lists(g.stdout, name, flags, 'its man page')
        if name == 'odma-compat':
            lists(g.stdout, name + ' --shake', SHAKE, 'its man page')
print('%d tools checked: %s' % (len(TOOLS), 'FAILED' if failures else 'ok'))
sys.exit(1 if failures else 0)
