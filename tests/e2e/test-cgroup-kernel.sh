#!/usr/bin/env bash
# test-cgroup-kernel.sh: the kernel behaviour flexlet's resize relies on, measured on this
# machine's cgroup version (v1 on the host, v2 in tests/vm/run.sh's guest) with no flexlet at
# all, as root. docs/cgroups.md records it:
#   - a memory limit below usage: v1 refuses it (EBUSY) and keeps the old one; v2 takes it,
#     reclaims, and OOM-kills what cannot be reclaimed (tmpfs pages without swap);
#   - v2 memory.high below usage is taken and only throttles (no kill); usage rising past it
#     (flexlet's decrease sets it before memory.max) is throttled, counted, never killed;
#   - a tmpfs remounted below what it holds is refused (EINVAL) on both;
#   - the OOM kill is counted where flexlet reads it: v1 memory.oom_control, v2 memory.events.
# It prints, as TAP comments, the time of 200 limit writes, on v2 of 100 decreases through
# memory.high, and of 200 tmpfs remounts (20 in the guest; the kernel
# floor of a resize; under the guest's emulation, not comparable with the host's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/node.sh"
node_require_root

NODE_CGROUP_ROOT=flexlet-kernel-$$
mem=$(cg_root memory)
work=$(mktemp -d /tmp/flexlet-kernel.XXXXXX)
pids=()
cleanup() {
        local p
        for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
        wait 2>/dev/null
        umount "$work/tmpfs" 2>/dev/null
        rm -rf "$work"
        for d in $(cg_dirs); do find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done
}
trap cleanup EXIT
if [ -n "$CGROUP_V2" ]; then
        limit_file=memory.max
        mkdir "$mem"
        echo "+memory" >"$mem/cgroup.subtree_control"
else
        limit_file=memory.limit_in_bytes
        mkdir -p "$mem"
fi

# hold BYTES CGROUP: a process in CGROUP that wrote BYTES into the tmpfs (charged to CGROUP)
hold() {
        mkdir -p "$2"
        sh -c "echo \$\$ > '$2/cgroup.procs'; head -c $1 /dev/zero > '$work/tmpfs/f-$(basename "$2")'; exec sleep 600" &
        pids+=($!)
        for _ in $(seq 1 100); do [ -f "$work/tmpfs/f-$(basename "$2")" ] && [ "$(stat -c %s "$work/tmpfs/f-$(basename "$2")")" = "$1" ] && break; sleep 0.1; done
}
mkdir "$work/tmpfs"
mount -t tmpfs -o size=256m tmpfs "$work/tmpfs"

# --- a limit below usage
hold 41943040 "$mem/below"
echo 134217728 >"$mem/below/$limit_file"
err=$( { echo 20971520 >"$mem/below/$limit_file"; } 2>&1)
if [ -z "$CGROUP_V2" ]; then
        check_output "v1: a memory limit below usage is refused with EBUSY" "Device or resource busy" echo "$err"
        check_equal "v1: the old limit stays" "134217728" "$(cg_get "$mem/below" memory)"
else
        check_equal "v2: a memory.max below usage is taken" "" "$err"
        sleep 1
        check_equal "v2: what cannot be reclaimed is OOM-killed (memory.events oom_kill)" "1" \
                "$(awk '$1 == "oom_kill" {print ($2 > 0)}' "$mem/below/memory.events")"
fi

# --- v2: memory.high below usage throttles, kills nothing
if [ -n "$CGROUP_V2" ]; then
        hold 41943040 "$mem/high"
        err=$( { echo 20971520 >"$mem/high/memory.high"; } 2>&1)
        check_equal "v2: a memory.high below usage is taken" "" "$err"
        sleep 1
        check_equal "v2: and kills nothing" "0" "$(awk '$1 == "oom_kill" {print $2}' "$mem/high/memory.events")"
        check "v2: its process lives on" kill -0 "${pids[-1]}"
fi

