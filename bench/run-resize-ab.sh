#!/usr/bin/env bash
# run-resize-ab.sh: compares two builds of flexlet on in-process resize latency in one run, as
# root. Two `flexlet serve`s run side by side (own data dir, port, cgroup root, pod bridge), PODS
# busybox pods each as bench/run-resize-bench.sh makes them; then ROUNDS rounds of one-at-a-time
# series (COUNT limit resizes, COUNT volume resizes) on A then B, B then A in even rounds, so what
# the shared host does to one it does to the other. Resize latency on this 2-CPU machine moves by
# a millisecond between runs of the same build; run this way, one build against itself comes out
# within 5% at p50 (0.96 and 1.05: bench/results/resize-ab-2026-11-28.md, its second part). The
# report (pooled p50/p90/p99 of each build and B/A) goes to stdout and
# bench/results/resize-ab-<UTC date>.md. Everything it made is removed on exit, failure and
# Ctrl-C included.
#
# Usage: bench/run-resize-ab.sh FLEXLET_A FLEXLET_B [LABEL_A LABEL_B]
# Environment: BUILD (where resize-bench is built, default build-resizebench), PODS (100), ROUNDS
# (8), COUNT (150), WARMUP (50 per kind and server).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build-resizebench}
PODS=${PODS:-100}
ROUNDS=${ROUNDS:-8}
COUNT=${COUNT:-150}
WARMUP=${WARMUP:-50}

