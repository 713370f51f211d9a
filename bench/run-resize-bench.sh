#!/usr/bin/env bash
# run-resize-bench.sh: benchmarks flexlet's in-place pod resize in one run, as root: on a node
# running PODS busybox pods, RESIZES resizes one at a time (round-robin, alternating up and
# down) of the cpu and memory limits, then as many of the Memory emptyDir's sizeLimit alone
# (KEP-6030 remounts), each timed from its PATCH to the watch event showing the new actual values
# and no PodResize* condition; all PODS pods resized at once; beside the kernel's floor for the
# same changes (cgroup files written and a tmpfs remounted directly) measured in the same run.
# Then, with uprobes on the agent, where a resize's time goes from thread to thread, and a CPU
# profile. And whether probing many pods slows resizes: PROBED_PODS more pods, each probed every
# second (readiness httpGet, liveness exec), beside which both series run again, against the same
# series run just before those pods came.
# bench/resize-bench.c does the measuring. Everything it made (processes, mounts, cgroups,
# folders, probes) is removed on exit, failure and Ctrl-C included. The report goes to stdout and
# bench/results/resize-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-resizebench), PODS (100), RESIZES (1000 per
# series), WARMUP (resizes before the measured series, default PODS), FLOOR_RUNS (2000),
# TRACE_RESIZES (200; 0: no uprobe trace), PROFILE_RESIZES (200; 0: no perf profile),
# PROBED_PODS (PODS; 0: no probing phase), PROBED_RESIZES (300 per series, with and without),
# BENCH_TMPDIR (parent of the data dirs; default $TMPDIR or /tmp), RAW_DIR (if set, the perf
# data, probe scripts and per-resize timestamps are copied there; they are made on /dev/shm).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-resizebench}
PODS=${PODS:-100}
RESIZES=${RESIZES:-1000}
WARMUP=${WARMUP:-$PODS}
FLOOR_RUNS=${FLOOR_RUNS:-2000}
TRACE_RESIZES=${TRACE_RESIZES:-200}
PROFILE_RESIZES=${PROFILE_RESIZES:-200}
PROBED_PODS=${PROBED_PODS:-$PODS}
PROBED_RESIZES=${PROBED_RESIZES:-300}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-resize-bench.sh: needs root (cgroups, mounts, namespaces)" >&2
        exit 1
fi

log() { echo "# $*" >&2; }
die() {
        echo "run-resize-bench.sh: $*" >&2
        exit 1
}

# --- build: flexlet with the top Makefile, resize-bench with bench/Makefile
make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/resize-bench" >/dev/null
RB="$ROOT/$BUILD/bench/resize-bench"
# the commit as built (the tree may move during the run)
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- src | wc -l)
[ "$dirty" = 0 ] || commit="$commit, with $dirty uncommitted files in src/ (others' work in progress)"

export FLEXLET_BIN="$ROOT/$BUILD/flexlet" # read by server.sh
# shellcheck disable=SC2034 # read by server_start
FLEXLET_COMMAND=serve
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh

SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-resizebench.XXXXXX")
FLOOR_DIR="$SERVER_DIR/floor"
# perf's output and the per-resize files, on a tmpfs when there is one: perf writing to the data
# dir's disk would slow the agent's fsyncs it measures
if [ "$(stat -fc %T /dev/shm 2>/dev/null)" = tmpfs ]; then
        WORK_DIR=$(mktemp -d /dev/shm/flexlet-resizebench.XXXXXX)
else
        WORK_DIR="$SERVER_DIR/work"
        mkdir -p "$WORK_DIR"
fi
CGROUP_ROOT="flexlet-resizebench-$$"
FLOOR_CGROUP="flexlet-resizebench-floor-$$"
PROBE_GROUP="resizebench$$"
PROBES=()
PROBE_FUNCS=()
PERF_PIDS=()


# server.sh's trap calls server_cleanup: this one leaves the host as it was.
server_cleanup() {
        local root d p
        set +e
        trap - EXIT INT TERM
        for p in "${PERF_PIDS[@]}"; do
                kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null
        done
        [ "${#PROBES[@]}" -gt 0 ] && perf probe -q -d "$PROBE_GROUP:*" >/dev/null 2>&1
        server_stop
        for _ in 1 2 3 4 5 6 7 8 9 10; do
                local left=0
                for root in "$CGROUP_ROOT" "$FLOOR_CGROUP"; do
                        for d in /sys/fs/cgroup/*/"$root" /sys/fs/cgroup/"$root"; do
                                [ -d "$d" ] || continue
                                # shellcheck disable=SC2038 # the files hold pids, one a line
                                find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                        done
                done
                processes_mentioning "$SERVER_DIR" | xargs -r kill -9 2>/dev/null
                sleep 0.5
                for root in "$CGROUP_ROOT" "$FLOOR_CGROUP"; do
                        for d in /sys/fs/cgroup/*/"$root" /sys/fs/cgroup/"$root"; do
                                [ -d "$d" ] || continue
                                find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                                [ -d "$d" ] && left=1
                        done
                done
                [ "$left" = 0 ] && [ -z "$(processes_mentioning "$SERVER_DIR")" ] && break
        done
        awk -v dir="$SERVER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf --one-file-system "$SERVER_DIR" "$WORK_DIR"
        ip link del "flxrb-$$" 2>/dev/null
}
trap server_cleanup EXIT
trap 'exit 130' INT TERM

