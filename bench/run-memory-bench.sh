#!/usr/bin/env bash
# run-memory-bench.sh: where `flexlet serve`'s memory and its pods' helpers' memory go, as root
# (issue 16's goals: serve's RSS at most 40 MiB at 500 pods and 60 MiB at 1000, the helpers
# excluded; the helpers at most 1 MiB PSS per pod). Starts serve, then for each count in COUNTS
# creates that many pods in all (busybox `sleep 3600`, hostNetwork: memory, not the pod network,
# is measured here), waits for them Running, lets serve idle SETTLE seconds and records:
#   serve: VmRSS split anon/file/shmem, threads, what jemalloc has allocated, in active pages,
#          for its own metadata and resident (gdb calls malloc_stats_print() in it when gdb is
#          here; the output lands in the server's log), and how much of it SQLite holds
#          (sqlite3_memory_used()), its CPU per second while it idled those SETTLE seconds, and
#          its VmRSS sampled every second of their second half (min, median, max: the heap
#          breathes between the idle wait's releases of freed pages, src/base/alloc.h);
#   helpers: every process of the pods' `supervise` (sandbox pid 1 and container supervisors):
#          RSS and PSS summed, per pod; and one helper's PSS by mapping (smaps).
# RSS and PSS do not depend on the machine's load; the load average is recorded all the same.
# Everything it made is removed on exit (tests/lib/node.sh's cleanup). Report on stdout.
#
# Environment: FLEXLET_BIN (default build/flexlet; its flexlet-helper beside it is used when
# there), COUNTS ("100 500"), SETTLE (180), SERVER_PORT (26400), SERVE_FLAGS (more flags for
# serve, e.g. "--watch-cache-bytes 1Mi" to see what the watch history holds).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
COUNTS=${COUNTS:-100 500}
# The watch history keeps 75 s of events (STORE_WATCH_FRESH_MS, upstream's eventFreshDuration):
# the creation's events, their JSON included, go 75 s after they were published, so the second
# half of 180 s idle is past them (sampled earlier, the RSS is still falling: 44.6 -> 39.6 MiB
# from 42 to 85 s at 500 pods).
SETTLE=${SETTLE:-180}
export SERVER_PORT=${SERVER_PORT:-26400}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-memory-bench.sh: needs root (cgroups, mounts, namespaces)" >&2
        exit 1
fi
# shellcheck source=tests/lib/tap.sh
source tests/lib/tap.sh
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh
# shellcheck source=tests/lib/node.sh
source tests/lib/node.sh
SERVER_DIR=$(mktemp -d /tmp/flexlet-memory-bench.XXXXXX)

max=0
for n in $COUNTS; do [ "$n" -gt "$max" ] && max=$n; done
# shellcheck disable=SC2086 # SERVE_FLAGS is words
node_start --allocatable "cpu=64,memory=64Gi,pods=$((max + 10))" ${SERVE_FLAGS:-} >/dev/null || exit 1
k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null

kib() { awk -v k="$2" '$1 == k ":" {print $2}' "$1"; }

