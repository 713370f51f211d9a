#!/usr/bin/env bash
# run-resize-bench.sh: benchmarks flexlet's in-place pod resize in one run, as root: on a node
# running PODS busybox pods, RESIZES resizes one at a time (round-robin, alternating up and
# down) of the cpu and memory limits, then as many of the Memory emptyDir's sizeLimit alone
# (KEP-6030 remounts), each timed from its PATCH to the watch event showing the new actual values
# and no PodResize* condition; all PODS pods resized at once; beside the kernel's floor for the
# same changes (cgroup files written and a tmpfs remounted directly) measured in the same run.
# Then, with uprobes on the agent, where a resize's time goes pass by pass, and a CPU profile.
# bench/resize-bench.c does the measuring. Everything it made (processes, mounts, cgroups,
# folders, probes) is removed on exit, failure and Ctrl-C included. The report goes to stdout and
# bench/results/resize-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-resizebench), PODS (100), RESIZES (1000 per
# series), WARMUP (resizes before the measured series, default PODS), FLOOR_RUNS (2000),
# TRACE_RESIZES (200; 0: no uprobe trace), PROFILE_RESIZES (200; 0: no perf profile),
# BENCH_TMPDIR (parent of the data dirs; default $TMPDIR or /tmp).
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

if [ "$(id -u)" -ne 0 ]; then
        echo "run-resize-bench.sh: needs root (cgroups, mounts, namespaces)" >&2
        exit 1
fi

log() { echo "# $*" >&2; }

# --- build: flexlet with the top Makefile, resize-bench with bench/Makefile
make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/resize-bench" >/dev/null
RB="$ROOT/$BUILD/bench/resize-bench"

export FLEXLET_BIN="$ROOT/$BUILD/flexlet" # read by server.sh
# shellcheck disable=SC2034 # read by server_start
FLEXLET_COMMAND=serve
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh

SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-resizebench.XXXXXX")
FLOOR_DIR="$SERVER_DIR/floor"
CGROUP_ROOT="flexlet-resizebench-$$"
FLOOR_CGROUP="flexlet-resizebench-floor-$$"
PROBE_GROUP="resizebench$$"
PROBES=()
PERF_PIDS=()

