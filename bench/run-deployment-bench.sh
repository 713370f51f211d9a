#!/usr/bin/env bash
# run-deployment-bench.sh: benchmarks the workload controllers against the node in one run, as
# root (issue 12's Performance): a Deployment scaled 0 → REPLICAS → 0 (time from the scale
# request to all its pods Ready, and to all of them gone) against REPLICAS bare pods of the same
# shape created all at once through the API and deleted again (the node's own create→Ready and
# delete→gone), on the same `flexlet serve`. Each of ROUNDS rounds runs both, bare pods first.
# bench/deployment-bench.c does the measuring; a phase that cannot measure stops the run (no
# report). Everything it made (processes, mounts, cgroups, folders) is removed on exit, failure
# and Ctrl-C included. The report goes to stdout and bench/results/deployment-<UTC date>.md.
#
# Environment: BUILD (build folder, default build), REPLICAS (100), ROUNDS (1), TIMEOUT (600 s
# a phase), BENCH_TMPDIR (parent of the data dir; default $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
REPLICAS=${REPLICAS:-100}
ROUNDS=${ROUNDS:-1}
TIMEOUT=${TIMEOUT:-600}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-deployment-bench.sh: needs root (the node's cgroups, mounts, namespaces)" >&2
        exit 1
fi

log() { echo "# $*" >&2; }

commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/deployment-bench" >/dev/null
DB="$ROOT/$BUILD/bench/deployment-bench"

export FLEXLET_BIN="$ROOT/$BUILD/flexlet" # read by server.sh
# shellcheck disable=SC2034 # read by server_start
FLEXLET_COMMAND=serve
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh

SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-deploybench.XXXXXX")
CGROUP_ROOT="flexlet-deploybench-$$"
POD_BRIDGE="flxdb-$$"
POD_CIDR=${POD_CIDR:-10.125.0.0/16}


# server.sh's trap calls server_cleanup: this one leaves the host as it was.
server_cleanup() {
        local d i left
        set +e
        trap - EXIT INT TERM
        server_stop
        for i in 1 2 3 4 5 6 7 8 9 10; do
                left=0
                for d in /sys/fs/cgroup/*/"$CGROUP_ROOT" /sys/fs/cgroup/"$CGROUP_ROOT"; do
                        [ -d "$d" ] || continue
                        # shellcheck disable=SC2038 # the files hold pids, one a line
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                processes_mentioning "$SERVER_DIR" | xargs -r kill -9 2>/dev/null
                sleep 0.5
                for d in /sys/fs/cgroup/*/"$CGROUP_ROOT" /sys/fs/cgroup/"$CGROUP_ROOT"; do
                        [ -d "$d" ] || continue
                        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                        [ -d "$d" ] && left=1
                done
                [ "$left" = 0 ] && [ -z "$(processes_mentioning "$SERVER_DIR")" ] && break
        done
        grep -F "$SERVER_DIR" /proc/self/mountinfo | awk '{print $5}' | sort -r |
                xargs -r -n1 umount -l 2>/dev/null
        rm -rf --one-file-system "$SERVER_DIR"
        ip link del "$POD_BRIDGE" 2>/dev/null
}
trap server_cleanup EXIT
trap 'exit 130' INT TERM

declare -A R
# run_db ARGS...: runs deployment-bench and keeps its "key value" lines in R (a failure stops
# the run: set -e).
run_db() {
        local out k v
        out=$("$DB" "$@" --server "https://127.0.0.1:$SERVER_PORT" --ca "$SERVER_DIR/data/pki/ca.crt" \
                --token-file "$SERVER_DIR/data/pki/admin.token" --timeout "$TIMEOUT")
        while read -r k v; do
                [ -n "$k" ] && R[$k]=$v
        done <<<"$out"
}
LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }

log "starting flexlet serve (--allocatable cpu=64,memory=64Gi,pods=$((REPLICAS + 50)))"
server_start --allocatable "cpu=64,memory=64Gi,pods=$((REPLICAS + 50))" --cgroup-root "$CGROUP_ROOT" \
        --pod-cidr "$POD_CIDR" --pod-bridge "$POD_BRIDGE"
