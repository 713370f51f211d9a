#!/usr/bin/env bash
# run-feed-bench.sh: what the informers of `flexlet serve`'s controllers and scheduler cost, two
# binaries one after the other in one run, as root (issues 14 and 16: with the feed they list
# and watch from the API server's watch cache instead of loopback HTTPS). For each binary:
# starts serve, creates PODS busybox pods (hostNetwork, `sleep 3600`), waits for them Running,
# idles SETTLE seconds and records serve's RSS and threads; then RESIZES in-place resizes of the
# pods' cpu request (round-robin, sent by one curl process, then TAIL seconds for the node's
# status writes) under `perf record`, and reports serve's CPU seconds over that window and the
# share of its samples in the informers' collection threads (a stack through watch_main), the
# fed ones' among them, and JSON decoding, HTTP (libcurl, TLS) and the informer's map. Everything it
# made is removed after each binary (tests/lib/node.sh's cleanup). Report on stdout.
#
# Environment: BEFORE_BIN (required: the binary to compare with, e.g. main's build/flexlet),
# AFTER_BIN (default build/flexlet), PODS (100), RESIZES (200), SETTLE (15), TAIL (10).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
PODS=${PODS:-100}
RESIZES=${RESIZES:-200}
SETTLE=${SETTLE:-15}
TAIL=${TAIL:-10}
AFTER_BIN=${AFTER_BIN:-$ROOT/build/flexlet}

if [ "$(id -u)" -ne 0 ]; then
        echo "run-feed-bench.sh: needs root (cgroups, mounts, namespaces)" >&2
        exit 1
fi
if [ -z "${BEFORE_BIN:-}" ] || [ ! -x "$BEFORE_BIN" ] || [ ! -x "$AFTER_BIN" ]; then
        echo "run-feed-bench.sh: BEFORE_BIN and AFTER_BIN must be flexlet binaries" >&2
        exit 1
fi
command -v perf >/dev/null || {
        echo "run-feed-bench.sh: needs perf" >&2
        exit 1
}
# shellcheck source=tests/lib/tap.sh
source tests/lib/tap.sh
# shellcheck source=tests/lib/server.sh
source tests/lib/server.sh
# shellcheck source=tests/lib/node.sh
source tests/lib/node.sh
WORK_DIR=$(mktemp -d /tmp/flexlet-feed-bench.XXXXXX)
PERF_PID=
finish() {
        [ -n "$PERF_PID" ] && kill -INT "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
        node_cleanup
        rm -rf "$WORK_DIR"
}
trap finish EXIT

create() {
        local i
        for i in $(seq 1 "$PODS"); do
                cat <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"feed-$i"},"spec":{"hostNetwork":true,"terminationGracePeriodSeconds":0,
 "containers":[{"name":"c","image":"busybox","command":["sleep","3600"],"resources":{"requests":{"cpu":"1m","memory":"1Mi"}}}]}}
EOF
        done | k apply -f - >/dev/null
}

# resizes_config: a curl config of RESIZES resize PATCHes, pod after pod, the cpu request 2m
# then 1m on each pod's alternate turns
resizes_config() {
        local i p cpu token
        token=$(cat "$SERVER_DIR/data/pki/admin.token")
        for i in $(seq 0 $((RESIZES - 1))); do
                p=$((i % PODS + 1))
                cpu=$(((i / PODS) % 2 == 0 ? 2 : 1))m
                [ "$i" -gt 0 ] && echo "next"
                cat <<EOF
url = "https://127.0.0.1:$SERVER_PORT/api/v1/namespaces/default/pods/feed-$p/resize"
request = "PATCH"
insecure
silent
output = "/dev/null"
header = "Authorization: Bearer $token"
header = "Content-Type: application/strategic-merge-patch+json"
data = "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"$cpu\"}}}]}}"
EOF
        done
}

