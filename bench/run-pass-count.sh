#!/usr/bin/env bash
# run-pass-count.sh: how many passes each in-process controller runs during a bounded series of
# pod status and resource changes (issue 16: controllers wake only for changes they decide
# from), for BASE (a commit, default main) and this tree, built and measured one after the other
# in one run. `flexlet apiserver` (no node agent: the script plays the kubelet) with a Node and a
# ReplicaSet's PODS pods bound to it, Running and Ready; then RESIZES in-place resizes, one pod
# after another at RATE writes a second, each the three writes a kubelet's resize makes: the resize subresource's new
# cpu limit, the status with PodResizeInProgress and the allocated resources, the status with the
# resources the container runs with and the condition gone. The passes are counted with uprobes
# on each controller's pass function over the series (periodic passes included: the series lasts
# a few seconds, the same for both). As root (uprobes). Everything it made (servers, worktree,
# probes, folders) is removed on exit, failure and Ctrl-C included. The report goes to stdout
# and bench/results/passes-<UTC date>.md.
#
# Environment: BASE (default: where this branch left main), PODS (20), RESIZES (100), RATE (100;
# 0: as fast as the server answers), FLEXLET_TEST_PORT_BASE (the servers' ports, see
# tests/lib/server.sh), BENCH_TMPDIR (parent of the data dirs and the base's
# worktree; default $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BASE=${BASE:-$(git merge-base HEAD main)}
PODS=${PODS:-20}
RESIZES=${RESIZES:-100}
RATE=${RATE:-100}
RATE_ARGS=()
PACE="unpaced"
if [ "$RATE" != 0 ]; then
        RATE_ARGS=(--rate "$RATE/s")
        PACE="$RATE a second"
fi
PASSES=(gc_pass node_lifecycle_pass protection_pass provision_pass expand_pass job_pass ttl_pass
        disruption_pass replicaset_pass deployment_pass statefulset_pass daemonset_pass
        resourcequota_pass schedule_pass namespace_pass serviceaccount_pass)

if [ "$(id -u)" -ne 0 ]; then
        echo "run-pass-count.sh: needs root (uprobes)" >&2
        exit 1
fi

log() { echo "# $*" >&2; }
die() {
        echo "run-pass-count.sh: $*" >&2
        exit 1
}

WORK=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-passes.XXXXXX")
PROBE_GROUP=flexpass$$
PERF_PID=

# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh

cleanup() {
        [ -n "$PERF_PID" ] && kill "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
        perf probe -q -d "$PROBE_GROUP:*" >/dev/null 2>&1 || true
        server_cleanup
        git worktree remove --force "$WORK/base" >/dev/null 2>&1 || true
        rm -rf "$WORK"
}
# shellcheck disable=SC2034 # read by server_start
SERVER_CLEANUP=cleanup
trap cleanup EXIT

# --- build: this tree's build/flexlet and BASE's, in a worktree of its own
base_commit=$(git rev-parse --short "$BASE")
this_commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- src | wc -l)
[ "$dirty" = 0 ] || this_commit="$this_commit, with $dirty uncommitted files in src/"
log "building $this_commit and $BASE ($base_commit)"
make -j"$(nproc)" build/flexlet >/dev/null
git worktree add -q --detach "$WORK/base" "$base_commit"
make -C "$WORK/base" -j"$(nproc)" build/flexlet >/dev/null

# kubelet-like writes: one curl process sends them all, one after another on one connection
curl_block() { # METHOD PATH CONTENT-TYPE BODY
        printf 'url = "https://127.0.0.1:%s%s"\nrequest = "%s"\n' "$SERVER_PORT" "$2" "$1"
        printf 'insecure\nsilent\nwrite-out = "%%{http_code}\\n"\noutput = "/dev/null"\n'
        printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: %s"\n' "$TOKEN" "$3"
        printf 'data = "%s"\n' "${4//\"/\\\"}"
}

# status NAME LIMIT ALLOCATED IN_PROGRESS: the pod's status as its kubelet writes it, running
# with cpu limit LIMIT, ALLOCATED cpu limit allocated, PodResizeInProgress when IN_PROGRESS=1
status_body() {
        local conds='{"type":"Ready","status":"True","lastTransitionTime":"2026-11-27T10:00:00Z"}'
        [ "$4" = 1 ] && conds="$conds,{\"type\":\"PodResizeInProgress\",\"status\":\"True\"}"
        printf '{"status":{"phase":"Running","conditions":[%s],"containerStatuses":[{"name":"c","ready":true,"started":true,"restartCount":0,"image":"busybox","imageID":"","state":{"running":{"startedAt":"2026-11-27T10:00:00Z"}},"allocatedResources":{"cpu":"100m","memory":"64Mi"},"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"%s","memory":"64Mi"}}}]}}' \
                "$conds" "$2"
}

