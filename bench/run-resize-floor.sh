#!/usr/bin/env bash
# run-resize-floor.sh: the kernel floor of a resize (bench/resize-bench.c `floor`: a pod's and
# its container's cgroup files written directly, a tmpfs remount, one fsynced checkpoint) on
# this machine's cgroup version and, with --vm, on cgroup v2 in tests/vm/run.sh's qemu guest, as
# root. On v2 a lowered memory limit goes through memory.high first, as flexlet's does
# (docs/cgroups.md). The guest runs under TCG emulation: its numbers say what the v2 sequence
# costs relative to its own plain writes, nothing about a real v2 machine's speed.
#
#   bench/run-resize-floor.sh [--vm]
#
# Environment: BUILD (build folder, default build), FLOOR_RUNS (500). The report goes to stdout
# and, with --vm, to bench/results/resize-floor-<UTC date>.md. Everything it makes (cgroups, the
# tmpfs, its folder) is removed on exit, failure included.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
FLOOR_RUNS=${FLOOR_RUNS:-500}
RB="$ROOT/$BUILD/bench/resize-bench"

if [ "$(id -u)" -ne 0 ]; then
        echo "run-resize-floor.sh: needs root (cgroups, mounts)" >&2
        exit 1
fi

# measure: the floor on this kernel, as "key value" lines
measure() {
        local dir rc=0
        dir=$(mktemp -d "${TMPDIR:-/tmp}/flexlet-floor.XXXXXX")
        "$RB" floor --cgroup-root "flexlet-floor-$$" --dir "$dir/d" --runs "$FLOOR_RUNS" || rc=$?
        umount "$dir/d/vol" 2>/dev/null || true
        rm -rf "$dir"
        return "$rc"
}

# Inside the guest (tests/vm/guest-init.sh, PID 1 there, reads /run/flexlet-vm/vm.conf): TAP
# for run.sh's caller, the numbers as comments.
if [ -f /run/flexlet-vm/vm.conf ]; then
        if out=$(measure); then
                echo "ok 1 - the kernel floor of a resize on cgroup v2 ($(uname -r))"
                echo "$out" | sed 's/^/# /'
        else
                echo "not ok 1 - the kernel floor of a resize on cgroup v2"
        fi
        echo "1..1"
        exit 0
fi

make BUILD="$BUILD" -j"$(nproc)" "$BUILD/libflexlet.a" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/resize-bench" >/dev/null

declare -A R
while read -r k v; do R[host.$k]=$v; done < <(measure)
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then host_v=v2; else host_v=v1; fi
if [ "${1:-}" = --vm ]; then
        # the guest mounts its own /tmp: this script and the build are reached at their own path
        log=$(bash tests/vm/run.sh -t 900 "$ROOT/bench/run-resize-floor.sh")
        while read -r _ k v; do R[vm.$k]=$v; done < <(echo "$log" | grep -E '^# floor\.')
        [ -n "${R[vm.floor.cgroup_us.p50]:-}" ] || { echo "$log" >&2; exit 1; }
fi

f() { printf '%.0f' "${R[$1]:-0}"; }
row() { # label key
        if [ -n "${R[vm.$2.p50]:-}" ]; then
                echo "| $1 | $(f "host.$2.p50") | $(f "host.$2.p90") | $(f "vm.$2.p50") | $(f "vm.$2.p90") |"
        else
                echo "| $1 | $(f "host.$2.p50") | $(f "host.$2.p90") | | |"
        fi
}
report() {
        echo "# The kernel floor of a resize, cgroup $host_v here and v2 in the guest, $(date -u +%Y-%m-%d)"
        echo
        echo "bench/run-resize-floor.sh${*:+ $*}, $FLOOR_RUNS runs each alternating up and down, commit"
        echo "$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain -- src bench 2>/dev/null | grep -q . && echo ' with uncommitted changes in src/ or bench/'); host kernel $(uname -r), load average at the end:"
        echo "$(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (other work was running). The guest is Debian's kernel under"
        echo "qemu **TCG emulation** (tests/vm/run.sh): compare its rows with each other, not with the host's."
        echo
        echo "| µs | host ($host_v) p50 | p90 | guest (v2, TCG) p50 | p90 |"
        echo "| --- | ---: | ---: | ---: | ---: |"
        row "pod + container cgroups, 6 files" floor.cgroup_us
        row "&nbsp;&nbsp;growing" floor.cgroup_up_us
        row "&nbsp;&nbsp;shrinking (v2: memory through memory.high)" floor.cgroup_down_us
        row "memory limits of both (both ways)" floor.memory_limit_us
        row "cpu quotas of both (v1 cfs_quota_us, v2 cpu.max)" floor.cfs_quota_us
        row "cpu requests of both (v1 cpu.shares, v2 cpu.weight)" floor.cpu_shares_us
        row "tmpfs remount (mount(2) MS_REMOUNT)" floor.remount_us
        row "one checkpoint: write, fsync, rename, fsync dir" floor.checkpoint_us
        echo
        echo "The guest's checkpoint is on its tmpfs /tmp (nothing to sync); the host's on its disk."
}
report "$@"
if [ "${1:-}" = --vm ]; then
        mkdir -p bench/results
        report "$@" >"bench/results/resize-floor-$(date -u +%Y-%m-%d).md"
fi
