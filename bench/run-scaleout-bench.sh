#!/usr/bin/env bash
# run-scaleout-bench.sh: what splitting flexlet over processes costs, measured in one run on one
# machine and reported as ratios (issue 14, "Performance"), as root:
#  1. api-bench's create (one client) and PATCH (1 and 8 clients) phases against `flexlet
#     apiserver` on SQLite and `flexlet apiserver --store etcd` (one local etcd member, Debian's,
#     its data on the same disk), beside the same writes sent straight to that etcd by
#     store-bench's minimal client (--raw-only), carrying the very pods the API stored there
#     (--raw-values-from): the goal is flexlet on etcd within 2x of etcd alone.
#  2. Watch delivery latency across two apiservers on that etcd (bench/watch-bench.c): writes
#     PATCHed through A, their events timed on watches through A and through B.
#  3. resize-bench's one-at-a-time limits resize against `flexlet serve` (API and node in one
#     process) and against `flexlet apiserver` + `flexlet node` joined over loopback with the
#     join token (docs/scale-out.md, docs/joining-nodes.md), both on SQLite.
# Every process, cgroup, mount, bridge and folder it made is removed on exit, failure and Ctrl-C
# included. It fails (non-zero, naming it) when a value cannot be measured. The report goes to
# stdout and to bench/results/scaleout-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-bench), PODS api-bench pods (256), REQUESTS per
# phase (2000), PHASE_SECONDS (6), RAW_N etcd puts per raw phase (2000), EVENTS watched writes
# (500), RESIZE_PODS (20), RESIZES (200), BENCH_TMPDIR (parent of the data: the disk that is
# measured; default $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-bench}
PODS=${PODS:-256}
REQUESTS=${REQUESTS:-2000}
PHASE_SECONDS=${PHASE_SECONDS:-6}
RAW_N=${RAW_N:-2000}
EVENTS=${EVENTS:-500}
RESIZE_PODS=${RESIZE_PODS:-20}
RESIZES=${RESIZES:-200}

