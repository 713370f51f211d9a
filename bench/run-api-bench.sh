#!/usr/bin/env bash
# run-api-bench.sh: builds flexlet and bench/api-bench with the top Makefile, starts
# `flexlet serve` on a free loopback port with a throwaway data dir (stopped and removed after,
# by tests/lib/server.sh), and runs the API benchmark against it: 1, 8, 64 and 512 keep-alive
# clients, then 100 new TLS clients at once, with the server's threads and RSS. With BEFORE_REF
# (default main; empty for none) the same benchmark first runs against a flexlet built from that
# commit, so before and after come from one run on one machine. The report goes to stdout and
# to bench/results/api-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-bench), BEFORE_REF (main), BEFORE_BIN (a flexlet
# already built from exactly BEFORE_REF, to skip building it), PODS (512),
# REQUESTS per phase (5000), PHASE_SECONDS (8), CLIENTS (1,8,64,512), HANDSHAKES (100),
# FSYNCS (2000), RATES (the open loop's offered GET rates with the most clients, each requests/s
# or a percentage of the closed loop's rate in the same run: 25%,50%,75%; empty for none), OUT
# (the report, default bench/results/api-<UTC date>.md), BENCH_TMPDIR (parent of the data dir: it picks the disk that is measured;
# default $TMPDIR or /tmp), RBAC_USER (1: the pods go to a namespace where a service account is
# bound to edit (and pods/resize), and after the admin's phases the GET and PATCH phases run again
# in RBAC_ROUNDS rounds (5) alternating between the admin (system:masters) and that account's
# bound token, so that its authentication and RBAC's decisions show as a ratio of medians taken
# on the same pods of the same server; 0: not).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-bench}
BEFORE_REF=${BEFORE_REF-main}

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" >/dev/null
# 512 clients and the server's connections, one descriptor each
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh
mkdir -p bench/results
out=${OUT:-bench/results/api-$(date -u +%F).md}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flexlet-bench-run.XXXXXX")
cleanup_all() {
        server_cleanup || true
        rm -rf "$tmp"
}
SERVER_CLEANUP=cleanup_all

# rbac_user: a namespace bench-rbac, a service account bench there bound to the edit ClusterRole
# and to a Role with what the benchmark does beyond edit (pods/resize), and a bound token of it
# (TokenRequest, an hour) in $SERVER_DIR/rbac.token: what a workload's own token costs against
# the admin's (system:masters), authentication (the ES256 signature, the account still there)
# and RBAC's decision together. server.sh's api() is the admin.
rbac_user() {
        local b='{"apiVersion":"rbac.authorization.k8s.io/v1"'
        api POST /api/v1/namespaces -H 'Content-Type: application/json' \
                -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench-rbac"}}' >/dev/null
        api POST /api/v1/namespaces/bench-rbac/serviceaccounts -H 'Content-Type: application/json' \
                -d '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bench"}}' >/dev/null
        api POST /apis/rbac.authorization.k8s.io/v1/namespaces/bench-rbac/roles -H 'Content-Type: application/json' \
                -d "$b"',"kind":"Role","metadata":{"name":"bench"},"rules":[{"apiGroups":[""],"resources":["pods/resize"],"verbs":["get","patch"]}]}' >/dev/null
        api POST /apis/rbac.authorization.k8s.io/v1/namespaces/bench-rbac/rolebindings -H 'Content-Type: application/json' \
                -d "$b"',"kind":"RoleBinding","metadata":{"name":"bench"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"bench"},"subjects":[{"kind":"ServiceAccount","name":"bench"}]}' >/dev/null
        api POST /apis/rbac.authorization.k8s.io/v1/namespaces/bench-rbac/rolebindings -H 'Content-Type: application/json' \
                -d "$b"',"kind":"RoleBinding","metadata":{"name":"bench-edit"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},"subjects":[{"kind":"ServiceAccount","name":"bench"}]}' >/dev/null
        api POST /api/v1/namespaces/bench-rbac/serviceaccounts/bench/token -H 'Content-Type: application/json' \
                -d '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
                jq -r .status.token >"$SERVER_DIR/rbac.token"
        # the authorizer follows the store a moment after the writes
        for _ in $(seq 1 100); do
                [ "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$SERVER_DIR/rbac.token")" \
                        "https://127.0.0.1:$SERVER_PORT/api/v1/namespaces/bench-rbac/pods")" = 200 ] && return 0
                sleep 0.1
        done
        echo "run-api-bench: the RBAC user's binding did not take effect" >&2
        return 1
}

# run_bench BINARY COMMIT-DESCRIPTION REPORT
run_bench() {
        export FLEXLET_BIN=$1 # read by server.sh
        SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-bench.XXXXXX")
        SERVER_PORT=
        # shellcheck disable=SC2119 # no extra flags for the server
        server_start
        local compare=() ns=default rates=()
        [ -z "${RATES-25%,50%,75%}" ] || rates=(--rate "${RATES-25%,50%,75%}")
        if [ "${RBAC_USER:-1}" = 1 ]; then
                rbac_user
                ns=bench-rbac
                compare=(--compare-token-file "$SERVER_DIR/rbac.token" --compare-rounds "${RBAC_ROUNDS:-5}")
        fi
        "$ROOT/$BUILD/bench/api-bench" \
                --server "https://127.0.0.1:$SERVER_PORT" \
                --ca "$SERVER_DIR/data/pki/ca.crt" \
                --token-file "$SERVER_DIR/data/pki/admin.token" \
                --namespace "$ns" \
                --data-dir "$SERVER_DIR/data" \
                --server-pid "$SERVER_PID" \
                --pods "${PODS:-512}" \
                --requests "${REQUESTS:-5000}" \
                --seconds "${PHASE_SECONDS:-8}" \
                --clients "${CLIENTS:-1,8,64,512}" \
                --handshakes "${HANDSHAKES:-100}" \
                --fsyncs "${FSYNCS:-2000}" \
                --commit "$2" \
                "${compare[@]}" "${rates[@]}" \
                --out "$3" || echo "api-bench: its write check failed (see the report)" >&2
        server_cleanup
        SERVER_DIR=
}

commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"
if [ -n "$BEFORE_REF" ]; then
        before_commit=$(git rev-parse --short "$BEFORE_REF")
        echo "building $BEFORE_REF ($before_commit) for the before run" >&2
        before_bin=${BEFORE_BIN:-}
        if [ -z "$before_bin" ]; then
                mkdir -p "$tmp/src"
                git archive "$BEFORE_REF" | tar -x -C "$tmp/src"
                make -C "$tmp/src" -j"$(nproc)" build/flexlet >/dev/null
                before_bin="$tmp/src/build/flexlet"
        fi
        run_bench "$before_bin" "$before_commit ($BEFORE_REF)" "$tmp/before.md"
fi
run_bench "$ROOT/$BUILD/flexlet" "$commit" "$tmp/after.md"

{
        if [ -n "$BEFORE_REF" ]; then
                echo "# flexlet API benchmark: before ($BEFORE_REF, $before_commit) and after ($commit), one run"
                echo
                echo "## Before: $BEFORE_REF ($before_commit)"
                echo
                sed 's/^# /### /' "$tmp/before.md"
                echo
                echo "## After: $commit"
                echo
                sed 's/^# /### /' "$tmp/after.md"
        else
                cat "$tmp/after.md"
        fi
} >"$out"
echo "report written to $out"