declare -A R
# rb ARGS...: runs resize-bench and keeps its "key value" lines in R.
rb() {
        local out k v
        out=$("$RB" "$@") || die "resize-bench $1 failed"
        while read -r k v; do
                [ -n "$k" ] && R[$k]=$v
        done <<<"$out"
}
# rb_as FROM TO ARGS...: rb, with keys FROM.* kept as TO.*.
rb_as() {
        local from=$1 to=$2 out k v
        shift 2
        out=$("$RB" "$@") || die "resize-bench $1 failed"
        while read -r k v; do
                [ -n "$k" ] && R[${k/#$from./$to.}]=$v
        done <<<"$out"
}

# others_running: other flexlet servers and benchmarks on this (shared) machine, "none" if none
others_running() {
        local p n=0
        for p in $(pgrep -f 'flexlet (serve|apiserver)|/fuzz-|node-bench|api-bench' 2>/dev/null); do
                [ "$p" = "${SERVER_PID:-}" ] && continue
                n=$((n + 1))
        done
        [ "$n" = 0 ] && echo none || echo "$n"
}
OTHERS_START=$(others_running)
LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }

# --- the floor, with nothing else running
log "kernel floor ($FLOOR_RUNS runs)"
load floor
rb_as floor floor1 floor --cgroup-root "$FLOOR_CGROUP" --dir "$FLOOR_DIR" --runs "$FLOOR_RUNS"

# --- the node
log "starting flexlet serve with $PODS pods"
server_start --allocatable "cpu=64,memory=64Gi,pods=$((PODS + PROBED_PODS + 10))" --cgroup-root "$CGROUP_ROOT" \
        --feature-gates MemoryBackedVolumeResizeCgroupV1=true \
        --pod-cidr "${POD_CIDR:-10.125.0.0/16}" --pod-bridge "flxrb-$$"
trap server_cleanup EXIT
k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null
API=(--server "https://127.0.0.1:$SERVER_PORT" --ca "$SERVER_DIR/data/pki/ca.crt"
        --token-file "$SERVER_DIR/data/pki/admin.token" --pods "$PODS")
rb create "${API[@]}" --timeout 900
sleep 3

# k numbers the resizes of a kind: pod k % PODS, up when (k / PODS) is even. Each series of a
# kind goes on from where the last one stopped, so every pod keeps alternating.
declare -A K=([limits]=0 [volume]=0)
series() { # KEY KIND COUNT [extra args]: one serial series
        local key=$1 kind=$2 count=$3
        shift 3
        rb serial "${API[@]}" --kind "$kind" --count "$count" --first "${K[$kind]}" --key "$key" "$@"
        K[$kind]=$((K[$kind] + count))
}
align() { # KIND: resizes (unmeasured) until every pod is down
        local kind=$1 rem=$(((2 * PODS - K[$1] % (2 * PODS)) % (2 * PODS)))
        [ "$rem" = 0 ] && return 0
        "$RB" serial "${API[@]}" --kind "$kind" --count "$rem" --first "${K[$kind]}" >/dev/null
        K[$kind]=$((K[$kind] + rem))
}

if [ "$WARMUP" -gt 0 ]; then
        log "warm-up: $WARMUP limit resizes, $WARMUP volume resizes"
        series warm.limits limits "$WARMUP"
        series warm.volume volume "$WARMUP"
fi
# Event POSTs the API server has answered so far (apiserver_request_total): what the agent's
# event rate limit (--event-qps 50, --event-burst 100, as the kubelet's) lets through.
event_posts() {
        api GET /metrics | awk '/^apiserver_request_total\{/ && /resource="events"/ &&
                /verb="POST"/ { n += $NF } END { print n + 0 }'
}
log "$RESIZES resizes of the cpu and memory limits, one at a time"
load limits
posts=$(event_posts)
series limits limits "$RESIZES"
R[events.limits]=$(($(event_posts) - posts))
log "$RESIZES resizes of the volume sizeLimit, one at a time"
load volume
posts=$(event_posts)
series volume volume "$RESIZES"
R[events.volume]=$(($(event_posts) - posts))
log "$PODS pods resized at once (limits up, down; volume up, down)"
align limits
align volume
load burst
rb burst "${API[@]}" --kind limits --up --key burst.limits.up
sleep 1
rb burst "${API[@]}" --kind limits --down --key burst.limits.down
sleep 1
rb burst "${API[@]}" --kind volume --up --key burst.volume.up
sleep 1
rb burst "${API[@]}" --kind volume --down --key burst.volume.down
sleep 1

# --- probing many pods: the same series with and without PROBED_PODS pods probed every second
# probe_attempts [RESULT]: prober_probe_total summed (over one result)
probe_attempts() {
        api GET /metrics | awk -v r="${1:-}" '/^prober_probe_total\{/ && (r == "" || index($0, "result=\"" r "\"")) {
                n += $NF } END { print n + 0 }'
}
if [ "$PROBED_PODS" -gt 0 ]; then
        log "$PROBED_RESIZES limit and $PROBED_RESIZES volume resizes, then $PROBED_PODS probed pods and the same again"
        load unprobed
        series unprobed.limits limits "$PROBED_RESIZES"
        series unprobed.volume volume "$PROBED_RESIZES"
        rb_as create probed.create create "${API[@]}" --prefix probed --pods "$PROBED_PODS" --probed --timeout 900
        sleep 3
        load probing
        t0=$(date +%s.%N)
        n0=$(probe_attempts)
        f0=$(probe_attempts failed)
        series probing.limits limits "$PROBED_RESIZES"
        series probing.volume volume "$PROBED_RESIZES"
        R[probing.attempts]=$(($(probe_attempts) - n0))
        R[probing.failed]=$(($(probe_attempts failed) - f0))
        R[probing.seconds]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        "$RB" delete "${API[@]}" --prefix probed --pods "$PROBED_PODS" --timeout 300 >/dev/null ||
                die "deleting the probed pods failed"
        # probes that never ran would make the comparison say nothing
        [ "${R[probing.attempts]}" -gt 0 ] || die "no probe ran while $PROBED_PODS probed pods were up"
