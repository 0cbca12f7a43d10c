"""What the tools' check scripts share: how a cross build's programs run (through the emulator
named by MESON_EXE_WRAPPER, tests/meson.build), one FAIL line per failed check, and the last
line and exit status (1 when any check failed)."""
import os
import sys

WRAP = os.environ.get('MESON_EXE_WRAPPER', '').split()
failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL: ' + msg)


def finish(what):
    print('%s: %s' % (what, 'FAILED' if failures else 'ok'))
    sys.exit(1 if failures else 0)
