#!/usr/bin/env bash
# run-etcd-writes-bench.sh: API writes through `flexlet apiserver --store etcd` against the same
# writes sent straight to etcd (issue 14: "flexlet on etcd within 2x of etcd alone"), for two
# flexlet binaries side by side in one run on one etcd, so that a change of the write path shows
# as a before/after ratio with the machine's drift shared:
#  1. etcd alone: store-bench --raw-only (a minimal keep-alive client's puts), 1 and 8 threads;
#  2. for each binary (BEFORE, then this tree's build): how many etcd requests (Range, Txn) one
#     API create and one PATCH pods/x/resize cost, counted from etcd's own metrics over COUNT
#     of each after a warm-up, less what the idle apiserver sends over as long; then api-bench's
#     create (half the pods by one client, half by 8) and PATCH (1 and 8 clients) phases;
#  3. etcd alone again (the drift over the run).
# As root or not. Ports from FLEXLET_TEST_PORT_BASE (tests/lib/server.sh's free_port). Every
# process and folder it made is removed on exit, failure and Ctrl-C included. Prints the report
# (Markdown) on stdout.
#
# Environment: BEFORE (a flexlet binary to compare with; required), BUILD (this tree's build
# folder, default build), PODS (128), REQUESTS per phase (1000), PHASE_SECONDS (5), RAW_N etcd
# puts per raw phase (1000), COUNT writes counted per binary (20).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
PODS=${PODS:-128}
REQUESTS=${REQUESTS:-1000}
PHASE_SECONDS=${PHASE_SECONDS:-5}
RAW_N=${RAW_N:-1000}
COUNT=${COUNT:-20}

die() {
        echo "run-etcd-writes-bench.sh: $*" >&2
        exit 1
}
if [ -z "${BEFORE:-}" ] || [ ! -x "$BEFORE" ]; then die "BEFORE must name a flexlet binary"; fi
command -v etcd >/dev/null || die "needs etcd (Debian's etcd-server)"
make BUILD="$BUILD" -j2 "$BUILD/flexlet" >/dev/null
for b in api-bench store-bench; do
        make -C bench BUILD="$BUILD" "../$BUILD/bench/$b" >/dev/null
