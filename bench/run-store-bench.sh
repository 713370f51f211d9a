#!/usr/bin/env bash
# run-store-bench.sh: the store on SQLite beside the store on etcd, in one run on one machine:
# builds flexlet's library and bench/store-bench, starts one etcd (Debian's, one member, its data
# on the same disk as the SQLite file) on free loopback ports, and runs store-bench (creates,
# gets, updates and lists through the store on each backend, and the same puts and gets sent
# straight to etcd's JSON gateway). Then the transport question of docs/dependencies.md: the
# gateway beside gRPC (etcdctl) against the same etcd: put and get per call, and the event rate
# of one watch replaying the whole history. Everything it starts is stopped and removed after.
# The report goes to stdout and to bench/results/store-<UTC date>.md.
#
# Environment: BUILD (build-bench), N objects (1000), THREADS (8), CALLS etcdctl calls (50),
# BENCH_TMPDIR (parent of the data: the disk that is measured; default $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-bench}
N=${N:-1000}
THREADS=${THREADS:-8}
CALLS=${CALLS:-50}

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/libflexlet.a" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/store-bench" >/dev/null
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh # free_port
mkdir -p bench/results
out="bench/results/store-$(date -u +%F).md"
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-store-bench.XXXXXX")
etcd_pid=
cleanup() {
        if [ -n "$etcd_pid" ]; then
                kill -9 "$etcd_pid" 2>/dev/null || true
                wait "$etcd_pid" 2>/dev/null || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT

client=http://127.0.0.1:$(free_port)
peer=http://127.0.0.1:$(free_port)
etcd --data-dir "$tmp/etcd" --listen-client-urls "$client" --advertise-client-urls "$client" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "default=$peer" --max-request-bytes 8388608 \
        --logger zap --log-level error >"$tmp/etcd.log" 2>&1 &
etcd_pid=$!
ec() { ETCDCTL_API=3 etcdctl --endpoints "$client" "$@"; }
for _ in $(seq 1 100); do ec endpoint health >/dev/null 2>&1 && break; sleep 0.1; done

results=$("$ROOT/$BUILD/bench/store-bench" --sqlite "$tmp/store.db" --etcd "$client" \
        --n "$N" --threads "$THREADS")

# gRPC through etcdctl: one process per call, so the process start is measured apart
# (etcdctl version: no request) and taken off.
ms_per() { # CALLS COMMAND...: wall ms per call of COMMAND, run CALLS times in a row
        local n=$1 t0 t1
        shift
        t0=$(date +%s%N)
        for i in $(seq 1 "$n"); do "$@" >/dev/null; done
        t1=$(date +%s%N)
        awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.3f", (b - a) / 1000000 / n }'
}
start_ms=$(ms_per "$CALLS" ec version)
put_ms=$(ms_per "$CALLS" ec put /bench-grpc/k v)
get_ms=$(ms_per "$CALLS" ec get /bench-grpc/k)
grpc_put=$(awk -v a="$put_ms" -v b="$start_ms" 'BEGIN { printf "%.3f", a - b }')
grpc_get=$(awk -v a="$get_ms" -v b="$start_ms" 'BEGIN { printf "%.3f", a - b }')

# One watch replaying every raw put from revision 1, through each transport: events per second.
events=$(ec get /bench-raw/ --prefix --keys-only -w json | jq -r '.count')
t0=$(date +%s%N)
timeout 120 env ETCDCTL_API=3 etcdctl --endpoints "$client" watch --prefix /bench-raw/ --rev=1 |
        awk -v n="$events" '$0 == "PUT" { c++; if (c >= n) exit }' || true
t1=$(date +%s%N)
grpc_watch=$(awk -v e="$events" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", e * 1e9 / (b - a) }')
key=$(printf /bench-raw/ | base64) end=$(printf /bench-raw0 | base64)
t0=$(date +%s%N)
timeout 120 curl -sN -X POST "$client/v3/watch" \
        -d "{\"create_request\":{\"key\":\"$key\",\"range_end\":\"$end\",\"start_revision\":1}}" |
        awk -v n="$events" '{ c += gsub(/"kv":/, "") ; if (c >= n) exit }' || true
t1=$(date +%s%N)
gw_watch=$(awk -v e="$events" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", e * 1e9 / (b - a) }')

val() { echo "$results" | awk -v k="$1" '$1 == k { print $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
{
        echo "# store bench: SQLite and etcd, $(date -u +%FT%TZ)"
        echo
        echo "commit $(git rev-parse --short HEAD), $(nproc) CPUs, etcd $(etcd --version | awk 'NR==1 {print $3}'), $N pods, $THREADS threads, data under ${BENCH_TMPDIR:-${TMPDIR:-/tmp}}"
        echo
        echo "| through the store | SQLite /s | etcd /s | etcd/SQLite | SQLite p99 ms | etcd p99 ms |"
        echo "|---|---|---|---|---|---|"
        for op in create get update; do
                s=$(val "sqlite.$op.rate_per_s") e=$(val "etcd.$op.rate_per_s")
                echo "| $op | $s | $e | $(ratio "$e" "$s") | $(val "sqlite.$op.ms.p99") | $(val "etcd.$op.ms.p99") |"
        done
        s=$(val sqlite.list.objects_per_s) e=$(val etcd.list.objects_per_s)
        echo "| list (objects) | $s | $e | $(ratio "$e" "$s") | $(val sqlite.list.ms.p99) | $(val etcd.list.ms.p99) |"
        echo
        echo "etcd alone (a minimal gateway client, same objects, same threads): put $(val raw.etcd-put.rate_per_s)/s (p99 $(val raw.etcd-put.ms.p99) ms), get $(val raw.etcd-get.rate_per_s)/s; the store's create on etcd is $(ratio "$(val etcd.create.rate_per_s)" "$(val raw.etcd-put.rate_per_s)") of the bare put rate."
        echo
        echo "Transport, one client, one call at a time against the same etcd:"
        echo
        echo "| | JSON gateway (libcurl, keep-alive) | gRPC (etcdctl, process start of $start_ms ms taken off) |"
        echo "|---|---|---|"
        echo "| put, ms | $(val raw1.etcd-put.ms.mean) | $grpc_put |"
        echo "| get, ms | $(val raw1.etcd-get.ms.mean) | $grpc_get |"
        echo "| watch replay of $events events, events/s | $gw_watch | $grpc_watch |"
        echo
        echo '```'
        echo "$results"
        echo '```'
} | tee "$out"
