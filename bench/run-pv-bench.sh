#!/usr/bin/env bash
# run-pv-bench.sh: benchmarks the growth of a persistent volume in one run, as root: for each
# fsType (xfs, btrfs, ext4), ROUNDS claims of 300Mi of a local-loop class, each used by a running
# busybox pod that wrote DATA_MIB of random data, grown one at a time to 900Mi, each timed from
# its PATCH to the watch event showing status.capacity 900Mi with no allocatedResourceStatuses and
# no resize condition, split into the controller's part (until the PersistentVolume's capacity)
# and the node's; ext4, which this kernel grows offline only, with the pod's delete and re-create
# timed apart. Beside it, in the same run just before each fsType's series, the raw floor of the
# same growth: truncate -s, losetup -c and the filesystem's own tool on a fresh volume, and
# flexlet's loopvol_grow alone. Every growth checks the data's checksum and the filesystem's new
# size. bench/pv-bench.c does the measuring. Everything it made (processes, mounts, loop devices,
# cgroups, folders) is removed on exit, failure and Ctrl-C included. The report goes to stdout
# and bench/results/pv-<UTC date>.md.
#
# Environment: BUILD (build folder, default build-pvbench), ROUNDS (20 claims per fsType),
# FLOOR_RUNS (ROUNDS), DATA_MIB (50), JITTER_MS (1000: the longest random pause before each
# growth's PATCH), FSTYPES ("xfs btrfs ext4"), BENCH_TMPDIR (parent of the data dir; default
# $TMPDIR or /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-pvbench}
ROUNDS=${ROUNDS:-20}
FLOOR_RUNS=${FLOOR_RUNS:-$ROUNDS}
DATA_MIB=${DATA_MIB:-50}
JITTER_MS=${JITTER_MS:-1000}
FSTYPES=${FSTYPES:-xfs btrfs ext4}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-pv-bench.sh: needs root (loop devices, mounts, cgroups, namespaces)" >&2
        exit 1
fi

log() { echo "# $*" >&2; }

# --- build: flexlet with the top Makefile, pv-bench with bench/Makefile
make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/pv-bench" >/dev/null
PB="$ROOT/$BUILD/bench/pv-bench"
# the commit as built (the tree may move during the run)
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- src | wc -l)
[ "$dirty" = 0 ] || commit="$commit, with $dirty uncommitted files in src/ (others' work in progress)"

export FLEXLET_BIN="$ROOT/$BUILD/flexlet" # read by server.sh
SERVER_DIR=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/flexlet-pvbench.XXXXXX")
# shellcheck disable=SC2034 # read by node.sh
NODE_CGROUP_ROOT="flexlet-pvbench-$$"
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh
# shellcheck source=tests/lib/node.sh
source tests/lib/node.sh

# node.sh's node_cleanup stops the server and removes the pods' cgroups, the mounts and loop
# devices under SERVER_DIR and SERVER_DIR itself; before it, the pods' helpers (outside the
# cgroups) and a pv-bench still running, each found by SERVER_DIR on its command line.
pv_cleanup() {
        set +e
        trap - EXIT INT TERM
        server_stop
        pgrep -f -- "$SERVER_DIR" | grep -vx "$$" | xargs -r kill -9 2>/dev/null
        node_cleanup
}
# shellcheck disable=SC2034 # read by server_start
SERVER_CLEANUP=pv_cleanup
trap pv_cleanup EXIT
trap 'exit 130' INT TERM

declare -A R
# pb ARGS...: runs pv-bench and keeps its "key value" lines in R.
pb() {
        local out k v
        out=$("$PB" "$@")
        while read -r k v; do
                [ -n "$k" ] && R[$k]=$v
        done <<<"$out"
}

# others_running: other flexlet servers and benchmarks on this (shared) machine, "none" if none
others_running() {
        local p n=0
        for p in $(pgrep -f 'flexlet (serve|apiserver)|/fuzz-|-bench ' 2>/dev/null); do
                [ "$p" = "${SERVER_PID:-}" ] && continue
                n=$((n + 1))
        done
        [ "$n" = 0 ] && echo none || echo "$n"
}
OTHERS_START=$(others_running)
LOADS=""
load() { LOADS="$LOADS $1 $(cut -d' ' -f1 /proc/loadavg),"; }