done
BIN="$ROOT/$BUILD/bench"
AFTER="$ROOT/$BUILD/flexlet"
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh # free_port
# shellcheck source=bench/api-rows.sh
source bench/api-rows.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/flexlet-etcd-writes.XXXXXX")
SERVER_PID=''
ETCD_PID=''
cleanup() {
        set +e
        trap - EXIT INT TERM
        for p in $SERVER_PID $ETCD_PID; do
                kill "$p" 2>/dev/null
                wait "$p" 2>/dev/null
        done
        rm -rf --one-file-system "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ETCD=http://127.0.0.1:$(free_port)
peer=http://127.0.0.1:$(free_port)
etcd --data-dir "$TMP/etcd" --listen-client-urls "$ETCD" --advertise-client-urls "$ETCD" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "default=$peer" --logger zap --log-level error >"$TMP/etcd.log" 2>&1 &
ETCD_PID=$!
for _ in $(seq 1 100); do
        curl -sf "$ETCD/health" >/dev/null 2>&1 && break
        sleep 0.1
done
curl -sf "$ETCD/health" >/dev/null 2>&1 || die "etcd did not start: $(tail -3 "$TMP/etcd.log")"

declare -A R
keep() { # PREFIX OUTPUT: "key value" lines as R[PREFIX.key] (R[key] for an empty PREFIX)
        local k v p=${1:+$1.}
        while read -r k v; do [ -n "$k" ] && R[$p$k]=$v; done <<<"$2"
}
LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }
raw() { # NAME: bare etcd puts from 8 threads (R[NAME.raw.*]) and one (R[NAME.raw1.*])
        local o
        o=$("$BIN/store-bench" --raw-only --etcd "$ETCD" --n "$RAW_N" --threads 8) || die "store-bench failed"
        keep "$1" "$o"
}
# etcd's count of handled requests of one gRPC method (the JSON gateway's included)
handled() {
        curl -sf "$ETCD/metrics" | awk -v m="$1" '
                /^grpc_server_handled_total/ && index($0, "grpc_method=\"" m "\"") { n += $2 }
                END { printf "%d\n", n }'
}
URL='' CA='' TOKEN=''
api() { # METHOD PATH [CONTENT-TYPE BODY]: the HTTP status
        curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" -H "Authorization: Bearer $TOKEN" \
                -X "$1" ${3:+-H "Content-Type: $3"} ${4:+--data-binary "$4"} "$URL$2"
}
pod_body() {
        echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"128Mi\"}}}]}}"
}
resize_body() {
        echo "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"$1\"}}}]}}"
}
# counts NAME: etcd requests per create and per PATCH through the server at URL (COUNT of each
# after a warm-up, less the idle server's own over the same time)
counts() {
        local r0 t0 r1 t1 r2 t2 r3 t3 s0 s1 s2 i cpu
        [ "$(api POST /api/v1/namespaces/default/pods application/json "$(pod_body warm)")" = 201 ] ||
                die "$1: warm-up create failed"
        [ "$(api PATCH /api/v1/namespaces/default/pods/warm/resize application/strategic-merge-patch+json "$(resize_body 200m)")" = 200 ] ||
                die "$1: warm-up PATCH failed"
        r0=$(handled Range) t0=$(handled Txn) s0=$(date +%s%N)
        for i in $(seq 1 "$COUNT"); do
                [ "$(api POST /api/v1/namespaces/default/pods application/json "$(pod_body "count-$i")")" = 201 ] ||
                        die "$1: create failed"
        done
        r1=$(handled Range) t1=$(handled Txn) s1=$(date +%s%N)
        for i in $(seq 1 "$COUNT"); do
                cpu=$((i % 2 ? 200 : 150))m
                [ "$(api PATCH "/api/v1/namespaces/default/pods/count-$i/resize" application/strategic-merge-patch+json "$(resize_body "$cpu")")" = 200 ] ||
                        die "$1: PATCH failed"
        done
        r2=$(handled Range) t2=$(handled Txn) s2=$(date +%s%N)
        # the idle server over as long as both
        sleep "$(awk -v a="$s0" -v b="$s2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
        r3=$(handled Range) t3=$(handled Txn)
        awk -v n="$COUNT" -v r0="$r0" -v r1="$r1" -v r2="$r2" -v r3="$r3" -v t0="$t0" -v t1="$t1" \
                -v t2="$t2" -v t3="$t3" -v s0="$s0" -v s1="$s1" -v s2="$s2" -v p="$1" 'BEGIN {
                f = (s1 - s0) / (s2 - s0)
                printf "%s.create.range %.1f\n", p, (r1 - r0 - (r3 - r2) * f) / n
                printf "%s.create.txn %.1f\n", p, (t1 - t0 - (t3 - t2) * f) / n
                printf "%s.patch.range %.1f\n", p, (r2 - r1 - (r3 - r2) * (1 - f)) / n
                printf "%s.patch.txn %.1f\n", p, (t2 - t1 - (t3 - t2) * (1 - f)) / n
                printf "%s.idle.per_s %.1f\n", p, (r3 - r2 + t3 - t2) / ((s2 - s0) / 1e9)
        }'
}
flexlet() { # NAME BINARY: counts and api-bench against that binary's apiserver on the etcd
        local port
        # a fresh etcd keyspace for each: the second server must not find the first's pods
        ETCDCTL_API=3 etcdctl --endpoints "$ETCD" del --prefix /registry/ >/dev/null
        port=$(free_port)
        "$2" apiserver --data-dir "$TMP/$1" --listen "127.0.0.1:$port" --store etcd \
                --etcd-endpoints "$ETCD" >>"$TMP/$1.log" 2>&1 &
        SERVER_PID=$!
        URL=https://127.0.0.1:$port CA=$TMP/$1/pki/ca.crt
        for _ in $(seq 1 300); do
                curl -skf "$URL/readyz" >/dev/null 2>&1 && break
                kill -0 "$SERVER_PID" 2>/dev/null || break
                sleep 0.1
        done
        curl -skf "$URL/readyz" >/dev/null 2>&1 || die "$1 did not become ready: $(tail -5 "$TMP/$1.log" | tr '\n' ' ')"
        TOKEN=$(cat "$TMP/$1/pki/admin.token")
        # the service account and namespace controllers' first work done
        for _ in $(seq 1 100); do
                [ "$(api GET /api/v1/namespaces/default/serviceaccounts/default)" = 200 ] && break
                sleep 0.1
        done
        keep "" "$(counts "$1")"
        load "$1"
        "$BIN/api-bench" --server "$URL" --ca "$CA" --token-file "$TMP/$1/pki/admin.token" \
                --data-dir "$TMP/$1" --server-pid "$SERVER_PID" --namespace default --pods "$PODS" \
                --requests "$REQUESTS" --seconds "$PHASE_SECONDS" --clients 1,8 --fsyncs 100 \
                --handshakes 8 --create-clients 8 >"$TMP/api-$1.md" 2>"$TMP/api-$1.err" ||
                die "api-bench against $1 failed: $(tail -3 "$TMP/api-$1.err" "$TMP/api-$1.md" | tr '\n' ' ')"
        api_rows "$1" "$TMP/api-$1.md"
        kill "$SERVER_PID"
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
}