fi

# --- where the time goes: uprobes on the agent's loop, recorded on the clock resize-bench uses.
# The probes and their functions are resize-bench's table (`resize-bench probes`), read back by
# its analyze: a function renamed or inlined fails here, naming it.
if [ "$TRACE_RESIZES" -gt 0 ]; then
        command -v perf >/dev/null || die "TRACE_RESIZES=$TRACE_RESIZES needs perf (or set TRACE_RESIZES=0)"
        while read -r name fn; do
                # event names are global: NAME_PID at entry, NAME_PIDr at return (perf names it
                # NAME_PIDr__return; see resize-bench.c)
                perr=$(perf probe -q -x "$FLEXLET_BIN" -a "$PROBE_GROUP:${name}_$$=$fn" 2>&1 &&
                        perf probe -q -x "$FLEXLET_BIN" -a "$PROBE_GROUP:${name}_$$r=$fn%return" 2>&1) ||
                        die "cannot place uprobe \"$name\" on $fn in $FLEXLET_BIN: $(echo "$perr" | tr '\n' ' ')"
                PROBES+=("$name")
                PROBE_FUNCS+=("$fn")
        done < <("$RB" probes)
        [ "${#PROBES[@]}" -gt 0 ] || die "resize-bench probes listed no probe"
fi
trace() { # KIND COUNT|burst KEY: a traced series, or a traced burst up, each after the same
        # untraced (KEY.control: what the probes cost, and whether the machine changed meanwhile)
        local kind=$1 count=$2 key=$3 pid
        if [ "$count" = burst ]; then
                align "$kind"
                rb burst "${API[@]}" --kind "$kind" --up --key "$key.control"
                "$RB" burst "${API[@]}" --kind "$kind" --down --key settle >/dev/null
        else
                series "$key.control" "$kind" "$count"
        fi
        perf record -q -k CLOCK_MONOTONIC -e "$PROBE_GROUP:*" -p "$SERVER_PID" \
                -o "$WORK_DIR/$key.data" >/dev/null 2>&1 &
        pid=$!
        PERF_PIDS=("$pid")
        sleep 1
        if [ "$count" = burst ]; then
                align "$kind"
                rb burst "${API[@]}" --kind "$kind" --up --key "$key.e2e" --events "$WORK_DIR/$key.events"
        else
                series "$key.e2e" "$kind" "$count" --events "$WORK_DIR/$key.events"
        fi
        sleep 1
        kill -INT "$pid"
        wait "$pid" || true
        PERF_PIDS=()
        perf script -i "$WORK_DIR/$key.data" -F tid,time,event --ns >"$WORK_DIR/$key.txt" 2>/dev/null ||
                die "perf script of $key's trace failed"
        local burst=()
        [ "$count" = burst ] && burst=(--burst)
        rb analyze --events "$WORK_DIR/$key.events" --probes "$WORK_DIR/$key.txt" --key "$key" \
                --kind "$kind" "${burst[@]}"
}
if [ "${#PROBES[@]}" -gt 0 ]; then
        log "traced: $TRACE_RESIZES limit resizes, $TRACE_RESIZES volume resizes (uprobes: ${PROBES[*]})"
        load trace
        trace limits "$TRACE_RESIZES" trace.limits
        trace volume "$TRACE_RESIZES" trace.volume
        trace limits burst trace.burst
        "$RB" burst "${API[@]}" --kind limits --down --key settle >/dev/null
        perf probe -q -d "$PROBE_GROUP:*" >/dev/null 2>&1 || true
        PROBES=()
fi