# helpers: the pids of the pods' helper processes (their command line names the data dir)
helpers() {
        local p
        for p in /proc/[0-9]*; do
                [ "${p#/proc/}" = "$SERVER_PID" ] && continue
                { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "supervise.*$SERVER_DIR/data/pods/" &&
                        echo "${p#/proc/}"
        done
        return 0
}

# settle: sleeps SETTLE seconds and sets IDLE_CPU to serve's CPU time (user + system) per second
# over them, in ms (clock ticks of /proc/PID/stat), and IDLE_RSS to its VmRSS over their second half
settle() {
        local hz t0 t1
        hz=$(getconf CLK_TCK)
        t0=$(awk '{print $14 + $15}' "/proc/$SERVER_PID/stat")
        : >"$SERVER_DIR/rss-samples"
        for _ in $(seq 1 "$SETTLE"); do
                sleep 1
                awk '$1 == "VmRSS:" {print $2}' "/proc/$SERVER_PID/status" >>"$SERVER_DIR/rss-samples"
        done
        t1=$(awk '{print $14 + $15}' "/proc/$SERVER_PID/stat")
        IDLE_CPU=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$SETTLE" 'BEGIN {printf "%.1f", d * 1000 / hz / s}')
        # the RSS over the settle's second half (the first holds the creation's aftermath: its
        # watch history, its freed pages)
        IDLE_RSS=$(tail -n "$(((SETTLE + 1) / 2))" "$SERVER_DIR/rss-samples" | sort -n |
                awk '{v[NR] = $1} END {printf "min %.1f, median %.1f, max %.1f MiB (%d samples, 1 s apart)",
                        v[1] / 1024, v[int((NR + 1) / 2)] / 1024, v[NR] / 1024, NR}')
}

measure() {
        local pods=$1 pids p rss=0 pss=0 n=0 one
        echo "## $pods pods (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        echo
        echo "serve (pid $SERVER_PID): $(awk '/^(VmRSS|RssAnon|RssFile|RssShmem|Threads):/ {printf "%s %s %s; ", $1, $2, $3}' "/proc/$SERVER_PID/status")"
        echo "serve's CPU over the last $SETTLE s idle: $IDLE_CPU ms per second"
        echo "serve's VmRSS over the last $(((SETTLE + 1) / 2)) s idle: $IDLE_RSS"
        if command -v gdb >/dev/null; then
                local before
                before=$(wc -l <"$SERVER_DIR/server.log")
                # the binary by its path: the process runs it from the sealed view, no path gdb reads
                # "gmablxeh": jemalloc's totals line alone (no options, arenas, bins, extents)
                sqlite_bytes=$(timeout 120 gdb -q -batch "$FLEXLET_BIN" -p "$SERVER_PID" \
                        -ex 'call ((void (*)(void *, void *, const char *)) malloc_stats_print)(0, 0, "gmablxeh")' \
                        -ex 'print (long) sqlite3_memory_used()' 2>/dev/null | awk '/^\$1 = / {print $3}')
                sleep 0.5
                echo "jemalloc: $(tail -n +"$((before + 1))" "$SERVER_DIR/server.log" |
                        awk -F'[:,]' '/^Allocated:/ {printf "%.1f MiB allocated, %.1f in active pages, %.1f metadata, %.1f resident", $2/1048576, $4/1048576, $6/1048576, $8/1048576}')"
                echo "of which SQLite's (its page caches, sqlite3_memory_used()): $(awk -v b="${sqlite_bytes:-0}" 'BEGIN {printf "%.1f MiB", b/1048576}')"
        fi
        pids=$(helpers)
        for p in $pids; do
                [ -r "/proc/$p/smaps_rollup" ] || continue
                rss=$((rss + $(kib "/proc/$p/smaps_rollup" Rss)))
                pss=$((pss + $(kib "/proc/$p/smaps_rollup" Pss)))
                n=$((n + 1))
                one=$p
        done
        echo "helpers: $n processes, RSS $((rss / 1024)) MiB, PSS $((pss / 1024)) MiB in all;" \
                "per pod: RSS $((rss / pods)) KiB, PSS $((pss / pods)) KiB"
        if [ -n "${one:-}" ]; then
                echo
                echo "one helper (pid $one: $(tr '\0' ' ' <"/proc/$one/cmdline" | cut -c1-60)...), PSS by mapping, KiB:"
                echo
                awk '/^[0-9a-f]+-[0-9a-f]+ / {name = NF >= 6 ? $6 : "[anon]"} /^Pss:/ {pss[name] += $2}
                     END {for (m in pss) if (pss[m] > 0) printf "%6d %s\n", pss[m], m}' "/proc/$one/smaps" |
                        sort -rn | head -12 | sed 's/^/    /'
                echo "    (total $(kib "/proc/$one/smaps_rollup" Pss) KiB; Pss_Anon $(kib "/proc/$one/smaps_rollup" Pss_Anon), Pss_File $(kib "/proc/$one/smaps_rollup" Pss_File))"
        fi
        echo
}

create() {
        local from=$1 to=$2 i
        for i in $(seq "$from" "$to"); do
                cat <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"mem-$i"},"spec":{"hostNetwork":true,"terminationGracePeriodSeconds":0,
 "containers":[{"name":"c","image":"busybox","command":["sleep","3600"],"resources":{"requests":{"cpu":"1m","memory":"1Mi"}}}]}}
EOF
        done | k apply -f - >/dev/null
}

echo "# flexlet memory: $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
echo
echo "binary: $FLEXLET_BIN ${SERVE_FLAGS:-}; helper beside it: $([ -x "$(dirname "$FLEXLET_BIN")/flexlet-helper" ] && echo yes || echo no)"
echo
settle
measure_idle() {
        echo "## 0 pods (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        echo
        echo "serve (pid $SERVER_PID): $(awk '/^(VmRSS|RssAnon|RssFile|RssShmem|Threads):/ {printf "%s %s %s; ", $1, $2, $3}' "/proc/$SERVER_PID/status")"
        echo "serve's CPU over the last $SETTLE s idle: $IDLE_CPU ms per second"
        echo "serve's VmRSS over the last $(((SETTLE + 1) / 2)) s idle: $IDLE_RSS"
        echo
}
measure_idle
have=0
for n in $COUNTS; do
        create "$((have + 1))" "$n"
        have=$n
        for _ in $(seq 1 600); do
                running=$(k get pods --no-headers 2>/dev/null | grep -c ' Running ' || true)
                [ "$running" -ge "$n" ] && break
                sleep 2
        done
        settle
        measure "$n"
done
