#!/usr/bin/env bash
# test-sqlite-durability.sh: the embedded store's durability under concurrent writers. 64 clients
# (tests/lib/writers.py: one keep-alive connection each) create ConfigMaps through `flexlet
# apiserver` on its default SQLite store, whose writers that queue together share one transaction
# and one fsync (group commit, src/store/store-sqlite.c); mid-flight the server is killed with
# SIGKILL and started again on the same data dir. Every write that was acknowledged (201) is
# present afterwards with its value, and the counter went on from where it was. About 15 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

WRITERS_PID=
durability_cleanup() {
        [ -n "$WRITERS_PID" ] && kill -9 "$WRITERS_PID" 2>/dev/null && wait "$WRITERS_PID" 2>/dev/null
        server_cleanup
}
SERVER_CLEANUP=durability_cleanup
if server_start; then ok "the apiserver starts on SQLite"; else
        not_ok "the apiserver starts on SQLite"
        tap_done
        exit 1
fi
URL=https://127.0.0.1:$SERVER_PORT
TOKEN=$SERVER_DIR/data/pki/admin.token
CA=$SERVER_DIR/data/pki/ca.crt

# present: "NAME VALUE" of every ConfigMap of the writers, sorted
present() {
        curl -sf --cacert "$CA" -H "Authorization: Bearer $(cat "$TOKEN")" \
                "$URL/api/v1/namespaces/default/configmaps" |
                jq -r '.items[] | select(.metadata.name | startswith("w")) | "\(.metadata.name) \(.data.v)"' | sort
}

python3 "$here/../lib/writers.py" --servers "$URL" --ca "$CA" --token-file "$TOKEN" --clients 64 \
        --seconds 6 --out "$SERVER_DIR/acked" >"$SERVER_DIR/writers.out" 2>&1 &
WRITERS_PID=$!
sleep 3
t_kill=$(date +%s.%N)
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
wait "$WRITERS_PID"
WRITERS_PID=
sed 's/^/# writers: /' "$SERVER_DIR/writers.out"
acked=$(awk -v t="$t_kill" '$1 < t' "$SERVER_DIR/acked" | wc -l)
echo "# acknowledged before the SIGKILL: $acked"
check "the writers had writes acknowledged before the SIGKILL" test "$acked" -gt 64
awk '{ print $2, $3 }' "$SERVER_DIR/acked" | sort >"$SERVER_DIR/acked.sorted"
if server_start; then ok "the apiserver starts again on the same data dir"; else not_ok "the apiserver starts again on the same data dir"; fi
check_equal "every acknowledged write is present, with its value" 0 \
        "$(comm -23 "$SERVER_DIR/acked.sorted" <(present) | wc -l)"
rv_before=$(curl -sf --cacert "$CA" -H "Authorization: Bearer $(cat "$TOKEN")" \
        "$URL/api/v1/namespaces/default/configmaps?limit=1" | jq -r .metadata.resourceVersion)
code=$(curl -s -o "$SERVER_DIR/after.json" -w '%{http_code}' --cacert "$CA" \
        -H "Authorization: Bearer $(cat "$TOKEN")" -H 'Content-Type: application/json' \
        -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after"}}' \
        "$URL/api/v1/namespaces/default/configmaps")
check_equal "a write after the restart is acknowledged" 201 "$code"
check "its resourceVersion follows the restored counter" \
        test "$(jq -r .metadata.resourceVersion "$SERVER_DIR/after.json")" -gt "$rv_before"
server_check_log
tap_done