load start
raw raw0
flexlet before "$BEFORE"
flexlet after "$AFTER"
raw raw1
load end

v() { echo "${R[$1]:-?}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "?" }'; }
echo "# API writes on etcd against etcd alone, $(date -u +%FT%RZ)"
echo
echo "Commit $(git rev-parse --short HEAD) (after) against BEFORE=$BEFORE, one etcd member"
echo "($(etcd --version | head -1)) on loopback; $PODS pods, $REQUESTS requests or $PHASE_SECONDS s"
echo "per PATCH phase, $RAW_N bare puts from 8 threads and as many from one per raw phase."
echo "1-minute load average:$LOADS (2 CPUs, shared with other work)."
echo
echo "## etcd requests per API write"
echo
echo "From etcd's grpc_server_handled_total (its JSON gateway's requests included) over $COUNT"
echo "creates and $COUNT PATCHes after a warm-up, less the idle server's own over as long."
echo
echo "| | before Range | before Txn | after Range | after Txn |"
echo "|---|---:|---:|---:|---:|"
for op in create patch; do
        echo "| $op | $(v before.$op.range) | $(v before.$op.txn) | $(v after.$op.range) | $(v after.$op.txn) |"
done
echo
echo "Idle server's own etcd requests/s: before $(v before.idle.per_s), after $(v after.idle.per_s)."
echo
echo "## Rates (/s) and latencies (ms)"
echo
echo "Bare puts: raw0 before the flexlet phases, raw1 after them."
echo
echo "| | bare put /s raw0, raw1 | before /s | after /s | raw1 put/s ÷ after/s | before p50 / p99 | after p50 / p99 | raw1 put p50 / p99 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row() { # LABEL KEY RAWKEY (raw: 8 threads, raw1: one)
        echo "| $1 | $(v "raw0.$3.etcd-put.rate_per_s"), $(v "raw1.$3.etcd-put.rate_per_s") | $(v "before.$2.rate") | $(v "after.$2.rate") | $(ratio "$(v "raw1.$3.etcd-put.rate_per_s")" "$(v "after.$2.rate")") | $(v "before.$2.p50") / $(v "before.$2.p99") | $(v "after.$2.p50") / $(v "after.$2.p99") | $(v "raw1.$3.etcd-put.ms.p50") / $(v "raw1.$3.etcd-put.ms.p99") |"
}
row "create, 1 client" create1 raw1
row "create, 8 clients" create8 raw
row "PATCH, 1 client" patch1 raw1
row "PATCH, 8 clients" patch8 raw