# The functions the profile charges samples to (and worker_main, sender_main, resync_main,
# api_handle: the threads), each checked in the binary's debug information before the profile
# (inlined ones included): a rename fails the benchmark by name instead of charging nothing to it.
PROFILE_FUNCS="sync_all pod_worker_sync pod_host_sync_order memory_volume_sizes resize_pod_with_allocation
observe pod_resize_actuate pod_resize_admit pod_status_build write_allocation write_actuated api_client_request
send_status volume_over_limit runtime_sandbox_running schedule_pass registry_patch"
PROFILE_FUNCS=$(echo $PROFILE_FUNCS) # one line
# profile_breakdown PERF_SCRIPT_OUTPUT: each sample of `perf script -F tid,ip,sym` (callchains)
# charged to a thread (the frame that starts it) and to the innermost of a list of functions on
# its stack (the pod map's deep copies by sync_all and schedule_pass named apart); prints
# "thread<TAB>what<TAB>samples", "(other)" for samples under none of them.
profile_breakdown() {
        # -v: BEGIN reads funcs, and runs before an operand's assignment would
        awk -v funcs="$PROFILE_FUNCS" '
        function flush(   i, name, what, thr) {
                if (n == 0)
                        return
                thr = "other threads"
                what = "(other)"
                for (i = n; i >= 1; i--) {
                        name = f[i]
                        if (name == "worker_main")
                                thr = "agent pod workers"
                        else if (name == "sender_main")
                                thr = "agent status sender"
                        else if (name == "resync_main")
                                thr = "agent resync"
                        else if (name == "schedule_pass")
                                thr = "scheduler"
                        else if (name == "api_handle")
                                thr = "API server"
                        if (name in M)
                                what = name
                        if (name == "json_deep_copy" && i < n && (f[i + 1] == "sync_all" || f[i + 1] == "schedule_pass"))
                                what = f[i + 1] ": json_deep_copy of every pod"
                }
                S[thr "\t" what]++
                n = 0
        }
        BEGIN {
                split(funcs, a, " ")
                for (i in a)
                        M[a[i]] = 1
        }
        /^ *[0-9]+ *$/ || /^$/ { flush(); next }
        { sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/ \(inlined\)$/, ""); f[++n] = $0 }
        END {
                flush()
                for (k in S)
                        print k "\t" S[k]
        }' "$1"
}

