#!/usr/bin/env bash
# test-flood.sh: a connection flood and a slowloris from one address do not lock other clients
# out. From 127.0.0.2, tests/lib/flood.py holds 2,000 idle TCP connections (never a byte, so
# never a TLS handshake) and 1,000 TLS connections sending their request head one byte a second;
# meanwhile kubectl from 127.0.0.1 is answered, the server keeps a bounded number of threads, and
# connections past the per-address limit are closed at once. Then every flood connection is
# closed by its deadline: the idle ones by --tls-handshake-timeout, the slowloris ones by
# --request-head-timeout (a byte a second resets no deadline). Loopback only; about 35 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

IDLE=2000
SLOW=1000
EXTRA=200
PER_CLIENT=3100
HANDSHAKE_S=10
HEAD_S=25

# the flood and the server each need a descriptor per connection
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt $((IDLE + SLOW + EXTRA + 1000)) ]; then
        echo "1..0 # SKIP the open-file limit ($(ulimit -n)) cannot hold the flood"
        exit 0
fi

server_start_or_exit --max-connections 5000 --max-connections-per-client $PER_CLIENT \
        --tls-handshake-timeout ${HANDSHAKE_S}s --request-head-timeout ${HEAD_S}s --idle-timeout 60s
ok "server starts"
threads_before=$(awk '/^Threads:/ {print $2}' "/proc/$SERVER_PID/status")
rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status")
# the same command without a flood, for comparison (kubectl's own start-up is most of it); the
# first run fills kubectl's discovery cache
timeout 10 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" get pods -A >/dev/null 2>&1
start=$(date +%s%N)
timeout 10 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" get pods -A >/dev/null 2>&1
echo "# kubectl get pods without a flood: $((($(date +%s%N) - start) / 1000000)) ms"

flood_out="$SERVER_DIR/flood.out"
python3 "$here/../lib/flood.py" --port "$SERVER_PORT" --source 127.0.0.2 --idle $IDLE \
        --slowloris $SLOW --extra $EXTRA --max-seconds 55 --refused-within $((HANDSHAKE_S / 2)) >"$flood_out" 2>"$SERVER_DIR/flood.err" &
flood_pid=$!
cleanup() {
        kill "$flood_pid" 2>/dev/null
        wait "$flood_pid" 2>/dev/null
        server_cleanup
}
trap cleanup EXIT

for _ in $(seq 1 450); do
        grep -q '^READY' "$flood_out" && break
        kill -0 "$flood_pid" 2>/dev/null || break
        sleep 0.1
done
ready=$(sed -n 's/^READY //p' "$flood_out")
if [ -z "$ready" ]; then
        not_ok "the flood is held" "$(cat "$SERVER_DIR/flood.err")"
        tap_done
        exit 1
fi
echo "# flood: $ready"
check_equal "the server holds the $IDLE idle connections from 127.0.0.2" $IDLE "$(jq .held.idle <<<"$ready")"
check_equal "... and the $SLOW slowloris TLS connections" $SLOW "$(jq .held.slowloris <<<"$ready")"

# another client, from 127.0.0.1, while the flood is held
start=$(date +%s%N)
out=$(timeout 10 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" get pods -A 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "# kubectl get pods during the flood: ${ms} ms (exit $rc)"
if [ $rc -eq 0 ]; then ok "kubectl get pods from another address is answered during the flood"; else
        not_ok "kubectl get pods from another address is answered during the flood" "$out"; fi
check_equal "a raw request from another address is answered too" 200 \
        "$(curl -sk -o /dev/null -w '%{http_code}' --max-time 10 "https://127.0.0.1:$SERVER_PORT/readyz")"
threads=$(awk '/^Threads:/ {print $2}' "/proc/$SERVER_PID/status")
echo "# server threads: $threads_before before the flood, $threads during it"
# measured, not asserted: what the held connections cost (docs/api.md, "Connections and load")
echo "# server RSS: $((rss_before / 1024)) MiB before the flood, $(($(awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status") / 1024)) MiB during it"
# the server's own threads (controllers, informers, prober, pools) are there before the flood;
# thousands of connections must add no more than a few
if [ "$threads" -lt $((threads_before + 50)) ]; then ok "no thread per connection (threads: $threads_before, then $threads)"; else
        not_ok "no thread per connection" "threads: $threads_before before, $threads with $((IDLE + SLOW)) connections"; fi

wait "$flood_pid"
done_line=$(sed -n 's/^DONE //p' "$flood_out")
echo "# flood: $done_line"
j() { jq -r "$1" <<<"$done_line"; }
expected_refused=$((IDLE + SLOW + EXTRA - PER_CLIENT))
# refused at accept, long before the handshake deadline closes the ones that were let in
check_equal "connections past --max-connections-per-client are closed at once" \
        "$expected_refused" "$(j .extra.refused)"
check_equal "every idle connection is closed" "$IDLE" "$(j .idle.closed)"
check_equal "every slowloris connection is closed" "$SLOW" "$(j .slowloris.closed)"
check_equal "no slowloris connection got its head through" true "$(j ".slowloris.max_bytes_sent < 4200")"
# generous bounds: the deadline plus the sweep period and a loaded machine's lag
check_equal "idle connections are closed by the handshake deadline (${HANDSHAKE_S}s; min $(j .idle.min_s), max $(j .idle.max_s))" \
        true "$(j ".idle.min_s >= $HANDSHAKE_S - 2 and .idle.max_s <= $HANDSHAKE_S + 8")"
check_equal "slowloris connections are closed by the request-head deadline (${HEAD_S}s; min $(j .slowloris.min_s), max $(j .slowloris.max_s))" \
        true "$(j ".slowloris.min_s >= $HEAD_S - 1 and .slowloris.max_s <= $HEAD_S + 8")"
check_equal "the server still answers after the flood" 200 \
        "$(curl -sk -o /dev/null -w '%{http_code}' --max-time 10 "https://127.0.0.1:$SERVER_PORT/readyz")"
server_check_log
tap_done