# breakdown PERF_SCRIPT_OUTPUT: "total informers fed json http map" sample counts; a sample is
# an informer's when a frame is watch_main (its collection's thread), a fed one's when a frame is
# the feed's (feed_list_watch, on_feed_list; the others list and watch over HTTP: the node
# agent's, which keeps its own identity); json, http and map charge informer samples to the
# innermost of JSON decoding (jansson's json_load*), HTTP (api_client_*: libcurl, TLS) and the
# informer's map (coll_put, coll_relist)
breakdown() {
        awk '
        function flush(   i, name, inf, fed, what) {
                if (n == 0)
                        return
                total++
                inf = fed = 0
                what = ""
                for (i = 1; i <= n; i++) {
                        name = f[i]
                        if (name == "watch_main")
                                inf = 1
                        if (name == "feed_list_watch" || name == "on_feed_list")
                                fed = 1
                        if (what != "")
                                continue
                        if (name ~ /^json_load/)
                                what = "json"
                        else if (name ~ /^api_client_/)
                                what = "http"
                        else if (name == "coll_put" || name == "coll_relist")
                                what = "map"
                }
                if (inf) {
                        informers++
                        fedn += fed
                        W[what]++
                }
                n = 0
        }
        /^ *[0-9]+ *$/ || /^$/ { flush(); next }
        { sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/ \(inlined\)$/, ""); f[++n] = $0 }
        END {
                flush()
                printf "%d %d %d %d %d %d\n", total, informers, fedn, W["json"], W["http"], W["map"]
        }' "$1"
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run NAME BIN: one binary's numbers, as "NAME rss_kib threads cpu_s seconds total informers
# fed json http map"
run() {
        local name=$1 bin=$2 running t0 t1 c0 c1 rss threads
        FLEXLET_BIN=$bin
        SERVER_DIR=$(mktemp -d /tmp/flexlet-feed-bench-srv.XXXXXX)
        SERVER_PORT=$(free_port)
        node_start --allocatable "cpu=64,memory=64Gi,pods=$((PODS + 10))" >/dev/null || exit 1
        k wait --for=condition=Ready node/test-node --timeout=60s >/dev/null
        create
        for _ in $(seq 1 600); do
                running=$(k get pods --no-headers 2>/dev/null | grep -c ' Running ' || true)
                [ "$running" -ge "$PODS" ] && break
                sleep 2
        done
        sleep "$SETTLE"
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$SERVER_PID/status")
        threads=$(awk '/^Threads:/ {print $2}' "/proc/$SERVER_PID/status")
        echo "# $name: $PODS pods Running, serve RSS $rss KiB, $threads threads; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
        resizes_config >"$WORK_DIR/$name.curl"
        perf record -q -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$SERVER_PID" \
                -o "$WORK_DIR/$name.data" >/dev/null 2>&1 &
        PERF_PID=$!
        sleep 1
        t0=$(date +%s.%N)
        c0=$(cpu_ticks "$SERVER_PID")
        curl -K "$WORK_DIR/$name.curl"
        sleep "$TAIL"
        c1=$(cpu_ticks "$SERVER_PID")
        t1=$(date +%s.%N)
        kill -INT "$PERF_PID"
        wait "$PERF_PID" 2>/dev/null
        PERF_PID=
        # the agent runs flexlet from a sealed copy at /flexlet (src/node/runtime/exeseal.c), a
        # path perf cannot open afterwards: a symbol tree of the host's folders and the binary
        mkdir -p "$WORK_DIR/symfs-$name"
        for d in /usr /lib /lib64 /bin /sbin; do
                [ -e "$d" ] && ln -sfn "$d" "$WORK_DIR/symfs-$name/"
        done
        ln -sf "$bin" "$WORK_DIR/symfs-$name/flexlet"
        perf script -i "$WORK_DIR/$name.data" --symfs "$WORK_DIR/symfs-$name" -F tid,ip,sym \
                >"$WORK_DIR/$name.txt" 2>/dev/null || true
        echo "$name $rss $threads $(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }') $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $(breakdown "$WORK_DIR/$name.txt")"
        node_cleanup >/dev/null 2>&1
        SERVER_PID=
}

echo "# flexlet informers: before vs after, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "before: $BEFORE_BIN; after: $AFTER_BIN; $PODS pods, $RESIZES resizes + ${TAIL}s"
echo
before=$(run before "$BEFORE_BIN")
after=$(run after "$AFTER_BIN")
# a sample is 1/499 s of CPU
echo "| | serve RSS MiB ($PODS pods) | threads | serve CPU s (window) | window s | samples | informer threads % (CPU s) | fed informers % (CPU s) | JSON decode % | HTTP % | map % |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for line in "$before" "$after"; do
        echo "$line" | awk '{ t = $6 ? $6 : 1
                printf "| %s | %.1f | %d | %.2f | %.1f | %d | %.1f (%.2f) | %.1f (%.2f) | %.1f | %.1f | %.1f |\n",
                       $1, $2 / 1024, $3, $4, $5, $6, 100 * $7 / t, $7 / 499, 100 * $8 / t, $8 / 499,
                       100 * $9 / t, 100 * $10 / t, 100 * $11 / t }'
done
echo
echo "$before" "$after" | awk '{ printf "after/before: RSS %.2f, serve CPU %.2f, informer samples %.2f\n", $13 / $2, $15 / $4, ($18 ? $18 : 0) / ($7 ? $7 : 1) }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