# The pids of processes whose command line mentions our folder (pods' helpers, the server).
our_processes() {
        local p
        for p in /proc/[0-9]*; do
                [ "${p#/proc/}" = "$$" ] && continue
                if { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF "$SERVER_DIR"; then
                        echo "${p#/proc/}"
                fi
        done
}

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
                our_processes | xargs -r kill -9 2>/dev/null
                sleep 0.5
                for root in "$CGROUP_ROOT" "$FLOOR_CGROUP"; do
                        for d in /sys/fs/cgroup/*/"$root" /sys/fs/cgroup/"$root"; do
                                [ -d "$d" ] || continue
                                find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                                [ -d "$d" ] && left=1
                        done
                done
                [ "$left" = 0 ] && [ -z "$(our_processes)" ] && break
        done
        awk -v dir="$SERVER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf --one-file-system "$SERVER_DIR"
}
trap server_cleanup EXIT
trap 'exit 130' INT TERM

declare -A R
# rb ARGS...: runs resize-bench and keeps its "key value" lines in R.
rb() {
        local out k v
        out=$("$RB" "$@")
        while read -r k v; do
                [ -n "$k" ] && R[$k]=$v
        done <<<"$out"
}
# rb_as FROM TO ARGS...: rb, with keys FROM.* kept as TO.*.
rb_as() {
        local from=$1 to=$2 out k v
        shift 2
        out=$("$RB" "$@")
        while read -r k v; do
                [ -n "$k" ] && R[${k/#$from./$to.}]=$v
        done <<<"$out"
}

LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }

# --- the floor, with nothing else running
log "kernel floor ($FLOOR_RUNS runs)"
load floor
rb_as floor floor1 floor --cgroup-root "$FLOOR_CGROUP" --dir "$FLOOR_DIR" --runs "$FLOOR_RUNS"

# --- the node
log "starting flexlet serve with $PODS pods"
server_start --allocatable "cpu=64,memory=64Gi,pods=$((PODS + 10))" --cgroup-root "$CGROUP_ROOT" \
        --feature-gates MemoryBackedVolumeResizeCgroupV1=true
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
log "$RESIZES resizes of the cpu and memory limits, one at a time"
load limits
series limits limits "$RESIZES"
log "$RESIZES resizes of the volume sizeLimit, one at a time"
load volume
series volume volume "$RESIZES"
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

# --- where the time goes: uprobes on the agent's loop, recorded on the clock resize-bench uses
if [ "$TRACE_RESIZES" -gt 0 ] && command -v perf >/dev/null; then
        for spec in pass=sync_all step=pod_worker_sync req=api_client_request admit=pod_resize_admit \
                actuate=pod_resize_actuate ckpt=fs_write_file_atomic cgset=cgroup_set_limits \
                remount=emptydir_resize status=pod_status_build; do
                name=${spec%%=*} fn=${spec#*=}
                # event names are global: NAME_PID at entry, NAME_PIDr at return (see resize-bench.c)
                if perf probe -q -x "$FLEXLET_BIN" -a "$PROBE_GROUP:${name}_$$=$fn" >/dev/null 2>&1 &&
                        perf probe -q -x "$FLEXLET_BIN" -a "$PROBE_GROUP:${name}_$$r=$fn%return" >/dev/null 2>&1; then
                        PROBES+=("$name")
                else
                        log "no uprobe on $fn"
                fi
        done
fi
trace() { # KIND COUNT KEY: a traced series
        local kind=$1 count=$2 key=$3 pid
        perf record -q -k CLOCK_MONOTONIC -e "$PROBE_GROUP:*" -p "$SERVER_PID" \
                -o "$SERVER_DIR/$key.data" >/dev/null 2>&1 &
        pid=$!
        PERF_PIDS=("$pid")
        sleep 1
        series "$key.e2e" "$kind" "$count" --events "$SERVER_DIR/$key.events"
        kill -INT "$pid"
        wait "$pid" || true
        PERF_PIDS=()
        perf script -i "$SERVER_DIR/$key.data" -F tid,time,event --ns >"$SERVER_DIR/$key.txt" 2>/dev/null
        rb analyze --events "$SERVER_DIR/$key.events" --probes "$SERVER_DIR/$key.txt" --key "$key"
}
if [ "${#PROBES[@]}" -gt 0 ]; then
        log "traced: $TRACE_RESIZES limit resizes, $TRACE_RESIZES volume resizes (uprobes: ${PROBES[*]})"
        load trace
        trace limits "$TRACE_RESIZES" trace.limits
        trace volume "$TRACE_RESIZES" trace.volume
        perf probe -q -d "$PROBE_GROUP:*" >/dev/null 2>&1 || true
        PROBES=()
fi

PERF_FLAT="" PERF_TREE=""
if [ "$PROFILE_RESIZES" -gt 0 ] && command -v perf >/dev/null; then
        log "perf profile of flexlet serve over $PROFILE_RESIZES limit resizes"
        load profile
        perf record -q -e cpu-clock -F 999 --call-graph dwarf,32768 -p "$SERVER_PID" \
                -o "$SERVER_DIR/perf.data" >/dev/null 2>&1 &
        PERF_PIDS=("$!")
        sleep 1
        series profile limits "$PROFILE_RESIZES"
        kill -INT "${PERF_PIDS[0]}"
        wait "${PERF_PIDS[0]}" || true
        PERF_PIDS=()
        PERF_FLAT=$(perf report -i "$SERVER_DIR/perf.data" --stdio --no-children -g none \
                --sort dso,symbol --percent-limit 1.5 2>/dev/null | grep -v -e '^#' -e '^$' | sed 's/[[:space:]-]*$//' | head -25 || true)
        PERF_TREE=$(perf report -i "$SERVER_DIR/perf.data" --stdio --children -g none \
                --sort symbol --percent-limit 5 2>/dev/null | grep -v -e '^#' -e '^$' | sed 's/[[:space:]-]*$//' | head -40 || true)
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

# --- report
v() { echo "${R[$1]:-?}"; }
f() { awk -v x="$(v "$1")" -v d="${2:-1}" 'BEGIN { if (x == "?") print "?"; else printf "%.*f", d, x }'; }
us_ms() { awk -v x="$(v "$1")" -v d="${2:-3}" 'BEGIN { if (x == "?") print "?"; else printf "%.*f", d, x / 1000 }'; }
# ratio_ms_us A_MS B_US: A (ms) / B (us)
ratio_ms_us() { awk -v a="$(v "$1")" -v b="$(v "$2")" 'BEGIN { if (a == "?" || b == "?" || b == 0) print "?"; else printf "%.0f", a * 1000 / b }'; }
# ratio_ms_sum A_MS B_US C_US: A (ms) / (B + C) (us)
ratio_ms_sum() { awk -v a="$(v "$1")" -v b="$(v "$2")" -v c="$(v "$3")" 'BEGIN { if (a == "?" || b == "?" || c == "?") print "?"; else printf "%.0f", a * 1000 / (b + c) }'; }

commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"
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
        echo "| $1 | $(f "$2.total_ms") | $(f "$2.last_answer_ms") | $(f "$2.latency_ms.p50") | $(f "$2.latency_ms.p99") | $(f "$2.latency_ms.max") |"
}
trace_row() { # label key
        echo "| $1 | $(f "$2.spec_seen_ms.p50") | $(f "$2.wait_for_pass_ms.p50") | $(f "$2.pass_a_ms.p50") | $(f "$2.after_pass_a_ms.p50") | $(f "$2.latency_ms.p50") | $(f "$2.passes.p50" 0) |"
}

mkdir -p bench/results
out="bench/results/resize-$(date -u +%F).md"
{
        echo "# flexlet in-place resize benchmark, $(date -u '+%F %H:%M') UTC"
        echo
        echo "Commit $commit. Machine: $(nproc) CPUs ($cpu_model), $mem_gib GiB RAM, Linux $(uname -r),"
        echo "cgroup $cgv, data dir on $data_fs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
        echo "\`flexlet serve --allocatable cpu=64,memory=64Gi,pods=$((PODS + 10)) --feature-gates"
        echo "MemoryBackedVolumeResizeCgroupV1=true\` (KEP-6030 refuses a volume resize on cgroup v1"
        echo "without it); $PODS busybox \`sleep 3600\` pods, each with requests cpu 10m memory 16Mi,"
        echo "limits cpu 100m memory 64Mi and one Memory emptyDir (sizeLimit 16Mi, a tmpfs). Times in ms."
        echo
        echo "## One at a time"
        echo
        echo "$RESIZES resizes per series, round-robin over the $PODS pods, each pod alternating up and"
        echo "down, the next PATCH sent as soon as the last resize is seen done ($WARMUP of each kind ran"
        echo "before, unmeasured). Limits: cpu 100m ↔ 200m and memory 64Mi ↔ 128Mi together (pod and"
        echo "container cgroups). Volume: the emptyDir's sizeLimit 16Mi ↔ 32Mi alone (a tmpfs remount; the"
        echo "cgroups do not change). A resize is timed from sending \`PATCH pods/NAME/resize\` (strategic"
        echo "merge, as kubectl sends it) to the watch event whose status shows the new values read back"
        echo "from the kernel (\`containerStatuses[0].resources.limits\` with \`allocatedResources\`; the"
        echo "volume's \`volumeStatus.emptyDir.sizeLimit\`) and neither PodResizeInProgress nor"
        echo "PodResizePending."
        echo
        echo "| series | p50 | p90 | p99 | max | min |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        row "limits (cpu + memory), $RESIZES" limits
        row "  of which up" limits.up
        row "  of which down" limits.down
        row "volume sizeLimit, $RESIZES" volume
        row "  of which up" volume.up
        row "  of which down" volume.down
        echo
        echo "Floor, same run (run $best of 2: before the node started and after it stopped; the lower"
        echo "p50), $FLOOR_RUNS runs each, alternating up and down, in ms:"
        echo
        echo "| floor | p50 | p90 | p99 | max | min |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        floor_row "limits: 6 cgroup files written (pod then container up, container then pod down)" floor.cgroup_us
        floor_row "volume: mount(2) MS_REMOUNT size= on a tmpfs" floor.remount_us
        floor_row "one checkpoint: write + fsync + rename + fsync dir ($data_fs)" floor.checkpoint_us
        echo
        echo "The cgroup files are memory.limit_in_bytes, cpu.cfs_quota_us and cpu.shares of a pod cgroup"
        echo "and of its child holding a process (open, write, close each), on this cgroup v1 host; p50 per"
        echo "resize, both cgroups: memory.limit_in_bytes $(f floor.memory_limit_us.p50) µs, cpu.cfs_quota_us"
        echo "$(f floor.cfs_quota_us.p50) µs, cpu.shares $(f floor.cpu_shares_us.p50) µs. The checkpoint is what the agent's design adds"
        echo "to any resize: allocated.json made durable before anything is applied."
        echo
        echo "Ratios end-to-end / floor, p50: limits **$(ratio_ms_us limits.latency_ms.p50 floor.cgroup_us.p50)×**"
        echo "($(ratio_ms_sum limits.latency_ms.p50 floor.cgroup_us.p50 floor.checkpoint_us.p50)× against cgroup writes plus one durable checkpoint),"
        echo "volume **$(ratio_ms_us volume.latency_ms.p50 floor.remount_us.p50)×** ($(ratio_ms_sum volume.latency_ms.p50 floor.remount_us.p50 floor.checkpoint_us.p50)× with a checkpoint)."
        echo
        echo "Where it goes, as the client sees it (p50, ms from the PATCH; events: the pod's MODIFIED"
        echo "events per resize, mean):"
        echo
        echo "| series | PATCH answered | spec event | PodResizeInProgress seen | new values seen | done | events |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        split_row limits limits
        split_row volume volume
        echo
        echo "## $PODS pods resized at once"
        echo
        echo "One thread and one warm connection per pod, released together; total is from the release"
        echo "to the last pod seen done."
        echo
        echo "| resize | total | last PATCH answered | per pod p50 | p99 | max |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        burst_row "limits up" burst.limits.up
        burst_row "limits down" burst.limits.down
        burst_row "volume up" burst.volume.up
        burst_row "volume down" burst.volume.down
        if [ -n "${R[trace.limits.matched]:-}" ]; then
                echo
                echo "## Where the time goes (uprobes)"
                echo
                echo "$TRACE_RESIZES more resizes of each kind with uprobes on the agent (entry and return of"
                echo "sync_all, pod_worker_sync, api_client_request, pod_resize_admit, pod_resize_actuate,"
                echo "fs_write_file_atomic, cgroup_set_limits, emptydir_resize, pod_status_build), recorded by"
                echo "\`perf record -k CLOCK_MONOTONIC\` on the clock resize-bench stamps its PATCHes with. Pass A"
                echo "is the first sync pass that starts after the new spec reached the watch: it admits and"
                echo "actuates. p50 in ms (the probes add a few µs per hit; these series' latencies, p50"
                echo "$(f trace.limits.e2e.latency_ms.p50) and $(f trace.volume.e2e.latency_ms.p50), compare with the untraced ones above):"
                echo
                echo "| series | PATCH → spec seen | → pass A starts | pass A | pass A end → done seen | total | passes touched |"
                echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
                trace_row limits trace.limits
                trace_row volume trace.volume
                echo
                echo "Inside pass A, the resizing pod's own work (p50 / p99 ms): admission"
                echo "$(f trace.limits.admit_ms.p50 2) / $(f trace.limits.admit_ms.p99 2), actuation $(f trace.limits.actuate_ms.p50 2) / $(f trace.limits.actuate_ms.p99 2) (limits),"
                echo "$(f trace.volume.admit_ms.p50 2) / $(f trace.volume.admit_ms.p99 2) and $(f trace.volume.actuate_ms.p50 2) / $(f trace.volume.actuate_ms.p99 2) (volume); of that, fsynced checkpoints"
                echo "$(f trace.limits.checkpoint_ms.p50 2) ms in $(f trace.limits.checkpoints.p50 0) writes (limits), $(f trace.volume.checkpoint_ms.p50 2) ms in $(f trace.volume.checkpoints.p50 0) (volume); cgroup_set_limits"
                echo "$(f trace.limits.cgroup_set_ms.p50 2) ms; emptydir_resize $(f trace.volume.remount_ms.p50 2) ms."
                echo
                echo "Every sync pass during the traced limits series ($(f trace.limits.pass.duration_ms.n 0) passes in $(f trace.limits.window_s 1) s):"
                echo
                echo "| per pass | p50 | p90 | p99 | max |"
                echo "| --- | ---: | ---: | ---: | ---: |"
                for s in duration_ms steps_ms requests_ms status_build_ms other_ms steps requests; do
                        echo "| $s | $(f "trace.limits.pass.$s.p50") | $(f "trace.limits.pass.$s.p90") | $(f "trace.limits.pass.$s.p99") | $(f "trace.limits.pass.$s.max") |"
                done
                echo
                echo "steps_ms: time inside pod_worker_sync; requests_ms: inside api_client_request on the"
                echo "sync thread (status PATCHes and events); other_ms: the rest of the pass. One pod step:"
                echo "p50 $(f trace.limits.step_ms.p50 3) ms, p99 $(f trace.limits.step_ms.p99 3); one request p50 $(f trace.limits.request_ms.p50 3) ms, p99 $(f trace.limits.request_ms.p99 3)."
        fi
        if [ -n "$PERF_FLAT" ]; then
                echo
                echo "## Profile of flexlet serve over $PROFILE_RESIZES limit resizes (perf, cpu-clock)"
                echo
                echo "Self time by symbol (>= 1.5%):"
                echo
                echo '```'
                echo "$PERF_FLAT"
                echo '```'
                echo
                echo "Inclusive time (children included, >= 5%):"
                echo
                echo '```'
                echo "$PERF_TREE"
                echo '```'
        fi
        echo
        echo "1-min load average as each phase started:${LOADS%,}."
} >"$out"
cat "$out"
echo "report written to $out" >&2