log() { echo "# $*" >&2; }
die() {
        echo "run-scaleout-bench.sh: $*" >&2
        exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (the resize phase runs a node: cgroups, mounts, namespaces)"
{ command -v etcd && command -v etcdctl; } >/dev/null ||
        die "needs etcd and etcdctl (Debian's etcd-server, etcd-client; scripts/install-deps.sh)"

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
for b in api-bench store-bench watch-bench resize-bench; do
        make -C bench BUILD="$BUILD" "../$BUILD/bench/$b" >/dev/null
done
BIN="$ROOT/$BUILD/bench"
export FLEXLET_BIN="$ROOT/$BUILD/flexlet"
# the commit as built, and whether the benchmark's own sources differ from it
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- src bench/*.c bench/*.h bench/run-scaleout-bench.sh | wc -l)
[ "$dirty" = 0 ] || commit="$commit with $dirty uncommitted files"
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh # free_port
# shellcheck source=bench/api-rows.sh
source bench/api-rows.sh
mkdir -p bench/results
out="bench/results/scaleout-$(date -u +%F).md"

TMP=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-scaleout.XXXXXX")
CGROUP_ROOT="flexlet-scaleout-$$"
BRIDGES=("flxso-$$" "flxsn-$$")
declare -A PID=() URL=()
ETCD_PID=

stop() { # NAME: stops that server (SIGTERM, then SIGKILL)
        local p=${PID[$1]:-}
        [ -n "$p" ] || return 0
        kill "$p" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
        PID[$1]=
}
cleanup() {
        local n d rec left
        set +e
        trap - EXIT INT TERM
        for n in "${!PID[@]}"; do stop "$n"; done
        if [ -n "$ETCD_PID" ]; then
                kill -9 "$ETCD_PID" 2>/dev/null
                wait "$ETCD_PID" 2>/dev/null
        fi
        for _ in 1 2 3 4 5 6 7 8 9 10; do
                left=0
                for d in /sys/fs/cgroup/*/"$CGROUP_ROOT"-* /sys/fs/cgroup/"$CGROUP_ROOT"-*; do
                        [ -d "$d" ] || continue
                        # shellcheck disable=SC2038 # the files hold pids, one a line
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                processes_mentioning "$TMP" | xargs -r kill -9 2>/dev/null
                sleep 0.3
                for d in /sys/fs/cgroup/*/"$CGROUP_ROOT"-* /sys/fs/cgroup/"$CGROUP_ROOT"-*; do
                        [ -d "$d" ] || continue
                        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                        [ -d "$d" ] && left=1
                done
                [ "$left" = 0 ] && [ -z "$(processes_mentioning "$TMP")" ] && break
        done
        # the CNI DELs a killed agent did not run (tests/lib/node.sh's node_cni_del)
        for rec in "$TMP"/*/pods/*/network/network.json; do
                [ -f "$rec" ] && node_cni_del "$rec"
        done
        awk -v dir="$TMP/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf --one-file-system "$TMP"
        for n in "${BRIDGES[@]}"; do ip link del "$n" 2>/dev/null; done
        return 0
}
# shellcheck source=tests/lib/node.sh
source tests/lib/node.sh # node_cni_del (its own variables are not used)
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME COMMAND FLAGS...: flexlet COMMAND with data in $TMP/NAME on a free loopback port,
# ready (/readyz) or the benchmark fails with its log
start() {
        local name=$1 cmd=$2 port
        shift 2
        port=$(free_port)
        "$FLEXLET_BIN" "$cmd" --data-dir "$TMP/$name" --listen "127.0.0.1:$port" "$@" \
                >>"$TMP/$name.log" 2>&1 &
        PID[$name]=$!
        URL[$name]=https://127.0.0.1:$port
        for _ in $(seq 1 300); do
                curl -skf "${URL[$name]}/readyz" >/dev/null 2>&1 && return 0
                kill -0 "${PID[$name]}" 2>/dev/null || break
                sleep 0.1
        done
        die "flexlet $cmd ($name) did not become ready: $(tail -5 "$TMP/$name.log" | tr '\n' ' ')"
}
# creds NAME [PKI]: api-bench's and friends' --server, --ca, --token-file for that server
creds() {
        local pki=${2:-$TMP/$1/pki}
        echo --server "${URL[$1]}" --ca "$pki/ca.crt" --token-file "$pki/admin.token"
}

declare -A R
# keep PREFIX OUTPUT: "key value" lines kept in R as PREFIX.key
keep() {
        local k v
        while read -r k v; do
                [ -n "$k" ] && R[$1.$k]=$v
        done <<<"$2"
}
LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }
# ticks PID: the CPU time PID has used (user and system, in clock ticks); 0 without a PID
ticks() {
        if [ -n "${1:-}" ]; then awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; else echo 0; fi
}
# stamp SERVER: each line read, after the CPU ticks SERVER's process and etcd had used by then
# (SERVER "none": no server runs, its column is 0)
stamp() {
        local l
        while IFS= read -r l; do
                echo "$(ticks "${PID[$1]:-}") $(ticks "$ETCD_PID") $l"
        done
}
# phase_cpu PREFIX STAMPED PHASE N: the CPU milliseconds per request the server and etcd spent
# from the stamped line PHASE to the next (N requests), as R[PREFIX.{server,etcd}_cpu_ms]
phase_cpu() {
        local f e
        [ -n "$4" ] || die "no request count for \"$3\""
        read -r f e < <(awk -v p="$3" -v hz="$(getconf CLK_TCK)" -v n="$4" '
                found { printf "%.3f %.3f\n", ($1 - f) * 1000 / hz / n, ($2 - e) * 1000 / hz / n; exit }
                { l = $0; sub(/^[0-9]+ [0-9]+ /, "", l) }
                l == p { found = 1; f = $1; e = $2 }' "$2")
        [ -n "$f" ] || die "no CPU figures for \"$3\" in $2"
        R[$1.server_cpu_ms]=$f
        R[$1.etcd_cpu_ms]=$e
}
# api_bench NAME: api-bench's create and PATCH phases (GET, wire formats, handshakes and the
# fsync floor kept short: not what is compared here) against server NAME; the CPU each of its
# create and PATCH phases took in the server and in etcd (when one runs). The pods name a
# scheduler that does not run, so each request is one write, as each of the bare client's is
# (the default scheduler would write the status and a FailedScheduling event of every pod).
api_bench() {
        # shellcheck disable=SC2046 # creds is several words
        "$BIN/api-bench" $(creds "$1") --data-dir "$TMP/$1" --server-pid "${PID[$1]}" \
                --pods "$PODS" --requests "$REQUESTS" --seconds "$PHASE_SECONDS" --clients 1,8 \
                --fsyncs 100 --handshakes 8 --scheduler-name api-bench-none --commit "$commit" 2>&1 >"$TMP/api-$1.md" |
                stamp "$1" >"$TMP/api-$1.err" ||
                die "api-bench against $1 failed: $(tail -3 "$TMP/api-$1.err" "$TMP/api-$1.md" | tr '\n' ' ')"
        api_rows "$1" "$TMP/api-$1.md"
        phase_cpu "$1.create1" "$TMP/api-$1.err" "api-bench: creating $PODS pods" "$PODS"
        phase_cpu "$1.patch1" "$TMP/api-$1.err" "api-bench: PATCH resize, 1 clients" "${R[$1.patch1.n]:-}"
        phase_cpu "$1.patch8" "$TMP/api-$1.err" "api-bench: PATCH resize, 8 clients" "${R[$1.patch8.n]:-}"
}

# --- 1. the API on SQLite, on etcd, and etcd alone
load start
log "api-bench against flexlet apiserver on SQLite"
start sql apiserver
api_bench sql
stop sql

ETCD=http://127.0.0.1:$(free_port)
peer=http://127.0.0.1:$(free_port)
etcd --data-dir "$TMP/etcd" --listen-client-urls "$ETCD" --advertise-client-urls "$ETCD" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "default=$peer" --max-request-bytes 8388608 \
        --logger zap --log-level error >"$TMP/etcd.log" 2>&1 &
ETCD_PID=$!
for _ in $(seq 1 100); do
        ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint health >/dev/null 2>&1 && break
        sleep 0.1
done
ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint health >/dev/null 2>&1 || die "etcd did not start: $(tail -3 "$TMP/etcd.log")"

log "api-bench against flexlet apiserver --store etcd"
start ea apiserver --store etcd --etcd-endpoints "$ETCD"
load etcd
api_bench ea
log "etcd alone: store-bench's minimal client"
"$BIN/store-bench" --raw-only --etcd "$ETCD" --n "$RAW_N" --threads 8 \
        --raw-values-from /registry/pods/ 2>&1 >"$TMP/raw.out" | stamp none >"$TMP/raw.err" ||
        die "store-bench --raw-only failed: $(tail -3 "$TMP/raw.err")"
o=$(cat "$TMP/raw.out")
keep raw "$o"
phase_cpu raw.put8 "$TMP/raw.err" "store-bench: raw.etcd-put" "$RAW_N"
phase_cpu raw.txn8 "$TMP/raw.err" "store-bench: raw.etcd-txn" "$RAW_N"
phase_cpu raw.put1 "$TMP/raw.err" "store-bench: raw1.etcd-put" "$RAW_N"
phase_cpu raw.txn1 "$TMP/raw.err" "store-bench: raw1.etcd-txn" "$RAW_N"

# --- 2. watch delivery through a second apiserver on the same etcd
log "watch delivery: $EVENTS writes through A, watched through A and B"
cp -rp "$TMP/ea/pki" "$TMP/pki-b"
start eb apiserver --store etcd --etcd-endpoints "$ETCD" --pki-dir "$TMP/pki-b"
load watch
o=$("$BIN/watch-bench" --server-a "${URL[ea]}" --server-b "${URL[eb]}" --ca "$TMP/ea/pki/ca.crt" \
        --token-file "$TMP/ea/pki/admin.token" --events "$EVENTS") || die "watch-bench failed"
keep w "$o"
stop eb
stop ea
# where the gap is: the same etcd through flexlet's store interface alone, one thread (store-bench
# without --raw-only; its SQLite half on the same disk), once no apiserver is on that etcd (its
# scheduler would write the status of store-bench's pods under it: a conflict)
o=$("$BIN/store-bench" --sqlite "$TMP/store.db" --etcd "$ETCD" --n 200 --threads 1 --lists 2) ||
        die "store-bench (one thread) failed"
keep store "$o"
kill -9 "$ETCD_PID" 2>/dev/null || true
wait "$ETCD_PID" 2>/dev/null || true
ETCD_PID=

# --- 3. resize with the API in the node's process, and with the node joined to a remote one
GATES=MemoryBackedVolumeResizeCgroupV1=true
SERVE_CIDR=10.126.0.0/24 NODE_CIDR=10.126.1.0/24
for c in "$SERVE_CIDR" "$NODE_CIDR"; do
        [ -z "$(ip -4 route show match "${c%/24}" 2>/dev/null | grep -v '^default')" ] ||
                die "$c is routed on this machine already (another run?)"
done
ALLOC="cpu=64,memory=64Gi,pods=$((RESIZE_PODS + 10))"
# resize NAME: resize-bench's pods on server NAME, a warm-up, RESIZES limit resizes one at a time
resize() {
        local api o
        # shellcheck disable=SC2207 # creds is several words
        api=($(creds "$1") --pods "$RESIZE_PODS")
        "$BIN/resize-bench" create "${api[@]}" --timeout 300 >/dev/null || die "resize-bench create on $1 failed"
        "$BIN/resize-bench" serial "${api[@]}" --kind limits --count "$RESIZE_PODS" --first 0 >/dev/null ||
                die "resize-bench warm-up on $1 failed"
        load "resize-$1"
        o=$("$BIN/resize-bench" serial "${api[@]}" --kind limits --count "$RESIZES" \
                --first "$RESIZE_PODS" --key limits) || die "resize-bench serial on $1 failed"
        keep "$1" "$o"
        "$BIN/resize-bench" delete "${api[@]}" --timeout 300 >/dev/null || die "resize-bench delete on $1 failed"
}
node_ready() { # NAME NODE: waits until that server's Node NODE is Ready
        for _ in $(seq 1 300); do
                [ "$(kubectl --kubeconfig "$TMP/$1/kubeconfig" --cache-dir "$TMP/kcache" get node "$2" \
                        -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] &&
                        return 0
                sleep 0.2
        done
        die "node $2 did not become Ready"
}
log "resize against flexlet serve ($RESIZE_PODS pods, $RESIZES resizes)"
start serve serve --node-name scaleout-serve --allocatable "$ALLOC" --cgroup-root "$CGROUP_ROOT-serve" \
        --feature-gates "$GATES" --pod-cidr "$SERVE_CIDR" --pod-bridge "${BRIDGES[0]}"
node_ready serve scaleout-serve
resize serve
stop serve

log "resize against flexlet apiserver + flexlet node joined over loopback"
start split apiserver --cluster-cidr "$NODE_CIDR"
KPORT=$(free_port)
"$FLEXLET_BIN" node --server "${URL[split]}" --token-file "$TMP/split/node-token" --data-dir "$TMP/node" \
        --node-name scaleout-node --cgroup-root "$CGROUP_ROOT-node" --kubelet-listen "127.0.0.1:$KPORT" \
        --allocatable "$ALLOC" --feature-gates "$GATES" --pod-bridge "${BRIDGES[1]}" \
        --cluster-cidr "$NODE_CIDR" >>"$TMP/node.log" 2>&1 &
PID[node]=$!
node_ready split scaleout-node
resize split
stop node
stop split
load end

# --- report; a value no phase produced fails it (no placeholders)
MISSING="$TMP/missing-keys"
: >"$MISSING"
v() {
        if [ -z "${R[$1]:-}" ]; then
                echo "$1" >>"$MISSING"
                echo 0
                return
        fi
        echo "${R[$1]}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f", a / b }'; }
row() { # LABEL KEY: SQLite, etcd, etcd/SQLite for rate, p50, p99
        local s e
        s=$(v "sql.$2.rate") e=$(v "ea.$2.rate")
        echo "| $1 | $s | $e | $(ratio "$e" "$s") | $(v "sql.$2.p50") | $(v "ea.$2.p50") | $(v "sql.$2.p99") | $(v "ea.$2.p99") | $(ratio "$(v "ea.$2.p99")" "$(v "sql.$2.p99")") |"
}
alone() { # LABEL KEY RAW (raw: 8 threads, raw1: one): flexlet on etcd against etcd alone
        local e p t
        e=$(v "ea.$2.rate") p=$(v "raw.$3.etcd-put.rate_per_s") t=$(v "raw.$3.etcd-txn.rate_per_s")
        echo "| $1 | $e | $p | $t | $(ratio "$p" "$e") | $(ratio "$t" "$e") | $(v "ea.$2.p50") | $(v "raw.$3.etcd-txn.ms.p50") | $(v "ea.$2.p99") | $(v "raw.$3.etcd-txn.ms.p99") |"
}
{
        echo "# scale-out bench: flexlet on etcd, two apiservers, a remote node, $(date -u +%FT%TZ)"
        echo
        echo "commit $commit, $(nproc) CPUs shared with other work, $(df -T "$(dirname "$TMP")" | awk 'NR == 2 {print $2}') under ${BENCH_TMPDIR:-${TMPDIR:-/tmp}}, etcd $(etcd --version | awk 'NR==1 {print $3}') (one member, on loopback, same disk);"
        echo "1-minute load average:$LOADS others running: $(pgrep -fc 'flexlet (serve|apiserver|node)' || true) flexlet processes at the end (the run's own stopped)."
        echo
        echo "## API writes: SQLite, etcd, etcd alone"
        echo
        echo "\`bench/api-bench\` against \`flexlet apiserver\` on SQLite and with \`--store etcd\`: $PODS pods created by one"
        echo "client (naming a scheduler that does not run: one write each), then PATCH pods/x/resize ($REQUESTS requests or $PHASE_SECONDS s per phase) by 1 and 8 keep-alive clients; ms per request as the client sees it."
        echo
        echo "| operation | SQLite /s | etcd /s | etcd/SQLite rate | SQLite p50 | etcd p50 | SQLite p99 | etcd p99 | etcd/SQLite p99 |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        row "create, 1 client" create1
        row "PATCH, 1 client" patch1
        row "PATCH, 8 clients" patch8
        echo
        echo "Etcd alone: \`bench/store-bench --raw-only\`, the same pod objects (the $(v raw.raw.values) pods api-bench made, as the"
        echo "API stored them: $(v raw.raw.value_bytes) bytes each) put straight to the same etcd's gRPC API, as the store speaks it, by a"
        echo "minimal client (one keep-alive HTTP/2 libcurl handle per thread; $RAW_N puts with 8 threads, as many with 1), then as many"
        echo "compare-and-swap transactions over them: put if the key's mod_revision is the one it last wrote, else"
        echo "read it, the transaction flexlet's store sends for an update (its create is a put-if-absent one). Each"
        echo "flexlet write is that transaction behind TLS, authentication, authorization, admission and the JSON codecs."
        echo
        echo "| operation | flexlet on etcd /s | etcd alone: put /s | txn /s | put / flexlet | txn / flexlet (goal <= 2) | flexlet p50 | txn p50 | flexlet p99 | txn p99 |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        alone "create, 1 client" create1 raw1
        alone "PATCH, 1 client" patch1 raw1
        alone "PATCH, 8 clients" patch8 raw
        echo
        echo "What a request costs in CPU, ms (each process's user and system time over the phase, from /proc, per request;"
        echo "the two CPUs are shared by the client, flexlet and etcd, so a rate bound by the CPU is bound by the sum):"
        echo
        echo "| | flexlet on SQLite | flexlet on etcd | its etcd | etcd alone: a put | a txn |"
        echo "|---|---:|---:|---:|---:|---:|"
        cpu_row() { # LABEL KEY THREADS
                echo "| $1 | $(v "sql.$2.server_cpu_ms") | $(v "ea.$2.server_cpu_ms") | $(v "ea.$2.etcd_cpu_ms") | $(v "raw.put$3.etcd_cpu_ms") | $(v "raw.txn$3.etcd_cpu_ms") |"
        }
        cpu_row "create, 1 client" create1 1
        cpu_row "PATCH, 1 client" patch1 1
        cpu_row "PATCH, 8 clients" patch8 8
        echo
        echo "Where the gap is: the same etcd through flexlet's store interface alone (\`bench/store-bench\`, one"
        echo "thread, 200 pods, no HTTP): create p50 $(v store.etcd.create.ms.p50) ms, update (get, compare, write) p50"
        echo "$(v store.etcd.update.ms.p50) ms, against the bare put's $(v store.raw1.etcd-put.ms.p50) ms; on SQLite $(v store.sqlite.create.ms.p50) and $(v store.sqlite.update.ms.p50) ms."
        echo "The API's create and PATCH on etcd (p50 $(v ea.create1.p50) and $(v ea.patch1.p50) ms, one client) spend"
        echo "$(awk -v a="$(v ea.patch1.p50)" -v b="$(v store.etcd.update.ms.p50)" 'BEGIN { printf "%.1f", a - b }') ms per PATCH above the store's update; on SQLite the API spends $(awk -v a="$(v sql.patch1.p50)" -v b="$(v store.sqlite.update.ms.p50)" 'BEGIN { printf "%.1f", a - b }') ms above its store."
        echo
        echo "## Watch delivery across two apiservers"
        echo
        echo "Two \`flexlet apiserver --store etcd\` on that etcd (B with a copy of A's pki folder). \`bench/watch-bench\`"
        echo "PATCHes one ConfigMap through A, $(v w.watch.events) writes one at a time (after $(v w.watch.warmup) unmeasured), each timed from"
        echo "just before its PATCH to its MODIFIED event on a watch through A and on one through B; ms:"
        echo
        echo "| | n | p50 | p99 | max |"
        echo "|---|---:|---:|---:|---:|"
        echo "| PATCH answered (A) | $(v w.patch.ms.n) | $(v w.patch.ms.p50) | $(v w.patch.ms.p99) | $(v w.patch.ms.max) |"
        echo "| event through A | $(v w.watch.a.ms.n) | $(v w.watch.a.ms.p50) | $(v w.watch.a.ms.p99) | $(v w.watch.a.ms.max) |"
        echo "| event through B | $(v w.watch.b.ms.n) | $(v w.watch.b.ms.p50) | $(v w.watch.b.ms.p99) | $(v w.watch.b.ms.max) |"
        echo
        echo "**B / A: p50 $(v w.watch.b_over_a.p50)×, p99 $(v w.watch.b_over_a.p99)×.**"
        echo
        echo "## Resize on a node whose apiserver is remote"
        echo
        echo "\`bench/resize-bench serial --kind limits\`: $RESIZE_PODS busybox pods, $RESIZE_PODS unmeasured resizes, then $RESIZES"
        echo "resizes of the cpu and memory limits one at a time (round-robin, alternating up and down), each"
        echo "from its PATCH to the watch event showing the new actual values and no PodResize* condition."
        echo "Against \`flexlet serve\` (API and agent in one process), and against \`flexlet apiserver\` with"
        echo "\`flexlet node\` joined over loopback (its own process, its client certificate from the join); both on SQLite; ms:"
        echo
        echo "| | n | p50 | p99 | max | mean |"
        echo "|---|---:|---:|---:|---:|---:|"
        echo "| serve | $(v serve.limits.latency_ms.n) | $(v serve.limits.latency_ms.p50) | $(v serve.limits.latency_ms.p99) | $(v serve.limits.latency_ms.max) | $(v serve.limits.latency_ms.mean) |"
        echo "| apiserver + node | $(v split.limits.latency_ms.n) | $(v split.limits.latency_ms.p50) | $(v split.limits.latency_ms.p99) | $(v split.limits.latency_ms.max) | $(v split.limits.latency_ms.mean) |"
        echo
        echo "**Remote / serve: p50 $(ratio "$(v split.limits.latency_ms.p50)" "$(v serve.limits.latency_ms.p50)")×, p99 $(ratio "$(v split.limits.latency_ms.p99)" "$(v serve.limits.latency_ms.p99)")×.**"
        echo
        echo "<details><summary>raw values</summary>"
        echo
        echo '```'
        for k in "${!R[@]}"; do echo "$k ${R[$k]}"; done | sort
        echo '```'
        echo
        echo "</details>"
} >"$TMP/report.md"
[ -s "$MISSING" ] && die "the report reads values no phase measured: $(sort -u "$MISSING" | paste -sd' ')"
cp "$TMP/report.md" "$out"
cat "$out"
echo "report written to $out" >&2
