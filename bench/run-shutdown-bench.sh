#!/usr/bin/env bash
# run-shutdown-bench.sh: how long `flexlet serve` takes to exit on SIGTERM sent while its node
# agent starts PODS pods created together (issue 16: serve with 100 pods took over 4 minutes),
# and how long those pods take to be all Running, for each flexlet binary given, one after the
# other in the same run. Pods: busybox `sleep 3600`, hostNetwork (no CNI), requests only.
# Usage: bench/run-shutdown-bench.sh BINARY... (as root). Everything is cleaned up on exit by
# tests/lib/node.sh. Prints one line per binary: create→all Running ms, SIGTERM→exit ms.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PODS=${PODS:-100}
[ "$(id -u)" -eq 0 ] || {
        echo "run-shutdown-bench.sh: needs root" >&2
        exit 1
}
ms() { date +%s%3N; }

one() {
        local bin=$1
        (
                # shellcheck disable=SC2034 # read by server.sh
                FLEXLET_BIN=$bin
                . "$ROOT/tests/lib/tap.sh"
                . "$ROOT/tests/lib/server.sh"
                . "$ROOT/tests/lib/node.sh"
                node_start --allocatable "cpu=64,memory=64Gi,pods=$((2 * PODS + 10))" >/dev/null || exit 1
                k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null
                mk() {
                        echo '{"apiVersion":"v1","kind":"List","items":['
                        for i in $(seq 1 "$PODS"); do
                                [ "$i" -gt 1 ] && echo ,
                                echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1-$i\",\"labels\":{\"set\":\"$1\"}},\"spec\":{\"terminationGracePeriodSeconds\":1,\"hostNetwork\":true,\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sleep\",\"3600\"],\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"16Mi\"}}}]}}"
                        done
                        echo ']}'
                }
                mk run >"$SERVER_DIR/run.json"
                mk stop >"$SERVER_DIR/stop.json"
                t0=$(ms)
                k create -f "$SERVER_DIR/run.json" >/dev/null
                while [ "$(k get pods -l set=run -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c '^Running$')" -lt "$PODS" ]; do
                        sleep 0.2
                done
                t1=$(ms)
                k create -f "$SERVER_DIR/stop.json" >/dev/null
                before=$(find "$SERVER_DIR/data/pods" -mindepth 1 -maxdepth 1 -type d | wc -l)
                while [ "$(find "$SERVER_DIR/data/pods" -mindepth 1 -maxdepth 1 -type d | wc -l)" -le "$before" ]; do
                        sleep 0.05
                done
                t2=$(ms)
                kill -TERM "$SERVER_PID"
                while kill -0 "$SERVER_PID" 2>/dev/null; do sleep 0.05; done
                t3=$(ms)
                echo "$bin: $PODS pods create→all Running $((t1 - t0)) ms; SIGTERM→exit $((t3 - t2)) ms (starting $PODS more, $PODS running); load $(cut -d' ' -f1 /proc/loadavg)"
        )
}

for b in "$@"; do
        one "$b"
done
