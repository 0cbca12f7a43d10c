#!/usr/bin/env python3
"""odma trace on hostile input: files that parse as JSON but hold timestamps no trace of
odma's has (NaN, an end before its begin, beyond any clock). Each run must end by itself
with status 0 or 1, never a signal, and --json must print strict JSON (no NaN or Infinity).

usage: check_trace_input.py ODMA_TRACE"""
import json
import os
import subprocess
import sys
import tempfile

from check_util import WRAP, fail, finish

trace_exe = sys.argv[1]


def strict(text):
    def refuse(c):
        raise ValueError('not JSON: ' + c)
    return json.loads(text, parse_constant=refuse)


def task(i, b, e):
    return ('{"ph":"b","cat":"task","name":"DMA","id":%d,"ts":%s,"args":{"bytes":64}},'
            '{"ph":"e","cat":"task","name":"DMA","id":%d,"ts":%s,'
            '"args":{"status":"DOCA_SUCCESS"}}' % (i, b, i, e))


def run(args, timeout=20):
    try:
        return subprocess.run(WRAP + [trace_exe] + args, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def summary(name, path, want_tasks):
    """--json of @path: status 0, strict JSON, @want_tasks tasks; the text form too."""
    r = run(['--json', path])
    if r is None or r.returncode != 0:
        fail('%s: --json: %s' % (name, 'timed out' if r is None else
                                  'status %d %r' % (r.returncode, r.stderr[-300:])))
        return
    try:
        s = strict(r.stdout)
        if s['tasks'] != want_tasks:
            fail('%s: %d tasks, not %d' % (name, s['tasks'], want_tasks))
        if s['mean_in_flight'] < 0 or any(b['in_flight'] < 0 for b in s['over_time']):
            fail('%s: a negative number of tasks in flight: %r' % (name, s))
    except (ValueError, KeyError) as e:
        fail('%s: --json is not the summary: %s %r' % (name, e, r.stdout[-300:]))
    r = run([path])
    if r is None or r.returncode != 0:
        fail('%s: text: %s' % (name, 'timed out' if r is None else
                                'status %d %r' % (r.returncode, r.stderr[-300:])))


with tempfile.TemporaryDirectory() as tmp:
    # one good task beside a task with a bad stamp: the bad one is left out
    for name, bad in (('NaN begin', task(2, 'NaN', '10')),
                      ('NaN end', task(2, '5', 'NaN')),
                      ('Infinity end', task(2, '5', 'Infinity')),
                      ('end before begin', task(2, '100', '3')),
                      ('stamps past any clock', task(2, '0', '1e308')),
                      ('a slice of NaN', '{"ph":"X","cat":"engine","name":"run","ts":NaN,'
                                         '"dur":1,"args":{"task":1}}')):
        path = os.path.join(tmp, 'bad.json')
        with open(path, 'w') as f:
            f.write('{"traceEvents":[%s,%s]}' % (task(1, '50', '60'), bad))
        summary(name, path, 1)
    # trace numbers far apart: memory for the tasks in the file, not for the largest id
    # (99999999 made it allocate and clear 11 GB; 2**52 was dropped)
    path = os.path.join(tmp, 'ids.json')
    with open(path, 'w') as f:
        f.write('{"traceEvents":[%s,%s,%s]}' % (task(1, '50', '60'), task(99999999, '1', '2'),
                                                task(2**52, '3', '4')))
    summary('ids 1, 99999999 and 2**52', path, 3)
    # a span below the nanosecond the writer resolves: no rate of infinity
    path = os.path.join(tmp, 'tiny.json')
    with open(path, 'w') as f:
        f.write('{"traceEvents":[%s]}' % task(1, '0', '1e-300').replace('64', '9e15'))
    summary('a span of 1e-300 us', path, 1)

    # a FIFO that nobody writes: one line and status 1, not an open that waits for ever;
    # a pipe with a writer is read as usual
    fifo = os.path.join(tmp, 'fifo')
    os.mkfifo(fifo)
    r = run([fifo], timeout=10)
    if r is None or r.returncode != 1 or len(r.stderr.strip().splitlines()) != 1:
        fail('a FIFO without a writer: %s' % ('still waiting after 10 s' if r is None else
                                              'status %d %r' % (r.returncode, r.stderr)))
    good = '{"traceEvents":[%s]}' % task(1, '50', '60')
    try:
        r = subprocess.run(WRAP + [trace_exe, '--json', '/dev/stdin'], input=good,
                           capture_output=True, text=True, timeout=10)
        if r.returncode != 0 or strict(r.stdout)['tasks'] != 1:
            fail('a pipe: status %d %r' % (r.returncode, r.stderr))
    except (subprocess.TimeoutExpired, ValueError, KeyError) as e:
        fail('a pipe: %s' % e)

    # a flag without its value, with an empty one, a value for a flag that takes none, an
    # unknown flag: one line naming the fault, status 2
    for args, says in ((['x.json', '--top'], "option '--top' needs a value"),
                       (['x.json', '--buckets'], "option '--buckets' needs a value"),
                       (['--top', '', 'x.json'], '--top "" is not a number'),
                       (['--buckets=', 'x.json'], '--buckets "" is not a number'),
                       (['--json=1', 'x.json'], "option '--json' takes no value"),
                       (['--nosuch=1', 'x.json'], "unknown option '--nosuch=1'")):
        r = run(args, timeout=10)
        if r is None or r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or \
                says not in r.stderr:
            fail('odma trace %r: %s' % (args, 'timed out' if r is None else
                                        'status %d %r' % (r.returncode, r.stderr)))

finish('trace input')