log "starting flexlet serve"
node_start --allocatable "cpu=64,memory=64Gi,pods=$((ROUNDS + 10))"
trap pv_cleanup EXIT
k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null
API=(--server "https://127.0.0.1:$SERVER_PORT" --ca "$SERVER_DIR/data/pki/ca.crt"
        --token-file "$SERVER_DIR/data/pki/admin.token")
t_start=$(date +%s)
for fs in $FSTYPES; do
        log "$fs: raw floor, $FLOOR_RUNS runs"
        load "floor-$fs"
        pb floor --fstype "$fs" --dir "$SERVER_DIR/floor-$fs" --runs "$FLOOR_RUNS" --data-mib "$DATA_MIB"
        log "$fs: $ROUNDS claims grown through the API"
        load "$fs"
        pb expand "${API[@]}" --fstype "$fs" --rounds "$ROUNDS" --data-mib "$DATA_MIB" \
                --jitter-ms "$JITTER_MS" --data-dir "$SERVER_DIR/data"
done
ELAPSED=$(($(date +%s) - t_start))
# every claim is deleted by now: its file, and so its loop device, should be gone
LOOPS_LEFT=$(losetup -a | grep -cF "$SERVER_DIR/" || true)
server_stop
OTHERS_END=$(others_running)

# --- report
v() { echo "${R[$1]:-?}"; }
f() { awk -v x="$(v "$1")" -v d="${2:-1}" 'BEGIN { if (x == "?") print "?"; else printf "%.*f", d, x }'; }
# ratio A B: A / B to one decimal
ratio() {
        awk -v a="$(v "$1")" -v b="$(v "$2")" 'BEGIN { if (a == "?" || b == "?" || b == 0) print "?"; else printf "%.0f", a / b }'
}
# sorted values of a series, to whole ms
values() { v "$1.values" | awk -F, '{ for (i = 1; i <= NF; i++) printf "%s%.0f", (i > 1 ? ", " : ""), $i }'; }

