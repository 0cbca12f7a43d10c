#!/usr/bin/env python3
# Checks the include rules of src/ (docs/design.md, "Who may include whom"):
#   1. a file includes another module's header only if it is that module's face:
#      core/<m>/<m>.h, engines/engine.h (the engine contract), engines/<e>/<e>.h,
#      <lib>/<lib>.h; src/util/ headers are free for all;
#   2. no include circle, between files or between modules.
# `scripts/check-includes.py [SRC]` exits 1 and names each violation; with --figures it also
# prints the figures of docs/design.md (files per folder, longest file, include floors).
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """The module a src/-relative path belongs to."""
    parts = path.split('/')
    if parts[0] == 'core' and len(parts) > 2:
        return 'core/' + parts[1]
    if parts[0] == 'engines':
        return 'engines/' + parts[1] if len(parts) > 2 else 'engines'
    return parts[0] if len(parts) > 1 else '.'


def is_face(module, header):
    if module == 'util':
        return True
    if module == 'engines':
        return header == 'engines/engine.h'
    name = module.split('/')[-1]
    return header == module + '/' + name + '.h'


def scan(src):
    files = {}
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith(('.c', '.h')):
                p = os.path.relpath(os.path.join(root, n), src)
                with open(os.path.join(root, n), encoding='utf-8') as f:
                    text = f.read()
                files[p] = (INCLUDE.findall(text), text.count('\n'))
    return files


def find_cycles(graph):
    """Strongly connected components with more than one node (or a self loop)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def floors(graph):
    """Longest include chain (in nodes) of an acyclic graph."""
    memo = {}

    def depth(v):
        if v not in memo:
            memo[v] = 1 + max((depth(w) for w in graph.get(v, ()) if w in graph), default=0)
        return memo[v]

    return max((depth(v) for v in graph), default=0)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
    files = scan(src)
    errors = []
    fgraph, mgraph = {}, {}
    for path, (incs, _) in sorted(files.items()):
        mod = module_of(path)
        fgraph.setdefault(path, set())
        mgraph.setdefault(mod, set())
        for inc in incs:
            if inc not in files:  # relative to the including file, as the compiler looks first
                inc = os.path.normpath(os.path.join(os.path.dirname(path), inc))
            if inc not in files:
                continue  # a public header (include/) or a generated one
            fgraph[path].add(inc)
            imod = module_of(inc)
            if imod == mod:
                continue
            mgraph[mod].add(imod)
            if not is_face(imod, inc):
                errors.append('%s includes %s, which is not the face of module %s' % (path, inc, imod))
    for comp in find_cycles(fgraph):
        errors.append('include circle between files: ' + ' -> '.join(comp))
    for comp in find_cycles(mgraph):
        errors.append('include circle between modules: ' + ' -> '.join(comp))
    for e in errors:
        print('check-includes: ' + e)
    if '--figures' in sys.argv:
        folders = {}
        for path, (_, lines) in files.items():
            folders.setdefault(os.path.dirname(path) or '.', []).append((lines, path))
        print('files per folder:')
        for d in sorted(folders):
            print('  %-24s %d' % (d, len(folders[d])))
        longest = max((v[1], p) for p, v in files.items())
        print('longest file: %s (%d lines)' % (longest[1], longest[0]))
        print('files: %d, lines: %d' % (len(files), sum(v[1] for v in files.values())))
        if not errors:
            print('include floors: %d (files), %d (modules)' % (floors(fgraph), floors(mgraph)))
        print('modules and what they include:')
        for m in sorted(mgraph):
            print('  %-16s -> %s' % (m, ', '.join(sorted(mgraph[m])) or '-'))
    if errors:
        print('check-includes: %d violation(s)' % len(errors))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
