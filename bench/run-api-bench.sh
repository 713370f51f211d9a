#!/usr/bin/env bash
# run-api-bench.sh: builds flexlet and bench/api-bench with the top Makefile, starts
# `flexlet serve` on a free loopback port with a throwaway data dir (stopped and removed on exit,
# by tests/lib/server.sh), and runs the API benchmark against it. The report goes to stdout and
# to bench/results/api-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-bench), PODS (100), REQUESTS per phase (5000),
# PHASE_SECONDS (8), CLIENTS (1,8,64), FSYNCS (2000), BENCH_TMPDIR (parent of the data dir: it
# picks the disk that is measured; default $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-bench}

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" >/dev/null

export FLEXLET_BIN="$ROOT/$BUILD/flexlet" # read by server.sh
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh
SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-bench.XXXXXX")
# shellcheck disable=SC2119 # no extra flags for the server
server_start

commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"
mkdir -p bench/results
out="bench/results/api-$(date -u +%F).md"

"$ROOT/$BUILD/bench/api-bench" \
        --server "https://127.0.0.1:$SERVER_PORT" \
        --ca "$SERVER_DIR/data/pki/ca.crt" \
        --token-file "$SERVER_DIR/data/pki/admin.token" \
        --data-dir "$SERVER_DIR/data" \
        --server-pid "$SERVER_PID" \
        --pods "${PODS:-100}" \
        --requests "${REQUESTS:-5000}" \
        --seconds "${PHASE_SECONDS:-8}" \
        --clients "${CLIENTS:-1,8,64}" \
        --fsyncs "${FSYNCS:-2000}" \
        --commit "$commit" \
        --out "$out"
echo "report written to $out"