# --- v2: flexlet's decrease (docs/cgroups.md): memory.high at the new limit first; usage that
# rises after the usage check is throttled there, not killed, and the next look at
# memory.current sees it, so memory.max is not written and memory.high goes back to max
if [ -n "$CGROUP_V2" ]; then
        hold 25165824 "$mem/race"
        echo 134217728 >"$mem/race/memory.max"
        echo 29360128 >"$mem/race/memory.high"
        # the rise: one more 8 MiB write by the same cgroup, past the new limit (28 MiB)
        sh -c "echo \$\$ > '$mem/race/cgroup.procs'; exec dd if=/dev/zero of='$work/tmpfs/f-rise' bs=8M count=1" 2>/dev/null
        rc=$?
        cur=$(cat "$mem/race/memory.current")
        echo max >"$mem/race/memory.high"
        if [ "$rc" = 0 ] && [ "$cur" -gt 29360128 ]; then
                ok "v2: a rise past memory.high completes (throttled) and shows in memory.current"
        else
                not_ok "v2: a rise past memory.high completes (throttled) and shows in memory.current" "dd rc $rc, memory.current $cur"
        fi
        check_equal "v2: it is counted as a memory.high breach and kills nothing" "1 0" \
                "$(awk '$1 == "high" {h = ($2 > 0)} $1 == "oom_kill" {k = $2} END {print h, k}' "$mem/race/memory.events")"
        check_equal "v2: memory.max was never lowered" "134217728" "$(cat "$mem/race/memory.max")"
        check "v2: the holder lives on" kill -0 "${pids[-1]}"
        rm -f "$work/tmpfs/f-rise"
fi

# --- a tmpfs remounted below what it holds
err=$(mount -o remount,size=16m "$work/tmpfs" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && [ "$(df -B1 --output=size "$work/tmpfs" | tail -1 | tr -d ' ')" = 268435456 ]; then
        ok "a tmpfs remount below its usage is refused; the size stays"
else
        not_ok "a tmpfs remount below its usage is refused; the size stays" "rc $rc: $err"
fi

# --- the OOM kill, where flexlet reads it
mkdir -p "$mem/oom"
echo 33554432 >"$mem/oom/$limit_file"
sh -c "echo \$\$ > '$mem/oom/cgroup.procs'; exec dd if=/dev/zero of=/dev/null bs=100M count=1" 2>/dev/null
rc=$?
if [ -n "$CGROUP_V2" ]; then
        kills=$(awk '$1 == "oom_kill" {print $2}' "$mem/oom/memory.events")
else
        kills=$(awk '$1 == "oom_kill" {print $2}' "$mem/oom/memory.oom_control")
fi
check_equal "a process over the limit dies by SIGKILL (137), counted as an OOM kill" "137 1" "$rc $kills"

# --- the kernel floor of a resize: 200 limit writes, 200 remounts
mkdir -p "$mem/floor"
start=$(date +%s%N)
for i in $(seq 1 100); do
        echo 268435456 >"$mem/floor/$limit_file"
        echo 536870912 >"$mem/floor/$limit_file"
done
t_limit=$((($(date +%s%N) - start) / 200000))
floor_high=
if [ -n "$CGROUP_V2" ]; then
        # flexlet's v2 decrease: memory.high, a look at memory.current, memory.max, memory.high
        # back to max; each round also raises the limit again (one plain write)
        start=$(date +%s%N)
        for i in $(seq 1 100); do
                echo 268435456 >"$mem/floor/memory.high"
                read -r _ <"$mem/floor/memory.current"
                echo 268435456 >"$mem/floor/memory.max"
                echo max >"$mem/floor/memory.high"
                echo 536870912 >"$mem/floor/memory.max"
        done
        t_high=$((($(date +%s%N) - start) / 100000 - t_limit))
        floor_high=", $t_high µs per memory decrease through memory.high"
fi
# 200 remounts, 20 in tests/vm/run.sh's guest (FLEXLET_TEST_SLOW): there each mount(8) process
# costs about 0.4 s of emulation, which the measurement is not about
remounts=100
[ -n "${FLEXLET_TEST_SLOW:-}" ] && remounts=10
start=$(date +%s%N)
for i in $(seq 1 "$remounts"); do
        mount -o remount,size=128m "$work/tmpfs"
        mount -o remount,size=256m "$work/tmpfs"
done
t_mount=$((($(date +%s%N) - start) / (remounts * 2000)))
echo "# kernel floor ($( [ -n "$CGROUP_V2" ] && echo "cgroup v2" || echo "cgroup v1"), $(uname -r)): $t_limit µs per memory limit write$floor_high, $t_mount µs per tmpfs remount (a mount(8) process each, shell loop included; $((remounts * 2)) remounts)"
tap_done
