#!/usr/bin/env bash
# run-store-bench.sh: the store on SQLite beside the store on etcd, in one run on one machine:
# builds flexlet's library and bench/store-bench, starts one etcd (Debian's, one member, its data
# on the same disk as the SQLite file) on free loopback ports, and runs store-bench (creates,
# gets, updates and lists through the store on each backend, and the same puts and gets sent
# straight to etcd's gRPC API). Then the transport question of docs/dependencies.md: one load
# generator, h2load (Debian's nghttp2-client), sends the same 1.5 KB put through etcd's JSON
# gateway (HTTP/1.1) and through its gRPC API (HTTP/2) over 1, 4 and 8 connections, one request
# in flight on each: the rate and etcd's CPU per put (from /proc). Everything it starts is
# stopped and removed after. The report goes to stdout and to bench/results/store-<UTC date>.md.
#
# Environment: BUILD (build-bench), N objects (1000), THREADS (8), PUTS per connection and
# transport (600), BENCH_TMPDIR (parent of the data: the disk that is measured; default $TMPDIR
# or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-bench}
N=${N:-1000}
THREADS=${THREADS:-8}
PUTS=${PUTS:-600}
command -v h2load >/dev/null || { echo "run-store-bench.sh: needs h2load (nghttp2-client)" >&2; exit 1; }

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

# The transport: one put of a 1.5 KB value as the gateway's JSON and as gRPC's framed PutRequest
# (key 1, value 2: rpc.proto), each sent by h2load.
key=/bench-transport/k
value=$(head -c 1541 /dev/zero | tr '\0' x)
printf '{"key":"%s","value":"%s"}' "$(printf %s "$key" | base64 -w0)" \
        "$(printf %s "$value" | base64 -w0)" >"$tmp/put.json"
# the frame: no compression, length 1564 (0x061c); key: tag 0x0a, length 18 (0x12); value: tag
# 0x12, length 1541 (varint 0x85 0x0c)
printf '\x00\x00\x00\x06\x1c\x0a\x12%s\x12\x85\x0c%s' "$key" "$value" >"$tmp/put.bin"
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$etcd_pid/stat"; }
transport=""
for c in 1 4 8; do
        for t in gateway grpc; do
                n=$((c * PUTS))
                e0=$(ticks)
                if [ "$t" = gateway ]; then
                        o=$(h2load --h1 -n "$n" -c "$c" -m 1 -d "$tmp/put.json" \
                                -H 'Content-Type: application/json' "$client/v3/kv/put")
                else
                        o=$(h2load -n "$n" -c "$c" -m 1 -d "$tmp/put.bin" \
                                -H 'content-type: application/grpc' -H 'te: trailers' \
                                "$client/etcdserverpb.KV/Put")
                fi
                e1=$(ticks)
                ok=$(echo "$o" | awk '/^requests:/ { print $8 }')
                [ "$ok" = "$n" ] || { echo "run-store-bench.sh: h2load $t: $ok of $n succeeded" >&2; exit 1; }
                rate=$(echo "$o" | awk '/^finished in/ { sub(/ req\/s,/, "", $4); print $4 }')
                cpu=$(awk -v a="$e0" -v b="$e1" -v n="$n" -v hz="$(getconf CLK_TCK)" \
                        'BEGIN { printf "%.3f", (b - a) * 1000 / hz / n }')
                transport="$transport$c $t $rate $cpu
"
        done
done
tv() { echo "$transport" | awk -v c="$1" -v t="$2" -v f="$3" '$1 == c && $2 == t { print $f }'; }

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
        echo "etcd alone (a minimal gRPC client, same objects, same threads): put $(val raw.etcd-put.rate_per_s)/s (p99 $(val raw.etcd-put.ms.p99) ms), get $(val raw.etcd-get.rate_per_s)/s; the store's create on etcd is $(ratio "$(val etcd.create.rate_per_s)" "$(val raw.etcd-put.rate_per_s)") of the bare put rate."
        echo
        echo "Transport: h2load's 1.5 KB puts against the same etcd, one request in flight per connection; etcd's CPU per put:"
        echo
        echo "| connections | JSON gateway puts/s | etcd ms/put | gRPC puts/s | etcd ms/put | gRPC/gateway etcd CPU |"
        echo "|---:|---:|---:|---:|---:|---:|"
        for c in 1 4 8; do
                echo "| $c | $(tv "$c" gateway 3) | $(tv "$c" gateway 4) | $(tv "$c" grpc 3) | $(tv "$c" grpc 4) | $(ratio "$(tv "$c" grpc 4)" "$(tv "$c" gateway 4)") |"
        done
        echo
        echo '```'
        echo "$results"
        echo '```'
} | tee "$out"
