#!/usr/bin/env bash
# run-shutdown-bench.sh: how long `flexlet serve` takes to exit on SIGTERM sent while its node
# agent starts PODS pods created together (issue 16: serve with 100 pods took over 4 minutes),
# and how long those pods take to be all Running, for each flexlet binary given, one after the
# other in the same run. Pods: busybox `sleep 3600`, hostNetwork (no CNI), requests only.
# Usage: bench/run-shutdown-bench.sh BINARY... (as root). Everything is cleaned up on exit by
# tests/lib/node.sh. Prints one line per binary: create→all Running ms, SIGTERM→exit ms; then
# the runtime's own parallel start of as many pods (below). A BINARY may be a wrapper script
# that adds flags to `serve` (e.g. --pod-workers 1).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PODS=${PODS:-100}
[ "$(id -u)" -eq 0 ] || {
        echo "run-shutdown-bench.sh: needs root" >&2
        exit 1
}
ms() { date +%s%3N; }

# all_running SET: returns once every pod labelled set=SET has been seen Running, read from one
# watch (synthetic ADDEDs first, so nothing before it is missed) by jq, which reads line by line
# (mawk would wait for a full buffer). A kubectl started every 0.2 s instead took a sixth of the
# machine's CPU from what is measured. The watch's curl ends at its next write or its timeout.
all_running() {
        jq -n --argjson n "$PODS" '
                (foreach inputs as $e ({};
                        if $e.object.status.phase == "Running" then .[$e.object.metadata.name] = 1 else . end;
                        if length >= $n then halt else empty end)),
                ("not every pod was Running before the watch ended\n" | halt_error(1))' < <(
                api GET "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=600&labelSelector=set%3D$1" -N)
}

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
                all_running run || exit 1
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

NB=${NODE_BENCH:-$ROOT/build/bench/node-bench}
if ! [ -x "$NB" ]; then
        echo "run-shutdown-bench: $NB is not built (make -C bench): the runtime's parallel start, the ratio's floor, cannot be measured" >&2
        exit 1
fi

for b in "$@"; do
        one "$b"
done

# The runtime's own start of as many pods in parallel (issue 16: "all Running within 2x the
# runtime's own parallel start of 100 sandboxes and containers"): bench/node-bench.c
# runtime-parallel, THREADS threads (default 8; the agent's --pod-workers default is twice the
# CPUs), each pod prepared (folder, cgroups, a Memory emptyDir) and its sandbox and busybox
# container started as the agent does.
floor_dir=$(mktemp -d /tmp/flexlet-startfloor.XXXXXX)
trap 'rm -rf "$floor_dir"' EXIT
total=$("$NB" runtime-parallel --data "$floor_dir" --cgroup-root "flexlet-startfloor-$$" \
        --pods "$PODS" --runs "${THREADS:-8}" | sed -n 's/^runtime.parallel.total_ms //p')
if [ -z "$total" ]; then
        echo "run-shutdown-bench: node-bench runtime-parallel printed no total" >&2
        exit 1
fi
echo "runtime: $PODS pods started in parallel (${THREADS:-8} threads) $total ms; load $(cut -d' ' -f1 /proc/loadavg)"