die() {
        echo "run-resize-ab.sh: $*" >&2
        exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (cgroups, mounts, namespaces)"
[ $# -ge 2 ] || die "usage: run-resize-ab.sh FLEXLET_A FLEXLET_B [LABEL_A LABEL_B]"
declare -A BIN=([A]=$(readlink -f "$1") [B]=$(readlink -f "$2")) LABEL=([A]=${3:-$1} [B]=${4:-$2})
for s in A B; do
        [ -x "${BIN[$s]}" ] || die "${BIN[$s]} is not an executable"
done
make -C bench BUILD="$BUILD" "../$BUILD/bench/resize-bench" >/dev/null
RB="$ROOT/$BUILD/bench/resize-bench"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/flexlet-resizeab.XXXXXX")
declare -A DIR PORT PID K

cgroup_dirs() { # the cgroup folders of both servers' roots, on every hierarchy
        local s d
        for s in A B; do
                for d in /sys/fs/cgroup/*/"flexlet-resizeab-$$$s" /sys/fs/cgroup/"flexlet-resizeab-$$$s"; do
                        [ -d "$d" ] && echo "$d"
                done
        done
        return 0
}
cleanup() {
        local s d left
        set +e
        trap - EXIT INT TERM
        for s in A B; do
                [ -n "${PID[$s]:-}" ] && kill "${PID[$s]}" 2>/dev/null
        done
        for s in A B; do
                [ -n "${PID[$s]:-}" ] && wait "${PID[$s]}" 2>/dev/null
        done
        for _ in 1 2 3 4 5 6 7 8 9 10; do
                for d in $(cgroup_dirs); do
                        # shellcheck disable=SC2038 # the files hold pids, one a line
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                processes_mentioning "$WORK" | xargs -r kill -9 2>/dev/null
                sleep 0.5
                left=0
                for d in $(cgroup_dirs); do
                        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                        [ -d "$d" ] && left=1
                done
                [ "$left" = 0 ] && [ -z "$(processes_mentioning "$WORK")" ] && break
        done
        awk -v dir="$WORK/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf --one-file-system "$WORK"
        ip link del "flxab$$A" 2>/dev/null
        ip link del "flxab$$B" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh # free_port
api_of() { # S: resize-bench's API arguments for server S
        echo --server "https://127.0.0.1:${PORT[$1]}" --ca "${DIR[$1]}/data/pki/ca.crt" \
                --token-file "${DIR[$1]}/data/pki/admin.token" --pods "$PODS"
}
n=0
for s in A B; do
        n=$((n + 1))
        DIR[$s]="$WORK/$s"
        mkdir -p "${DIR[$s]}"
        PORT[$s]=$(free_port)
        "${BIN[$s]}" serve --data-dir "${DIR[$s]}/data" --listen "127.0.0.1:${PORT[$s]}" \
                --node-name test-node --allocatable "cpu=64,memory=64Gi,pods=$((PODS + 10))" \
                --cgroup-root "flexlet-resizeab-$$$s" --feature-gates MemoryBackedVolumeResizeCgroupV1=true \
                --pod-cidr "10.$((125 + n)).0.0/16" --pod-bridge "flxab$$$s" >"${DIR[$s]}/server.log" 2>&1 &
        PID[$s]=$!
done
for s in A B; do
        for _ in $(seq 1 100); do
                curl -skf "https://127.0.0.1:${PORT[$s]}/readyz" >/dev/null 2>&1 && break
                kill -0 "${PID[$s]}" 2>/dev/null || die "server $s exited: $(tail -5 "${DIR[$s]}/server.log")"
                sleep 0.2
        done
        KUBECONFIG="${DIR[$s]}/data/kubeconfig" kubectl wait --for=condition=Ready node/test-node \
                --timeout=60s >/dev/null || die "server $s: the node is not Ready"
        # shellcheck disable=SC2046 # api_of's words are separate arguments
        "$RB" create $(api_of "$s") --timeout 900 >/dev/null || die "server $s: creating the pods failed"
        K[$s.limits]=0
        K[$s.volume]=0
done
sleep 3

series() { # S KIND COUNT KEY: one serial series on server S, its timestamps kept in WORK/KEY
        local s=$1 kind=$2 count=$3 key=$4
        # shellcheck disable=SC2046
        "$RB" serial $(api_of "$s") --kind "$kind" --count "$count" --first "${K[$s.$kind]}" \
                --key "$key" --events "$WORK/$key.events" >/dev/null || die "series $key failed"
        K[$s.$kind]=$((K[$s.$kind] + count))
}
for s in A B; do
        series "$s" limits "$WARMUP" "warm.$s.limits"
        series "$s" volume "$WARMUP" "warm.$s.volume"
done
load_start=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq 1 "$ROUNDS"); do
        order="A B"
        [ $((r % 2)) = 0 ] && order="B A"
        for s in $order; do
                series "$s" limits "$COUNT" "r$r.$s.limits"
                series "$s" volume "$COUNT" "r$r.$s.volume"
        done
        echo "# round $r of $ROUNDS done" >&2
done
load_end=$(cut -d' ' -f1 /proc/loadavg)

mkdir -p bench/results
out="bench/results/resize-ab-$(date -u +%Y-%m-%d).md"
python3 - "$WORK" "$ROUNDS" "$COUNT" "$PODS" "${LABEL[A]}" "${LABEL[B]}" "$load_start" "$load_end" \
        "$(nproc)" "$(uname -r)" <<'PY' | tee "$out"
import sys
work, rounds, count, pods, label_a, label_b, load0, load1, cpus, kernel = sys.argv[1:]
rounds = int(rounds)

def latencies(key):
    # resize-bench's --events: k pod up t_sent t_resp t_spec t_inprog t_actual t_done (ns)
    out = []
    for line in open(f"{work}/{key}.events"):
        if not line.startswith("#"):
            f = line.split()
            out.append((int(f[8]) - int(f[3])) / 1e6)
    return out

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))]

print(f"# In-place resize, two builds side by side")
print()
print(f"A: {label_a}  \nB: {label_b}")
print()
print(f"{cpus} CPUs, Linux {kernel}; 1-min load average {load0} at the first round, {load1} after the last.")
print(f"Two `flexlet serve`s with {pods} pods each; {rounds} rounds of {count} limit resizes and {count}")
print("volume resizes one at a time on A then B (B then A in even rounds), each timed from its PATCH")
print("to the watch event showing it done (bench/run-resize-bench.sh says what a resize is). ms.")
print()
print("| series | build | n | p50 | p90 | p99 | B/A p50 | B/A p99 |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for kind in ("limits", "volume"):
    v = {s: sum((latencies(f"r{r}.{s}.{kind}") for r in range(1, rounds + 1)), []) for s in "AB"}
    for s in "AB":
        ratio = " | "
        if s == "B":
            ratio = f"{pct(v['B'], .5) / pct(v['A'], .5):.2f} | {pct(v['B'], .99) / pct(v['A'], .99):.2f}"
        print(f"| {kind} | {s} | {len(v[s])} | {pct(v[s], .5):.2f} | {pct(v[s], .9):.2f} | "
              f"{pct(v[s], .99):.2f} | {ratio} |")
print()
print("p50 per round (ms), A / B:")
print()
print("| round | limits A | limits B | volume A | volume B |")
print("| ---: | ---: | ---: | ---: | ---: |")
for r in range(1, rounds + 1):
    cells = [f"{pct(latencies(f'r{r}.{s}.{k}'), .5):.2f}" for k in ("limits", "volume") for s in "AB"]
    print(f"| {r} | " + " | ".join(cells) + " |")
PY
echo "report written to $out" >&2
