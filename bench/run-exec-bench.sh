#!/usr/bin/env bash
# run-exec-bench.sh: exec round-trip latency beside running the same command directly in the
# pod's namespaces, in one run, as root (issue 15's Performance). A busybox pod sleeps; each
# round, interleaved (bench/exec-bench.c): `true` exec'd over the WebSocket API by a small
# driver (a new TLS connection, the v5.channel.k8s.io upgrade of pods/exec, frames until the
# Success status: the wire path without kubectl's own start), `kubectl exec web -- true`
# (kubectl 1.33), and `nsenter -t PID -a true` into the container's process's namespaces on the
# same machine (the floor: a fork, setns and exec, no API). Path of an exec: driver or kubectl
# -> TLS -> API server (authn, authz, the pod) -> TLS -> kubelet endpoint -> `flexlet supervise
# --exec` joins the container's cgroups, namespaces and confinement -> true. Everything is
# removed on exit (tests/lib/node.sh's cleanup). The report goes to stdout and
# bench/results/exec-<UTC date>.md. Fails loudly when anything cannot be measured.
#
# Environment: ROUNDS (100; kubectl rounds are the same), BUILD (build),
# FLEXLET_TEST_PORT_BASE (the loopback port range).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-100}
BUILD=${BUILD:-build}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-exec-bench.sh: needs root (the node agent runs the pod; nsenter)" >&2
        exit 1
fi
command -v nsenter >/dev/null || { echo "run-exec-bench.sh: nsenter (util-linux) is missing" >&2; exit 1; }
commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"
make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/exec-bench" >/dev/null
EB="$ROOT/$BUILD/bench/exec-bench"
export FLEXLET_BIN="$ROOT/$BUILD/flexlet"

set +eu
. tests/lib/tap.sh
. tests/lib/server.sh
. tests/lib/node.sh
set -eu
# the script's status is the run's, not the cleanup's
bench_cleanup() {
        local rc=$?
        node_cleanup >/dev/null 2>&1
        return $rc
}
SERVER_CLEANUP=bench_cleanup
node_start >/dev/null
k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sleep","3600"]}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Running pod/web --timeout=120s >/dev/null
uid=$(k get pod web -o jsonpath='{.metadata.uid}')
started=$(ls "$SERVER_DIR"/data/pods/"$uid"/containers/c1/*/started.json | tail -1)
pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$started")
[ -n "$pid" ] && [ -d "/proc/$pid" ] || { echo "run-exec-bench.sh: no container process in $started" >&2; exit 1; }
# the floor must be the same command in the same place: check it runs in the pod's pid namespace
[ "$(readlink "/proc/$pid/ns/pid")" != "$(readlink /proc/self/ns/pid)" ] ||
        { echo "run-exec-bench.sh: pid $pid is not in the pod's namespaces" >&2; exit 1; }

kb="$KUBECTL_DIR/kubectl.1.33"
[ -x "$kb" ] || kb=$KUBECTL
out=$("$EB" --server "127.0.0.1:$SERVER_PORT" --ca "$SERVER_DIR/data/pki/ca.crt" \
        --token-file "$SERVER_DIR/data/pki/admin.token" --pod default/web --rounds "$ROUNDS" \
        --cmd "kubectl=$kb --kubeconfig $KUBECONFIG --cache-dir $SERVER_DIR/cache exec web -- true" \
        --cmd "nsenter=nsenter -t $pid -a true")
get() { echo "$out" | awk -v k="$1" '$1 == k { print $2 }'; }
for key in websocket upgrade kubectl nsenter; do
        for s in p50 p99; do
                [ -n "$(get "$key.$s")" ] || { echo "run-exec-bench.sh: no $key.$s measured" >&2; echo "$out" >&2; exit 1; }
        done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
row() {
        printf '| %s | %s | %s | %sx | %sx |\n' "$1" "$(get "$2.p50")" "$(get "$2.p99")" \
                "$(ratio "$(get "$2.p50")" "$(get nsenter.p50)")" "$(ratio "$(get "$2.p99")" "$(get nsenter.p99)")"
}
report=$(
        cat <<EOF
# exec round-trip latency, $(date -u +%Y-%m-%d)

$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with
other work; flexlet $commit, \`flexlet serve\` on loopback. \`true\` run $ROUNDS times each way in
a busybox pod, the ways interleaved round by round (bench/exec-bench.c), milliseconds from
start to the end of the exec:

| way | p50 ms | p99 ms | p50 vs nsenter | p99 vs nsenter |
|---|---|---|---|---|
$(row "exec over the WebSocket API (new TLS connection, v5.channel.k8s.io, until the Success status)" websocket)
$(row "... of it, until the 101 (the API server and the kubelet endpoint reached)" upgrade)
$(row "\`kubectl exec web -- true\` (kubectl $("$kb" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1))" kubectl)
$(row "\`nsenter -t PID -a true\` into the container's namespaces (the floor)" nsenter)

An exec crosses two TLS connections (the client's to the API server, the API server's to the
kubelet endpoint), the API server's authentication and authorization, and a helper process
that joins the container's cgroups and namespaces and applies its confinement (user,
capabilities, seccomp) before it forks \`true\`; kubectl adds its own start (config, discovery
cache, client-go) to every call.
EOF
)
mkdir -p bench/results
echo "$report" | tee "bench/results/exec-$(date -u +%Y-%m-%d).md"