trap server_cleanup EXIT
k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null
# the first pod assembles the built-in busybox image: not part of what is measured
run_db pods --prefix warm --replicas 1
sleep 2

for round in $(seq 1 "$ROUNDS"); do
        log "round $round: $REPLICAS bare pods, created at once, then deleted"
        load "pods$round"
        run_db pods --prefix "bare$round" --replicas "$REPLICAS"
        for x in up_ms down_ms ready_ms.p50 ready_ms.p99; do R[r$round.pods.$x]=${R[pods.$x]}; done
        sleep 2
        log "round $round: a Deployment scaled 0 → $REPLICAS → 0"
        load "deployment$round"
        run_db deployment --prefix "web$round" --replicas "$REPLICAS"
        for x in up_ms down_ms ready_ms.p50 ready_ms.p99; do R[r$round.deployment.$x]=${R[deployment.$x]}; done
        sleep 2
done
server_stop

# --- report
v() { echo "${R[$1]}"; }
ms_s() { awk -v x="$(v "$1")" 'BEGIN { printf "%.2f", x / 1000 }'; }
ratio() { awk -v a="$(v "$1")" -v b="$(v "$2")" 'BEGIN { printf "%.2f", a / b }'; }
# sum over rounds of KEY, for the ratio of totals
for kind in pods deployment; do
        for x in up_ms down_ms; do
                R[all.$kind.$x]=$(for round in $(seq 1 "$ROUNDS"); do v "r$round.$kind.$x"; done | awk '{ s += $1 } END { printf "%.3f", s }')
        done
done
mem_gib=$(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
mkdir -p bench/results
out="bench/results/deployment-$(date -u +%F).md"
{
        echo "# flexlet Deployment benchmark, $(date -u '+%F %H:%M') UTC"
        echo
        echo "Commit $commit (as built). Machine: $(nproc) CPUs, ${mem_gib} GiB, Linux $(uname -r),"
        echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (other work shares this machine)."
        echo "One \`flexlet serve\` (API server, controllers, scheduler and the node in one process) for"
        echo "the whole run. Pods: busybox \`sleep 3600\`, requests cpu 10m, memory 16Mi, no probes."
        echo
        echo "Each round: $REPLICAS bare pods POSTed at once, timed to all $REPLICAS Ready (watch events), then"
        echo "all DELETEd (default grace period), timed to the last DELETED event; then a Deployment of"
        echo "0 replicas (its ReplicaSet already made) scaled to $REPLICAS with one PATCH of its scale"
        echo "subresource, timed to all $REPLICAS pods Ready, then scaled to 0, timed to its last pod's"
        echo "DELETED event. Seconds; per-pod Ready times are from the first request."
        echo
        echo "| round | bare pods: all Ready | Deployment: all Ready | ratio | bare pods: all gone | Deployment: all gone | ratio | pod Ready p50 / p99, bare | Deployment |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for round in $(seq 1 "$ROUNDS"); do
                echo "| $round | $(ms_s r$round.pods.up_ms) | $(ms_s r$round.deployment.up_ms) | $(ratio r$round.deployment.up_ms r$round.pods.up_ms) | $(ms_s r$round.pods.down_ms) | $(ms_s r$round.deployment.down_ms) | $(ratio r$round.deployment.down_ms r$round.pods.down_ms) | $(ms_s r$round.pods.ready_ms.p50) / $(ms_s r$round.pods.ready_ms.p99) | $(ms_s r$round.deployment.ready_ms.p50) / $(ms_s r$round.deployment.ready_ms.p99) |"
        done
        echo
        echo "Ratios over all rounds (sum of the Deployment's times over the bare pods'): scale up"
        echo "**$(ratio all.deployment.up_ms all.pods.up_ms)**, scale down **$(ratio all.deployment.down_ms all.pods.down_ms)**."
        echo "1-min load average as each phase started:${LOADS%,}."
} >"$out"
cat "$out"
echo "report written to $out" >&2