PERF_FLAT="" PROFILE_ROWS="" PROFILE_SAMPLES=0 PROFILE_SECONDS=0
if [ "$PROFILE_RESIZES" -gt 0 ]; then
        command -v perf >/dev/null || die "PROFILE_RESIZES=$PROFILE_RESIZES needs perf (or set PROFILE_RESIZES=0)"
        for fn in $PROFILE_FUNCS worker_main sender_main resync_main api_handle; do
                perf probe -x "$FLEXLET_BIN" -L "$fn" >/dev/null 2>&1 ||
                        die "the profile's function $fn is not in $FLEXLET_BIN (renamed? update PROFILE_FUNCS)"
        done
        log "perf profile of flexlet serve over $PROFILE_RESIZES limit resizes"
        load profile
        perf record -q -e cpu-clock -F 999 --call-graph dwarf,16384 -p "$SERVER_PID" \
                -o "$WORK_DIR/perf.data" >/dev/null 2>&1 &
        PERF_PIDS=("$!")
        sleep 1
        t0=$(date +%s.%N)
        series profile limits "$PROFILE_RESIZES"
        PROFILE_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        kill -INT "${PERF_PIDS[0]}"
        wait "${PERF_PIDS[0]}" || true
        PERF_PIDS=()
        # The agent runs flexlet from a sealed copy mounted at /flexlet (src/node/runtime/exeseal.c),
        # a path perf cannot open afterwards: a symbol tree of the host's folders and the binary
        # there.
        mkdir -p "$WORK_DIR/symfs"
        for d in /usr /lib /lib64 /bin /sbin; do
                [ -e "$d" ] && ln -sfn "$d" "$WORK_DIR/symfs/"
        done
        ln -sf "$FLEXLET_BIN" "$WORK_DIR/symfs/flexlet"
        SYMS=(--symfs "$WORK_DIR/symfs" --kallsyms /proc/kallsyms)
        PERF_FLAT=$(perf report -i "$WORK_DIR/perf.data" "${SYMS[@]}" --stdio --no-children -g none \
                --sort dso,symbol --percent-limit 2 2>/dev/null | grep -v -e '^#' -e '^$' | sed 's/[[:space:]-]*$//' | head -15 || true)
        perf script -i "$WORK_DIR/perf.data" "${SYMS[@]}" -F tid,ip,sym >"$WORK_DIR/perf.txt" 2>/dev/null || true
        profile_breakdown "$WORK_DIR/perf.txt" >"$WORK_DIR/profile.tsv"
        PROFILE_SAMPLES=$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$WORK_DIR/profile.tsv")
        # per thread, then its parts, largest first; a sample is 1/999 s of CPU
        PROFILE_ROWS=$(awk -F'\t' -v total="$PROFILE_SAMPLES" -v resizes="$PROFILE_RESIZES" '
                { T[$1] += $3; S[$1 "\t" $2] = $3 }
                END {
                        for (t in T) {
                                printf "%.0f\t| **%s** | **%.1f** | **%.2f** |\n", T[t] * 1e7 + 9999999, t, 100 * T[t] / total, T[t] / 0.999 / resizes
                                for (k in S) {
                                        split(k, p, "\t")
                                        if (p[1] != t || 100 * S[k] / total < 0.5)
                                                continue
                                        printf "%.0f\t| &nbsp;&nbsp;%s | %.1f | %.2f |\n", T[t] * 1e7 + S[k], p[2], 100 * S[k] / total, S[k] / 0.999 / resizes
                                }
                        }
                }' "$WORK_DIR/profile.tsv" | sort -t$'\t' -k1,1nr | cut -f2-)
fi

if [ -n "${RAW_DIR:-}" ]; then
        mkdir -p "$RAW_DIR"
        cp "$WORK_DIR"/* "$RAW_DIR"/ 2>/dev/null || true
        cp "$FLEXLET_BIN" "$RAW_DIR"/ # perf report needs the binary it profiled
fi
log "deleting the pods"
rb delete "${API[@]}" --timeout 600
server_stop
log "kernel floor again, the server stopped"
load floor-again
rb_as floor floor2 floor --cgroup-root "$FLOOR_CGROUP" --dir "$FLOOR_DIR" --runs "$FLOOR_RUNS"
best=1
awk -v a="${R[floor1.cgroup_us.p50]}" -v b="${R[floor2.cgroup_us.p50]}" 'BEGIN { exit !(b < a) }' && best=2
for k in "${!R[@]}"; do
        [[ $k == floor$best.* ]] && R[floor.${k#floor"$best".}]=${R[$k]}
done

OTHERS_END=$(others_running)

# --- report
# v KEY: a measured value; a key no phase produced is recorded and fails the report (below)
# rather than printing a placeholder
MISSING="$WORK_DIR/missing-keys"
: >"$MISSING"
v() {
        if [ -z "${R[$1]:-}" ]; then
                echo "$1" >>"$MISSING"
                echo "?"
                return
        fi
        echo "${R[$1]}"
}
f() { awk -v x="$(v "$1")" -v d="${2:-1}" 'BEGIN { if (x == "?") print "?"; else printf "%.*f", d, x }'; }
us_ms() { awk -v x="$(v "$1")" -v d="${2:-3}" 'BEGIN { if (x == "?") print "?"; else printf "%.*f", d, x / 1000 }'; }
# ratio_ms_us A_MS B_US [C_US]: A (ms) / (B + C) (us)
ratio_ms_us() {
        local c=0
        [ -n "${3:-}" ] && c=$(v "$3")
        awk -v a="$(v "$1")" -v b="$(v "$2")" -v c="$c" 'BEGIN {
                if (a == "?" || b == "?" || b + c == 0) print "?"; else printf (a * 1000 / (b + c) < 20 ? "%.1f" : "%.0f"), a * 1000 / (b + c) }'
}
# pct A B: 100 * A / B
# prof WHAT: % of the profile's samples charged to WHAT (profile_breakdown's second column)
prof() {
        [ -s "$WORK_DIR/profile.tsv" ] || { echo "?"; return; }
        awk -F'\t' -v w="$1" '{ t += $3; if ($2 == w) n += $3 } END { if (t) printf "%.0f", 100 * n / t; else print "?" }' "$WORK_DIR/profile.tsv"
}
# ratio1 A B: A / B to two decimals
ratio1() { awk -v a="$(v "$1")" -v b="$(v "$2")" 'BEGIN { if (a == "?" || b == "?" || b == 0) print "?"; else printf "%.2f", a / b }'; }
pct() { awk -v a="$(v "$1")" -v b="$(v "$2")" 'BEGIN { if (a == "?" || b == "?" || b == 0) print "?"; else printf "%.0f", 100 * a / b }'; }

cgv=$(stat -fc %T /sys/fs/cgroup)
case "$cgv" in
cgroup2fs) cgv="v2" ;;
*) if [ -d /sys/fs/cgroup/unified ]; then cgv="v1 (hybrid)"; else cgv="v1"; fi ;;
esac
mem_gib=$(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
cpu_model=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
data_fs=$(df -PT "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}" | awk 'NR == 2 {print $2}')

row() { # label key
        echo "| $1 | $(f "$2.latency_ms.p50") | $(f "$2.latency_ms.p90") | $(f "$2.latency_ms.p99") | $(f "$2.latency_ms.max") | $(f "$2.latency_ms.min") |"
}
floor_row() { # label key
        echo "| $1 | $(us_ms "$2.p50") | $(us_ms "$2.p90") | $(us_ms "$2.p99") | $(us_ms "$2.max") | $(us_ms "$2.min") |"
}
split_row() { # label key
        echo "| $1 | $(f "$2.patch_ms.p50") | $(f "$2.spec_seen_ms.p50") | $(f "$2.inprogress_seen_ms.p50") | $(f "$2.actual_seen_ms.p50") | $(f "$2.latency_ms.p50") | $(f "$2.events.mean") |"
}
burst_row() { # label key
        echo "| $1 | **$(f "$2.total_ms")** | $(f "$2.last_answer_ms") | $(f "$2.latency_ms.p50") | $(f "$2.latency_ms.p99") | $(f "$2.latency_ms.max") |"
}
trace_row() { # label key stat
        local k=$2 s=$3
        echo "| $1 | $(f "$k.agent_seen_ms.$s" 2) | $(f "$k.to_step_ms.$s" 2) | $(f "$k.pod_step_ms.$s" 2) | $(f "$k.to_send_ms.$s" 2) | $(f "$k.send_ms.$s" 2) | $(f "$k.send_to_done_ms.$s" 2) | $(f "$k.latency_ms.$s") |"
}

mkdir -p bench/results
out="bench/results/resize-$(date -u +%F).md"
{
        echo "# flexlet in-place resize benchmark, $(date -u '+%F %H:%M') UTC"
        echo
        echo "Commit $commit. Machine: $(nproc) CPUs ($cpu_model), $mem_gib GiB RAM, Linux $(uname -r),"
        echo "cgroup $cgv, data dir on $data_fs. The machine is shared: 1-min load average as each phase"
        echo "started:${LOADS%,}; other flexlet servers, fuzzers and benchmarks running: $OTHERS_START at"
        echo "the start, $OTHERS_END at the end."
        echo
        echo "\`flexlet serve --allocatable cpu=64,memory=64Gi,pods=$((PODS + PROBED_PODS + 10)) --feature-gates"
        echo "MemoryBackedVolumeResizeCgroupV1=true\` (KEP-6030 makes a volume resize Infeasible on cgroup"
        echo "v1 without the gate); $PODS busybox \`sleep 3600\` pods, each with requests cpu 10m memory 16Mi,"
        echo "limits cpu 100m memory 64Mi and one Memory emptyDir (sizeLimit 16Mi, a tmpfs). Times in ms."
        echo
        echo "## One at a time"
        echo
        echo "$RESIZES resizes per series, round-robin over the $PODS pods, each pod alternating up and"
        echo "down, the next PATCH sent as soon as the last resize is seen done. **Limits**: cpu 100m ↔ 200m"
        echo "and memory 64Mi ↔ 128Mi together (pod and container cgroups). **Volume**: the emptyDir's"
        echo "sizeLimit 16Mi ↔ 32Mi alone (a tmpfs remount; no cgroup changes). A resize is timed from"
        echo "sending \`PATCH pods/NAME/resize\` (strategic merge, as kubectl sends it) to the watch event"
        echo "whose status shows the new values read back from the kernel"
        echo "(\`containerStatuses[0].resources.limits\` with \`allocatedResources\` equal to the requests; the"
        echo "volume's \`volumeStatus.emptyDir.sizeLimit\`) and neither PodResizeInProgress nor"
        echo "PodResizePending (nor the deprecated \`status.resize\`)."
        echo
        echo "| series | p50 | p90 | p99 | max | min |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        row "**limits** (cpu + memory), $RESIZES" limits
        row "&nbsp;&nbsp;up" limits.up
        row "&nbsp;&nbsp;down" limits.down
        row "**volume** sizeLimit, $RESIZES" volume
        row "&nbsp;&nbsp;up" volume.up
        row "&nbsp;&nbsp;down" volume.down
        if [ "$WARMUP" -gt 0 ]; then
                row "warm-up: limits, $WARMUP (not in the rows above)" warm.limits
                row "warm-up: volume, $WARMUP" warm.volume
        fi
        echo
        echo "Each resize makes two events (ResizeStarted, ResizeCompleted); the agent sends events at most"
        echo "50 a second after a burst of 100, as the kubelet's defaults (\`--event-qps\`, \`--event-burst\`),"
        echo "and queues up to 1,000 (beyond, they are dropped). Event POSTs the API server answered during"
        echo "the series: limits $(v events.limits), volume $(v events.volume)."
        echo
        echo "The floor, same run: the same changes made directly, $FLOOR_RUNS times each alternating up and"
        echo "down, before the node started and again after it stopped (run $best, the lower p50, shown):"
        echo
        echo "| floor | p50 | p90 | p99 | max | min |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        floor_row "limits: 6 cgroup files written" floor.cgroup_us
        floor_row "volume: mount(2) MS_REMOUNT size= of a tmpfs" floor.remount_us
        floor_row "one checkpoint as the agent writes it: a slot overwritten, fdatasync ($data_fs)" floor.slot_checkpoint_us
        floor_row "one checkpoint as written before: write, fsync, rename, fsync dir" floor.checkpoint_us
        echo
        echo "The cgroup files are memory.limit_in_bytes, cpu.cfs_quota_us and cpu.shares of a scratch pod"
        echo "cgroup and of its child, which holds a process (open, write, close each; the pod's first when"
        echo "growing, the child's first when shrinking, as cgroup v1 requires); p50 for both cgroups:"
        echo "memory.limit_in_bytes $(f floor.memory_limit_us.p50) µs, cpu.cfs_quota_us $(f floor.cfs_quota_us.p50) µs, cpu.shares $(f floor.cpu_shares_us.p50) µs. The checkpoint is"
        echo "not a syscall floor but what the agent's design adds to any resize: the allocation made"
        echo "durable before anything is applied (allocated.slots, src/base/slot-file.h; issue 16's goal was"
        echo "set against the rename-style write the agent made before)."
        echo
        echo "**End-to-end / floor, p50: limits $(ratio_ms_us limits.latency_ms.p50 floor.cgroup_us.p50)×, volume $(ratio_ms_us volume.latency_ms.p50 floor.remount_us.p50)×**"
        echo "($(ratio_ms_us limits.latency_ms.p50 floor.cgroup_us.p50 floor.slot_checkpoint_us.p50)× and $(ratio_ms_us volume.latency_ms.p50 floor.remount_us.p50 floor.slot_checkpoint_us.p50)× against the syscalls plus one checkpoint as the agent writes it;"
        echo "$(ratio_ms_us limits.latency_ms.p50 floor.cgroup_us.p50 floor.checkpoint_us.p50)× and $(ratio_ms_us volume.latency_ms.p50 floor.remount_us.p50 floor.checkpoint_us.p50)× against the syscalls plus the rename-style checkpoint issue 16's goal was set with)."
        echo
        echo "As the client sees it (p50, ms from the PATCH; events: the pod's watch events per resize,"
        echo "mean):"
        echo
        echo "| series | PATCH answered | new spec event | PodResizeInProgress seen | new values seen | done | events |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        split_row limits limits
        split_row volume volume
        echo
        echo "## $PODS pods resized at once"
        echo
        echo "One thread and one warm connection per pod, released together; total: from the release to"
        echo "the last pod seen done."
        echo
        echo "| resize | total | last PATCH answered | per pod p50 | p99 | max |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        burst_row "limits up" burst.limits.up
        burst_row "limits down" burst.limits.down
        burst_row "volume up" burst.volume.up
        burst_row "volume down" burst.volume.down
        if [ "$PROBED_PODS" -gt 0 ]; then
                echo
                echo "## While $PROBED_PODS more pods are probed"
                echo
                echo "$PROBED_RESIZES resizes of each kind one at a time (as above), then $PROBED_PODS more pods on the node,"
                echo "each busybox's httpd with a readiness \`httpGet\` and a liveness \`exec\` (\`cat\` of the page, run"
                echo "in the container) every second (the kubelet's default period is 10 s), all ready after"
                echo "$(f probed.create.total_ms 0) ms, and the same two series again. While they ran the probed pods"
                echo "made $(v probing.attempts) probe attempts in $(v probing.seconds) s ($(awk -v n="$(v probing.attempts)" -v s="$(v probing.seconds)" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "?" }') a second; failed: $(v probing.failed);"
                echo "\`prober_probe_total\` read before and after)."
                echo
                echo "| series | p50 | p90 | p99 | max | min |"
                echo "| --- | ---: | ---: | ---: | ---: | ---: |"
                row "limits, no probed pods" unprobed.limits
                row "limits, $PROBED_PODS pods probed" probing.limits
                row "volume, no probed pods" unprobed.volume
                row "volume, $PROBED_PODS pods probed" probing.volume
                echo
                echo "Probed / not, p50: limits $(ratio1 probing.limits.latency_ms.p50 unprobed.limits.latency_ms.p50)×, volume $(ratio1 probing.volume.latency_ms.p50 unprobed.volume.latency_ms.p50)×;"
                echo "p99: limits $(ratio1 probing.limits.latency_ms.p99 unprobed.limits.latency_ms.p99)×, volume $(ratio1 probing.volume.latency_ms.p99 unprobed.volume.latency_ms.p99)×."
        fi
        if [ -n "${R[trace.limits.matched]:-}" ]; then
                echo
                echo "## Where the time goes"
                echo
                echo "$TRACE_RESIZES more resizes of each kind, and one more burst of limits up, with uprobes on"
                echo "the agent (entry and return of $(echo "${PROBE_FUNCS[*]}" | sed 's/ /, /g')),"
                echo "recorded with \`perf record -k CLOCK_MONOTONIC\`, the clock resize-bench"
                echo "stamps its PATCHes and watch events with. A resize crosses threads (src/node/agent.c): the"
                echo "agent's watch (on_pod_event) marks the pod dirty, a pod worker takes it (pod_queue_take) and"
                echo "steps it (pod_worker_sync), hands its status to the status sender (status_sender_status),"
                echo "one of whose threads sends the PATCH (send_status); the resize's own step is the one that"
                echo "made its allocation durable (write_allocation), the PATCH the first to start after its"
                echo "hand-off. What the probes cost: p50 $(f trace.limits.e2e.latency_ms.p50) (limits)"
                echo "and $(f trace.volume.e2e.latency_ms.p50) (volume) traced, $(f trace.limits.control.latency_ms.p50) and $(f trace.volume.control.latency_ms.p50) in the same series run untraced just before"
                echo "(the burst: $(f trace.burst.e2e.total_ms 0) against $(f trace.burst.control.total_ms 0)). The breakdown below is of the traced runs;"
                echo "$(v trace.limits.matched) of $TRACE_RESIZES limit resizes and $(v trace.volume.matched) volume resizes matched."
                echo
                echo "| ms from the PATCH | → agent's watch has it | → its step starts | its step | → its status PATCH starts | status PATCH | → done seen | total |"
                echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
                trace_row "limits p50" trace.limits p50
                trace_row "limits p90" trace.limits p90
                trace_row "volume p50" trace.volume p50
                trace_row "volume p90" trace.volume p90
                echo
                echo "(Each column is its own percentile: the row need not add up.) Of \"→ its step starts\","
                echo "the worker's own prelude after it took the pod (sync_pod: the map, the status sender's latest) is"
                echo "p50 $(f trace.limits.wake_ms.p50 3) ms. The resizing pod's step (p50 / p99): limits $(f trace.limits.pod_step_ms.p50 2) / $(f trace.limits.pod_step_ms.p99 2) ms, of which"
                echo "admission $(f trace.limits.admit_ms.p50 2), actuation $(f trace.limits.actuate_ms.p50 2), durable checkpoints $(f trace.limits.checkpoint_ms.p50 2) in $(f trace.limits.checkpoints.p50 0) writes,"
                echo "actuated-state records $(f trace.limits.record_ms.p50 2) in $(f trace.limits.records.p50 0), cgroup_set_limits $(f trace.limits.cgroup_set_ms.p50 2); volume $(f trace.volume.pod_step_ms.p50 2) / $(f trace.volume.pod_step_ms.p99 2) ms,"
                echo "of which admission $(f trace.volume.admit_ms.p50 2), actuation $(f trace.volume.actuate_ms.p50 2), checkpoints $(f trace.volume.checkpoint_ms.p50 2) in $(f trace.volume.checkpoints.p50 0),"
                echo "records $(f trace.volume.record_ms.p50 2) in $(f trace.volume.records.p50 0), emptydir_resize $(f trace.volume.remount_ms.p50 2). Status PATCHes per resize: $(f trace.limits.sends.mean 2)"
                echo "(limits), $(f trace.volume.sends.mean 2) (volume); pod steps during one (the resync's of other pods included): p50"
                echo "$(f trace.limits.steps.p50 0), p90 $(f trace.limits.steps.p90 0). Every pod step in the traced limits series: p50 $(f trace.limits.step_ms.p50 3) ms, p99"
                echo "$(f trace.limits.step_ms.p99 3); every status PATCH p50 $(f trace.limits.status_patch_ms.p50 3) ms, p99 $(f trace.limits.status_patch_ms.p99 3). The resync (sync_all, once a"
                echo "second, marks every pod) started during $(v trace.limits.with_resync.latency_ms.n) of the limit resizes: those took p50"
                echo "$(f trace.limits.with_resync.latency_ms.p50), p99 $(f trace.limits.with_resync.latency_ms.p99); the others p50 $(f trace.limits.without_resync.latency_ms.p50), p99 $(f trace.limits.without_resync.latency_ms.p99)."
                echo
                echo "The traced burst (limits up, $PODS pods, $(f trace.burst.e2e.total_ms 0) ms): $(v trace.burst.window.step_n) pod steps, $(f trace.burst.window.step_ms 0) ms in all,"
                echo "$(f trace.burst.window.step_parallel 2) at once on average over their $(f trace.burst.window.step_span_ms 0) ms; $(v trace.burst.window.ckpt_n) durable checkpoint writes"
                echo "$(f trace.burst.window.ckpt_ms 0) ms, $(v trace.burst.window.record_n) actuated-state records $(f trace.burst.window.record_ms 1) ms, cgroup writes $(f trace.burst.window.cgset_ms 0) ms;"
                echo "$(v trace.burst.window.send_n) status PATCHes $(f trace.burst.window.send_ms 0) ms, $(f trace.burst.window.send_parallel 2) at once on average over their"
                echo "$(f trace.burst.window.send_span_ms 0) ms; $(v trace.burst.window.event_n) pod changes delivered by the agent's watch."
        fi
        if [ -n "$PROFILE_ROWS" ]; then
                echo
                echo "## CPU profile of flexlet serve over $PROFILE_RESIZES limit resizes"
                echo
                echo "\`perf record -e cpu-clock -F 999 --call-graph dwarf\` of the serve process (API server,"
                echo "scheduler and agent in one), $PROFILE_SAMPLES samples in $PROFILE_SECONDS s. Each sample is charged to its thread and to"
                echo "the innermost of these functions on its stack; CPU ms per resize = samples / 999 Hz /"
                echo "$PROFILE_RESIZES. Parts under 0.5% left out."
                echo
                echo "| thread / innermost function | % of samples | CPU ms per resize |"
                echo "| --- | ---: | ---: |"
                echo "$PROFILE_ROWS"
                echo
                echo "Self time by symbol (>= 2%):"
                echo
                echo '```'
                echo "$PERF_FLAT"
                echo '```'
        fi
        if [ -n "${R[trace.limits.matched]:-}" ] && [ -n "$PROFILE_ROWS" ]; then
                echo
                echo "## Hotspots"
                echo
                echo "What the numbers above point at (the traced limits series, p50 unless said):"
                echo
                echo "- **The API server's writes.** The resize PATCH is answered at $(f limits.patch_ms.p50) ms and the status"
                echo "  PATCH takes $(f trace.limits.send_ms.p50) ms: $(awk -v a="$(v limits.patch_ms.p50)" -v b="$(v trace.limits.send_ms.p50)" -v t="$(v trace.limits.latency_ms.p50)" 'BEGIN { printf "%.0f", 100 * (a + b) / t }')% of the $(f trace.limits.latency_ms.p50) ms a resize takes. The node's own share, from"
                echo "  its watch delivering the spec to the status handed to the sender, is"
                echo "  $(awk -v a="$(v trace.limits.to_step_ms.p50)" -v b="$(v trace.limits.pod_step_ms.p50)" 'BEGIN { printf "%.2f", a + b }') ms, of which the durable allocation is $(f trace.limits.checkpoint_ms.p50 2)."
                echo "- **$PODS at once.** Pod steps ran $(f trace.burst.window.step_parallel 2) at a time and status PATCHes"
                echo "  $(f trace.burst.window.send_parallel 2) at a time; the burst's resize PATCHes were all answered at $(f burst.limits.up.last_answer_ms 0) ms of"
                echo "  its $(f burst.limits.up.total_ms 0)."
                echo "- **CPU.** The agent's largest parts in the profile:"
                echo "  $(awk -F'\t' '{ t += $3; if ($1 ~ /^agent/) { S[$1 ": " $2] += $3 } } END { for (k in S) printf "%d\t%s %.0f%%\n", S[k], k, 100 * S[k] / t }' "$WORK_DIR/profile.tsv" | sort -nr | head -6 | cut -f2 | paste -sd';' | sed 's/;/, /g') of serve's CPU."
        fi
} >"$out.tmp"
if [ -s "$MISSING" ]; then
        rm -f "$out.tmp"
        die "the report reads values no phase measured: $(sort -u "$MISSING" | paste -sd' ')"
fi
mv "$out.tmp" "$out"
cat "$out"
echo "report written to $out" >&2
