#!/usr/bin/env python3
"""The task timeline (ODMA_TRACE) end to end: a sample program writes it; the file follows
the Chrome trace-event format that Perfetto and chrome://tracing read (every event's fields
and types, async begin/end pairs matched by category and id, complete slices with a
duration), and so do `odma bench --rdma --trace`'s and `odma bench --xproc --transport ucx
--trace`'s, with a transport slice per request carrying a task's bytes; `odma trace`
summarises them and names the dominant stage, in text and JSON; a path
that cannot be written fails the program's doca_pe_create with one line; odma trace refuses
what is not a trace.

usage: check_trace.py ODMA_TRACE ODMA_BENCH SAMPLE (the tools themselves, not the odma
dispatcher: under qemu-user the dispatcher's exec of a foreign binary would fail)"""
import json
import os
import subprocess
import sys
import tempfile

from check_util import WRAP, fail, finish

trace_exe, bench_exe, sample = sys.argv[1], sys.argv[2], sys.argv[3]


def validate(path):
    """The trace-event format's rules for the phases odma writes (b, e, X, M)."""
    with open(path) as f:
        d = json.load(f)
    ev = d.get('traceEvents')
    if not isinstance(ev, list) or not ev:
        fail('no traceEvents array')
        return d
    opened = {}
    for e in ev:
        ph = e.get('ph')
        if ph not in ('b', 'e', 'X', 'M'):
            fail('unknown phase %r' % ph)
            continue
        if not isinstance(e.get('name'), str) or not isinstance(e.get('pid'), int) or \
                not isinstance(e.get('tid'), int):
            fail('an event without name, pid or tid: %r' % e)
        if ph == 'M':
            continue
        if not isinstance(e.get('ts'), (int, float)) or e['ts'] < 0:
            fail('bad ts: %r' % e)
        if ph == 'X' and (not isinstance(e.get('dur'), (int, float)) or e['dur'] < 0):
            fail('a complete slice without a duration: %r' % e)
        if ph in ('b', 'e'):
            key = (e.get('cat'), e.get('id'), e.get('name'))
            if not isinstance(e.get('cat'), str) or not isinstance(e.get('id'), (int, str)):
                fail('an async event without cat or id: %r' % e)
            if ph == 'b':
                opened[key] = e['ts']
            elif key not in opened:
                fail('an end without its begin: %r' % e)
            elif e['ts'] < opened.pop(key):
                fail('an end before its begin: %r' % e)
    # a full ring drops the events that follow (counted in otherData.dropped): the ends of
    # tasks whose begins made it may be among them, never more of them than were dropped
    dropped = d.get('otherData', {}).get('dropped', 0)
    if not isinstance(dropped, int) or dropped < 0:
        fail('otherData.dropped is not a count: %r' % dropped)
    elif len(opened) > dropped:
        fail('%d begins without an end (%d events dropped)' % (len(opened), dropped))
    if not isinstance(d.get('otherData', {}).get('dropped'), int):
        fail('otherData.dropped missing')
    return d


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, ODMA_SYSTEM='bf3', ODMA_TRACE=os.path.join(tmp, 't.json'))
    r = subprocess.run(WRAP + [sample], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail('the traced sample failed: ' + r.stderr[-500:])
    d = validate(env['ODMA_TRACE'])
    tasks = [e for e in d.get('traceEvents', []) if e.get('ph') == 'b']
    runs = [e for e in d.get('traceEvents', []) if e.get('ph') == 'X']
    if not tasks or len(runs) < len(tasks):
        fail('expected a begin per task and a run slice each: %d tasks, %d runs' %
             (len(tasks), len(runs)))
    r = subprocess.run(WRAP + [trace_exe, env['ODMA_TRACE']], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0 or '<- dominates' not in r.stdout or 'slowest tasks' not in r.stdout:
        fail('odma trace (text): %d %s %s' % (r.returncode, r.stdout[-400:], r.stderr))
    r = subprocess.run(WRAP + [trace_exe, '--json', env['ODMA_TRACE']], capture_output=True,
                       text=True, timeout=60)
    try:
        s = json.loads(r.stdout)
        if s['tasks'] != len(tasks) or s['dominant_stage'] not in (
                'queue', 'copy', 'delivery') or s['failed'] != 0 or s['bytes'] <= 0:
            fail('odma trace --json: %r' % s)
    except (ValueError, KeyError) as e:
        fail('odma trace --json is not the summary: %s %s' % (e, r.stdout[-300:]))
    # odma bench --rdma --trace (RDMA tasks) and --xproc --transport ucx --trace (copies
    # over the network): no engine slices; a transport slice per request or io, naming its
    # task and its bytes; the tasks' bytes at their end; the stage that dominates is one of
    # the wire's
    # (runs small enough for the rings: 65,536 events a thread; at depth 8 the three RDMA
    # phases of 0.2 s filled the PE thread's once 4 KiB sends ran at 250 k/s, and the events
    # after it were dropped, counted, so tasks lost their ends)
    for what, args in (('RDMA', ['--rdma', '--size', '4K', '--depth', '1', '--seconds', '0.1']),
                       ('UCX copy', ['--xproc', '--transport', 'ucx', '--size', '64K',
                                     '--depth', '4', '--reps', '1', '--seconds', '0.1'])):
        rt = os.path.join(tmp, 'remote.json')
        r = subprocess.run(WRAP + [bench_exe] + args + ['--no-pingpong', '--trace', rt],
                           env=dict(os.environ, ODMA_SYSTEM='bf3'), capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0 and 'without UCX' in r.stderr:
            print('note: built without UCX: no %s timeline' % what)
            continue
        if r.returncode != 0:
            fail('odma bench %s --trace: %s' % (' '.join(args), r.stderr[-400:]))
            continue
        d = validate(rt)
        if d.get('otherData', {}).get('dropped', 0) != 0:
            fail('%s: the run dropped %r events: make it smaller' %
                 (what, d['otherData']['dropped']))
        ev = d.get('traceEvents', [])
        begun = {e['id'] for e in ev if e.get('ph') == 'b'}
        wires = [e for e in ev if e.get('ph') == 'X' and e.get('cat') == 'transport']
        if not wires or any(e.get('name') != 'wire' or e['args'].get('task') not in begun or
                            not e['args'].get('bytes', 0) > 0 for e in wires):
            fail('%s: transport slices naming a traced task and its bytes: %d of them, %r' %
                 (what, len(wires), wires[:2]))
        if any(e.get('cat') == 'engine' for e in ev):
            fail('%s: an engine slice in a remote run' % what)
        r = subprocess.run(WRAP + [trace_exe, '--json', rt], capture_output=True, text=True,
                           timeout=60)
        try:
            s = json.loads(r.stdout)
            if s['tasks'] <= 0 or s['bytes'] <= 0 or \
                    s['dominant_stage'] not in ('to_wire', 'wire', 'from_wire') or \
                    s['mean_stage']['wire_us'] <= 0:
                fail('odma trace of the %s run: %r' % (what, s))
        except (ValueError, KeyError) as e:
            fail('odma trace --json of the %s run: %s %s' % (what, e, r.stdout[-300:]))
    # a path that cannot be written: doca_pe_create fails, one line names the variable
    env['ODMA_TRACE'] = os.path.join(tmp, 'no-such-dir', 't.json')
    r = subprocess.run(WRAP + [sample], env=env, capture_output=True, text=True, timeout=60)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if 'ODMA_TRACE=' in l]
    if r.returncode == 0 or len(lines) != 1:
        fail('an unwritable ODMA_TRACE: status %d, lines %r' % (r.returncode, lines))
    # a path of 600 bytes (under PATH_MAX): written there, not to the path cut at 511 bytes
    # (which named a file 'fff...' beside the last directory)
    deep = os.path.join(tmp, 'd' * 200, 'e' * 200, 'f' * 200)
    os.makedirs(deep)
    env['ODMA_TRACE'] = os.path.join(deep, 't.json')
    r = subprocess.run(WRAP + [sample], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or not os.path.exists(env['ODMA_TRACE']) or \
            os.listdir(os.path.dirname(deep)) != ['f' * 200]:
        fail('ODMA_TRACE of %d bytes: status %d, %r beside its directory' %
             (len(env['ODMA_TRACE']), r.returncode, os.listdir(os.path.dirname(deep))))
    else:
        validate(env['ODMA_TRACE'])
    # a FIFO no process reads, /dev/null: not regular files, refused the same way and at
    # once (the open of the FIFO waited for a reader for ever)
    fifo = os.path.join(tmp, 'fifo')
    os.mkfifo(fifo)
    for path in (fifo, '/dev/null'):
        env['ODMA_TRACE'] = path
        try:
            r = subprocess.run(WRAP + [sample], env=env, capture_output=True, text=True,
                               timeout=20)
        except subprocess.TimeoutExpired:
            fail('ODMA_TRACE=%s: still running after 20 s' % path)
            continue
        lines = [l for l in (r.stdout + r.stderr).splitlines() if 'ODMA_TRACE=' in l]
        if r.returncode == 0 or len(lines) != 1 or 'not a regular file' not in lines[0]:
            fail('ODMA_TRACE=%s: status %d, lines %r' % (path, r.returncode, lines))
    # not a trace; an empty file; a directory; a file without end (read until the first byte
    # that is not JSON, not whole first); a bad flag
    bad = os.path.join(tmp, 'bad.json')
    with open(bad, 'w') as f:
        f.write('{"hello": 1}')
    for args, want, says in (([bad], 1, 'no traceEvents array'),
                             ([os.path.join(tmp, 'empty')], 1, 'is empty'),
                             ([tmp], 1, ': Is a directory'),
                             (['/dev/zero'], 1, 'is not a trace-event JSON file'),
                             (['--bogus', bad], 2, "unknown option '--bogus'")):
        if args[0].endswith('empty'):
            open(args[0], 'w').close()
        r = subprocess.run(WRAP + [trace_exe] + args, capture_output=True, text=True, timeout=60)
        if (r.returncode != want or len(r.stderr.strip().splitlines()) != 1 or
                says not in r.stderr):
            fail('odma trace %s: status %d, stderr %r' % (args, r.returncode, r.stderr))

finish('trace')
