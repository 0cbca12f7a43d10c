#!/bin/sh
# The stress model (tests/stress), longer: `make soak` or `sh scripts/soak.sh [BUILD]`.
# Every built-in configuration (thread engine, inline engine with a queue depth of 8, and
# both with ODMA_FAULTS) runs in its own process for its share of the time and tasks:
#   ODMA_SOAK_SECONDS  total wall time (default 60)
#   ODMA_SOAK_TASKS    total accepted tasks at least (default 1000000)
#   ODMA_SOAK_THREADS  PEs, one thread each (default 4)
#   ODMA_SOAK_CTXS     DMA contexts per PE (default 3)
#   ODMA_SOAK_SEED     random seed (default 1)
# Prints per configuration and in total: tasks, completions, failures, AGAIN, injected faults,
# stops, restarts, list tasks, verified bytes. Exits non-zero if an invariant broke.
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
exe=$build/tests/stress/stress_soak
if [ ! -x "$exe" ]; then
	echo "soak: $exe not built (run make first)" >&2
	exit 1
fi
# rejected calls log one line each; keep the output to the counts
DOCA_LOG_LEVEL=${DOCA_LOG_LEVEL:-10} exec "$exe"