# measure NAME BINARY: one server, the setup, the series under the probes; prints
# "NAME pass count" lines and "NAME seconds S"
measure() {
        local name=$1 bin=$2 pods p i n limit old t0 t1 codes probes=() events=()
        # shellcheck disable=SC2034 # read by server_start
        FLEXLET_BIN=$bin
        SERVER_DIR=$WORK/$name
        SERVER_PORT=
        mkdir -p "$SERVER_DIR"
        server_start >/dev/null || die "$name: server did not start"
        TOKEN=$(cat "$SERVER_DIR/data/pki/admin.token")
        api POST /api/v1/nodes -H 'Content-Type: application/json' -o /dev/null -d \
                '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":{"cpu":"64","memory":"64Gi","pods":"500"},"allocatable":{"cpu":"64","memory":"64Gi","pods":"500"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'","lastTransitionTime":"2026-11-27T10:00:00Z"}]}}'
        api PATCH /api/v1/nodes/n1/status -H 'Content-Type: application/merge-patch+json' -o /dev/null -d \
                '{"status":{"capacity":{"cpu":"64","memory":"64Gi","pods":"500"},"allocatable":{"cpu":"64","memory":"64Gi","pods":"500"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'","lastTransitionTime":"2026-11-27T10:00:00Z"}]}}'
        api POST /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases \
                -H 'Content-Type: application/json' -o /dev/null -d \
                '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n1"},"spec":{"holderIdentity":"n1","leaseDurationSeconds":40,"renewTime":"'"$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)"'"}}'
        api POST /apis/apps/v1/namespaces/default/replicasets -H 'Content-Type: application/json' \
                -o /dev/null -d '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},"spec":{"replicas":'"$PODS"',"selector":{"matchLabels":{"app":"rs"}},"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}}]}}}}'
        for _ in $(seq 1 300); do
                n=$(k get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' 2>/dev/null | grep -c n1 || true)
                [ "$n" = "$PODS" ] && break
                sleep 0.1
        done
        [ "$n" = "$PODS" ] || die "$name: $n of $PODS pods bound"
        mapfile -t pods < <(k get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
        for p in "${pods[@]}"; do
                curl_block PATCH "/api/v1/namespaces/default/pods/$p/status" \
                        application/merge-patch+json "$(status_body "$p" 200m 200m 0)"
                echo next
        done | sed '$d' >"$SERVER_DIR/setup.curl"
        codes=$(curl -s -K "$SERVER_DIR/setup.curl" | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
        [ "$codes" = "200x$PODS " ] || die "$name: pods' Running status: $codes"
        # the series: resize i goes to pod i % PODS, its limit up to 300m, then down again
        for i in $(seq 0 $((RESIZES - 1))); do
                p=${pods[$((i % PODS))]}
                if [ $(((i / PODS) % 2)) = 0 ]; then limit=300m old=200m; else limit=200m old=300m; fi
                curl_block PATCH "/api/v1/namespaces/default/pods/$p/resize" \
                        application/strategic-merge-patch+json \
                        '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"'"$limit"'","memory":"64Mi"}}}]}}'
                echo next
                curl_block PATCH "/api/v1/namespaces/default/pods/$p/status" \
                        application/merge-patch+json "$(status_body "$p" "$old" "$limit" 1)"
                echo next
                curl_block PATCH "/api/v1/namespaces/default/pods/$p/status" \
                        application/merge-patch+json "$(status_body "$p" "$limit" "$limit" 0)"
                echo next
        done | sed '$d' >"$SERVER_DIR/series.curl"
        sleep 2 # the setup's passes are over
        for p in "${PASSES[@]}"; do
                perf probe -q -x "$bin" -a "$PROBE_GROUP:${p}_$name=$p" >/dev/null 2>&1 &&
                        probes+=("$PROBE_GROUP:${p}_$name") && events+=(-e "$PROBE_GROUP:${p}_$name")
        done
        [ "${#probes[@]}" -gt 0 ] || die "$name: no uprobe could be placed"
        perf stat -x, -o "$SERVER_DIR/perf.csv" -p "$SERVER_PID" "${events[@]}" &
        PERF_PID=$!
        sleep 1 # perf attached
        t0=$(date +%s.%N)
        codes=$(curl -s "${RATE_ARGS[@]}" -K "$SERVER_DIR/series.curl" | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
        sleep 0.2 # the passes the last writes called
        t1=$(date +%s.%N)
        kill -INT "$PERF_PID"
        wait "$PERF_PID" || true
        PERF_PID=
        [ "$codes" = "200x$((RESIZES * 3)) " ] || die "$name: the series' answers: $codes"
        perf probe -q -d "$PROBE_GROUP:*" >/dev/null 2>&1 || true
        awk -F, -v name="$name" '$3 ~ /:/ { split($3, e, ":"); sub("_" name "$", "", e[2]); print name, e[2], $1 }' \
                "$SERVER_DIR/perf.csv"
        echo "$name seconds $(echo "$t1 - $t0" | bc)"
        server_stop
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
{
        measure base "$WORK/base/build/flexlet"
        measure this "$ROOT/build/flexlet"
} >"$WORK/counts"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

report=$(
        echo "# Controller passes during a series of in-place resizes, $(date -u +%Y-%m-%d)"
        echo
        echo "\`bench/run-pass-count.sh\`: \`flexlet apiserver\` with one Node and a ReplicaSet's $PODS pods"
        echo "bound to it; $RESIZES resizes, each three kubelet-like writes ($((RESIZES * 3)) writes, one"
        echo "after another, $PACE); passes counted with uprobes on each pass function over"
        echo "the series (periodic ones included)."
        echo "base: $base_commit; this: $this_commit. Load average before / after: $load / $load_after"
        echo "(a shared 2-CPU machine)."
        echo
        echo "| pass | base | this |"
        echo "|---|---:|---:|"
        for p in "${PASSES[@]}"; do
                b=$(awk -v p="$p" '$1 == "base" && $2 == p {print $3}' "$WORK/counts")
                t=$(awk -v p="$p" '$1 == "this" && $2 == p {print $3}' "$WORK/counts")
                [ -n "$b$t" ] && echo "| $p | ${b:--} | ${t:--} |"
        done
        echo "| series seconds | $(awk '$1 == "base" && $2 == "seconds" {print $3}' "$WORK/counts") | $(awk '$1 == "this" && $2 == "seconds" {print $3}' "$WORK/counts") |"
)
echo "$report"
mkdir -p bench/results
echo "$report" >"bench/results/passes-$(date -u +%Y-%m-%d).md"
