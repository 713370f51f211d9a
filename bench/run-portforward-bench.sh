#!/usr/bin/env bash
# run-portforward-bench.sh: port-forward throughput beside a direct connection, in one run, as
# root (issue 15's Performance): a busybox httpd pod serves SIZE_MIB of random bytes; curl
# fetches it ROUNDS times each directly from the pod's IP (over the node's pod bridge), through
# `kubectl 1.33 port-forward` (SPDY/3.1 in a WebSocket, unwrapped by the API server) and through
# `kubectl 1.29 port-forward` (plain SPDY/3.1), the ways interleaved round by round. The path of
# a forwarded byte: curl -> kubectl -> TLS -> API server -> TLS -> kubelet endpoint -> the pod,
# all on this machine. Everything is removed on exit (tests/lib/node.sh's cleanup). The report
# goes to stdout and bench/results/portforward-<UTC date>.md.
#
# Environment: SIZE_MIB (64), ROUNDS (5), FLEXLET_TEST_PORT_BASE (the loopback port range).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SIZE_MIB=${SIZE_MIB:-64}
ROUNDS=${ROUNDS:-5}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-portforward-bench.sh: needs root (the node agent runs the pod)" >&2
        exit 1
fi
set +eu
. tests/lib/tap.sh
. tests/lib/server.sh
. tests/lib/node.sh
set -eu

PF_PIDS=()
bench_cleanup() {
        local pid
        for pid in "${PF_PIDS[@]}"; do
                kill "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        done
        node_cleanup
}
SERVER_CLEANUP=bench_cleanup
node_start >/dev/null
k create -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
                 "command":["sh","-c","mkdir -p /www && head -c $((SIZE_MIB * 1048576)) /dev/urandom > /www/big && exec httpd -f -p 8080 -h /www"]}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Running pod/web --timeout=120s >/dev/null
ip=$(k get pod web -o jsonpath='{.status.podIP}')
want=$(k exec web -- sha256sum /www/big | cut -d' ' -f1)

# pf_start KUBECTL-BIN: a forward in the background; prints its local port
pf_start() {
        local out
        out=$(mktemp -p "$SERVER_DIR")
        "$1" --cache-dir "$SERVER_DIR/cache-pf" port-forward pod/web :8080 >"$out" 2>&1 &
        PF_PIDS+=($!)
        for _ in $(seq 1 100); do
                p=$(sed -n 's/^Forwarding from 127.0.0.1:\([0-9]*\) -> .*/\1/p' "$out" | head -1)
                [ -n "$p" ] && echo "$p" && return 0
                sleep 0.1
        done
        cat "$out" >&2
        return 1
}
port133=$(pf_start "$KUBECTL_DIR/kubectl.1.33")
port129=$(pf_start "$KUBECTL_DIR/kubectl.1.29")

# fetch URL: MiB/s of one download, after checking the bytes
fetch() {
        local out speed sum
        out=$(curl -s --max-time 300 -o "$SERVER_DIR/got" -w '%{speed_download}' "$1")
        sum=$(sha256sum "$SERVER_DIR/got" | cut -d' ' -f1)
        [ "$sum" = "$want" ] || { echo "checksum differs for $1" >&2; exit 1; }
        speed=$out
        awk -v s="$speed" 'BEGIN { printf "%.1f", s / 1048576 }'
}
# warm-up (httpd and the page cache)
fetch "http://$ip:8080/big" >/dev/null
fetch "http://127.0.0.1:$port133/big" >/dev/null
fetch "http://127.0.0.1:$port129/big" >/dev/null

direct=() ws=() spdy=()
for _ in $(seq 1 "$ROUNDS"); do
        direct+=("$(fetch "http://$ip:8080/big")")
        ws+=("$(fetch "http://127.0.0.1:$port133/big")")
        spdy+=("$(fetch "http://127.0.0.1:$port129/big")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
md=$(median "${direct[@]}") mw=$(median "${ws[@]}") msp=$(median "${spdy[@]}")

report=$(
        cat <<EOF
# port-forward throughput, $(date -u +%Y-%m-%d)

$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with
other work; flexlet $(git rev-parse --short HEAD). A ${SIZE_MIB} MiB file from a busybox httpd
pod, fetched by curl $ROUNDS times each way, interleaved (MiB/s, each download checked against
the pod's sha256):

| path | runs (MiB/s) | median MiB/s | vs direct |
|---|---|---|---|
| direct to the pod's IP (pod bridge) | ${direct[*]} | $md | 1.00 |
| kubectl 1.33 port-forward (SPDY/3.1 in a WebSocket) | ${ws[*]} | $mw | $(awk -v a="$mw" -v b="$md" 'BEGIN { printf "%.2f", a / b }') |
| kubectl 1.29 port-forward (plain SPDY/3.1) | ${spdy[*]} | $msp | $(awk -v a="$msp" -v b="$md" 'BEGIN { printf "%.2f", a / b }') |

A forwarded byte crosses kubectl, two TLS hops (kubectl to the API server, the API server to
the kubelet endpoint) and the kubelet's SPDY session; kubectl 1.33 also writes each field of
its SPDY frames as a WebSocket message of its own.
EOF
)
mkdir -p bench/results
echo "$report" | tee "bench/results/portforward-$(date -u +%Y-%m-%d).md"