mem_gib=$(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
cpu_model=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
data_fs=$(df -PT "$SERVER_DIR" | awk 'NR == 2 {print $2}')
# tool_version TOOL [ARGS]: the first line the tool prints, without a date in brackets
tool_version() { { "$@" 2>&1 || true; } | head -1 | sed 's/ *(.*//; s/[[:space:]]*$//'; }

# main_row LABEL FS E2E RAW: end-to-end, raw and their ratios (p50, p99, mean)
main_row() {
        local e=$3 r=$4
        echo "| $1 | $(f "$e.p50") | $(f "$e.p99") | $(f "$e.mean") | $(f "$r.p50") | $(f "$r.p99") | $(f "$r.mean") | **$(ratio "$e.p50" "$r.p50")×** | $(ratio "$e.p99" "$r.p99")× | $(ratio "$e.mean" "$r.mean")× |"
}
dist_row() { # LABEL KEY
        echo "| $1 | $(f "$2.p50") | $(f "$2.p90") | $(f "$2.p99") | $(f "$2.max") | $(f "$2.min") | $(f "$2.mean") |"
}

mkdir -p bench/results
out="bench/results/pv-$(date -u +%F).md"
{
        echo "# flexlet persistent volume expansion benchmark, $(date -u '+%F %H:%M') UTC"
        echo
        echo "Commit $commit. Machine: $(nproc) CPUs ($cpu_model), $mem_gib GiB RAM, Linux $(uname -r),"
        echo "data dir (and the volumes' files) on $data_fs. $(tool_version xfs_growfs -V), $(tool_version btrfs --version),"
        echo "$(tool_version resize2fs). The machine is shared: 1-min load average as each"
        echo "phase started:${LOADS%,}; other flexlet servers, fuzzers and benchmarks running: $OTHERS_START at the"
        echo "start, $OTHERS_END at the end. The series took $ELAPSED s; loop devices of the run left"
        echo "attached after every claim was deleted: $LOOPS_LEFT."
        echo
        echo "\`flexlet serve\`; for each fsType a StorageClass of \`flexlet.io/local-loop\` with"
        echo "\`parameters.fsType\`, WaitForFirstConsumer, allowVolumeExpansion. $ROUNDS claims of 300Mi"
        echo "each, created at once with one busybox pod each, which writes ${DATA_MIB}MiB from /dev/urandom"
        echo "and syncs; then, one claim at a time, each after a random pause of 0 to $JITTER_MS ms (not"
        echo "counted: without it each PATCH would follow the last growth's end by the same delay, and"
        echo "so fall at the same point of any periodic loop in the server), \`PATCH"
        echo "persistentvolumeclaims/NAME\` (strategic merge, as \`kubectl patch\` sends it) of"
        echo "\`spec.resources.requests.storage\` to 900Mi. Times in ms,"
        echo "CLOCK_MONOTONIC, from sending the PATCH to the watch event (pv-bench watches pods, claims"
        echo "and volumes, each on its own connection). **Done**: the claim's \`status.capacity.storage\`"
        echo "is 900Mi, \`allocatedResourceStatuses\` is gone and no resize condition is left. After each"
        echo "growth the bench reads the data back from the host (O_DIRECT, from the device) and checks"
        echo "its checksum, and checks with statfs that the filesystem grew by at least 80% of the"
        echo "600Mi: it stops otherwise ($(v xfs.checked) + $(v btrfs.checked) + $(v ext4.checked) growths checked; ext4's"
        echo "filesystem went from $(v ext4.fs_before_kib) KiB to $(v ext4.fs_after_kib) KiB, xfs's $(v xfs.fs_before_kib) to"
        echo "$(v xfs.fs_after_kib), btrfs's $(v btrfs.fs_before_kib) to $(v btrfs.fs_after_kib))."
        echo
        echo "**Raw floor**, same run, just before each fsType's series: a fresh 300Mi sparse file formatted"
        echo "the same way (loopvol_create), attached to a loop device, ${DATA_MIB}MiB written and synced,"
        echo "mounted for xfs and btrfs, unmounted for ext4 (its growth is offline here, as the node's);"
        echo "then timed, each command spawned and waited for: \`truncate -s 943718400 FILE\`, \`losetup -c"
        echo "DEV\`, and \`xfs_growfs -d MOUNT\` / \`btrfs filesystem resize max MOUNT\` / \`resize2fs DEV\`;"
        echo "for ext4 the \`e2fsck -f -p DEV\` resize2fs demands of a filesystem mounted since its last"
        echo "check is timed apart. $FLOOR_RUNS runs each (after one not counted), the same checks after each."
        echo
        echo "## End-to-end against the raw floor"
        echo
        echo "With $ROUNDS growths a series, p99 is the slowest one."
        echo
        echo "| fsType, path | e2e p50 | e2e p99 | e2e mean | raw p50 | raw p99 | raw mean | ratio p50 | ratio p99 | ratio mean |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for fs in $FSTYPES; do
                case $fs in
                ext4)
                        main_row "ext4, offline: PATCH → FileSystemResizePending, + pod delete and re-create → done; raw without e2fsck" ext4 ext4.e2e_ms ext4.floor.raw_ms
                        main_row "ext4, the same; raw with e2fsck -f" ext4 ext4.e2e_ms ext4.floor.raw_fsck_ms
                        ;;
                *) main_row "$fs, online, pod running" "$fs" "$fs.e2e_ms" "$fs.floor.raw_ms" ;;
                esac
        done
        echo
        echo "## Where the time goes: online (xfs, btrfs)"
        echo
        echo "Controller: from the PATCH to the PersistentVolume's \`spec.capacity\` at 900Mi (the"
        echo "expander grew the file and the loop device). Node: from there to the claim done (the"
        echo "node agent grew the filesystem online and wrote the claim's status)."
        echo
        echo "| fsType: part | p50 | p90 | p99 | max | min | mean |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        for fs in $FSTYPES; do
                [ "$fs" = ext4 ] && continue
                dist_row "$fs: PATCH answered" "$fs.patch_ms"
                dist_row "$fs: **controller**, PATCH → PV capacity 900Mi" "$fs.controller_ms"
                dist_row "$fs: PATCH → NodeResizePending seen" "$fs.handover_ms"
                dist_row "$fs: **node**, PV capacity → claim done" "$fs.node_ms"
                dist_row "$fs: end-to-end" "$fs.e2e_ms"
        done
        echo
        echo "The node part, every growth (ms, sorted):"
        echo
        for fs in $FSTYPES; do
                [ "$fs" = ext4 ] && continue
                echo "- $fs: $(values "$fs.node_ms")"
        done
        echo
        case " $FSTYPES " in
        *" ext4 "*)
                echo "## Where the time goes: ext4 (offline)"
                echo
                echo "This kernel refuses to grow a mounted ext4 (EXT4_IOC_RESIZE_FS without CAP_SYS_RESOURCE),"
                echo "so the claim stays FileSystemResizePending until a pod mounts it again. After"
                echo "FileSystemResizePending shows, the bench waits 2 s (not counted: the user's part; it also"
                echo "checks that the claim does not finish online), then deletes the pod (its shell exits on"
                echo "SIGTERM), waits for its DELETED event and creates it again: the node runs e2fsck -f and"
                echo "resize2fs on the unmounted volume before mounting it. End-to-end above = PATCH →"
                echo "FileSystemResizePending + DELETE → claim done."
                echo
                echo "| ext4: part | p50 | p90 | p99 | max | min | mean |"
                echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
                dist_row "PATCH answered" ext4.patch_ms
                dist_row "**controller**, PATCH → PV capacity 900Mi" ext4.controller_ms
                dist_row "PATCH → FileSystemResizePending (and NodeResizePending)" ext4.pending_ms
                dist_row "pod DELETE → DELETED event" ext4.gone_ms
                dist_row "pod POST → claim done (offline growth)" ext4.create_done_ms
                dist_row "pod POST → pod Running" ext4.create_running_ms
                dist_row "**restart**: DELETE → claim done" ext4.restart_ms
                dist_row "end-to-end (pending + restart)" ext4.e2e_ms
                echo
                echo "POST → claim done, every growth (ms, sorted): $(values ext4.create_done_ms)."
                echo
                ;;
        esac
        echo "## The raw floor, part by part"
        echo
        echo "p50 (p99) in ms. loopvol_grow: flexlet's library call the expander and the node make"
        echo "between them (ftruncate + fsync, LOOP_SET_CAPACITY, then the tool: online for xfs and"
        echo "btrfs; for the unmounted ext4, e2fsck -f -p and resize2fs), on another fresh volume, no API."
        echo
        echo "| fsType | truncate -s | losetup -c | e2fsck -f -p | grow tool | raw (without e2fsck) | loopvol_grow |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        for fs in $FSTYPES; do
                fk="-"
                [ "$fs" = ext4 ] && fk="$(f ext4.floor.fsck_ms.p50) ($(f ext4.floor.fsck_ms.p99))"
                echo "| $fs | $(f "$fs.floor.truncate_ms.p50") ($(f "$fs.floor.truncate_ms.p99")) | $(f "$fs.floor.losetup_ms.p50") ($(f "$fs.floor.losetup_ms.p99")) | $fk | $(f "$fs.floor.tool_ms.p50") ($(f "$fs.floor.tool_ms.p99")) | $(f "$fs.floor.raw_ms.p50") ($(f "$fs.floor.raw_ms.p99")) | $(f "$fs.floor.loopvol_ms.p50") ($(f "$fs.floor.loopvol_ms.p99")) |"
        done
        echo
        echo "Setup (all $ROUNDS claims and pods created until each pod had written its data), not part"
        echo "of any number above:$(for fs in $FSTYPES; do printf ' %s %.1f s,' "$fs" "$(awk -v x="$(v "$fs.setup_ms")" 'BEGIN { print x / 1000 }')"; done | sed 's/,$/./')"
} >"$out"
cat "$out"
echo "report written to $out" >&2
