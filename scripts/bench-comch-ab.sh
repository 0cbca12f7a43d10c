#!/bin/sh
# Same-run A/B of DOCA Comch across machines for two odma builds (root: odma bench --comch
# --netns makes the namespaces and the veth pair): RUNS rounds, each runs build A then build
# B, one `odma bench --comch --netns --size SIZE --seconds SECS` each. One line per run: the
# build, the size, the fast path's and the raw TCP stream's MB/s of that run, their ratio, the
# 64-byte round trip (us) and the 64-byte stream (M messages/s).
#   scripts/bench-comch-ab.sh /tmp/base/build/tools/odma build/tools/odma 8K 7
# SECS (default 5) splits as the benchmark does: the fast path gets a fifth of it.
set -eu
A=$1
B=$2
SIZE=${3:-64K}
RUNS=${4:-5}
SECS=${SECS:-5}

key() { # key JSON NAME SCALE
	printf '%s\n' "$1" | grep -o "\"$2\": [0-9.]*" | awk -v s="$3" '{ printf "%.3f", $2 / s }'
}

i=0
while [ "$i" -lt "$RUNS" ]; do
	for w in A B; do
		if [ "$w" = A ]; then odma=$A; else odma=$B; fi
		j=$(timeout 90 "$odma" bench --comch --netns --size "$SIZE" --seconds "$SECS" \
			--json 2>/dev/null || true)
		echo "$w $SIZE fp=$(key "$j" fastpath_bytes_per_sec 1e6)" \
			"tcp=$(key "$j" raw_tcp_bytes_per_sec 1e6)" \
			"ratio=$(key "$j" fastpath_vs_tcp 1)" \
			"rtt_us=$(key "$j" msg_pingpong_ns 1e3)" \
			"stream_M=$(key "$j" msg_stream_per_sec 1e6)"
	done
	i=$((i + 1))
done
