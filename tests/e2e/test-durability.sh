#!/usr/bin/env bash
# test-durability.sh: issue 14's durability check. Two `flexlet apiserver --store etcd` on a
# three-member etcd (Debian's, loopback), 64 clients creating ConfigMaps through both
# (tests/lib/writers.py: one keep-alive connection each, failing over to the other server on a
# connection error or a 5xx); mid-flight a SIGKILL of one apiserver, then of the etcd leader.
# Every write that was acknowledged (201) is present afterwards, with its value, read through the
# surviving apiserver, through the killed one restarted, and in etcd itself; writes went on
# after each kill. Needs no root; every etcd and apiserver is killed and the folder removed on
# exit, even on failure. Skips only when etcd is not installed. About 40 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
        echo "1..0 # SKIP etcd not installed"
        exit 0
fi

SERVER_DIR=$(mktemp -d /tmp/flexlet-durability.XXXXXX)
. "$here/../lib/etcd-cluster.sh"
WRITERS_PID=
durability_cleanup() {
        [ -n "$WRITERS_PID" ] && kill -9 "$WRITERS_PID" 2>/dev/null && wait "$WRITERS_PID" 2>/dev/null
        etcd_cluster_cleanup
        rm -rf "$SERVER_DIR"
}
trap durability_cleanup EXIT

etcd_cluster_start "flexlet-durability-$$"
check "a three-member etcd cluster is healthy" ec endpoint health
if apiserver_start a; then ok "apiserver A starts on etcd"; else not_ok "apiserver A starts on etcd"; fi
cp -a "$SERVER_DIR/a/pki" "$SERVER_DIR/pki-b"
if apiserver_start b --pki-dir "$SERVER_DIR/pki-b"; then ok "apiserver B starts"; else not_ok "apiserver B starts"; fi
CA=$SERVER_DIR/a/pki/ca.crt
TOKEN=$SERVER_DIR/a/pki/admin.token

# present SERVER: "NAME VALUE" of every ConfigMap of the writers, sorted, read through SERVER
present() {
        curl -sf --cacert "$CA" -H "Authorization: Bearer $(cat "$TOKEN")" \
                "${URL[$1]}/api/v1/namespaces/default/configmaps" |
                jq -r '.items[] | select(.metadata.name | startswith("w")) | "\(.metadata.name) \(.data.v)"' | sort
}
# missing SERVER: how many acknowledged writes SERVER does not hold with their value
missing() {
        comm -23 "$SERVER_DIR/acked.sorted" <(present "$1") | wc -l
}

python3 "$here/../lib/writers.py" --servers "${URL[a]},${URL[b]}" --ca "$CA" \
        --token-file "$TOKEN" --clients 64 --seconds 16 --out "$SERVER_DIR/acked" \
        >"$SERVER_DIR/writers.out" 2>&1 &
WRITERS_PID=$!
sleep 5
t_kill_a=$(date +%s.%N)
kill -9 "${PID[a]}"
wait "${PID[a]}" 2>/dev/null
PID[a]=
sleep 5
leader=$(etcd_leader)
check "etcd has a leader to kill" test -n "$leader"
t_kill_etcd=$(date +%s.%N)
if [ -n "$leader" ]; then
        kill -9 "${ETCD_PIDS[leader]}"
        wait "${ETCD_PIDS[leader]}" 2>/dev/null
        ETCD_PIDS[leader]=
fi
wait "$WRITERS_PID"
WRITERS_PID=
sed 's/^/# writers: /' "$SERVER_DIR/writers.out"
check "the 64 writers ran to the end" grep -q "^DONE " "$SERVER_DIR/writers.out"

acked=$(wc -l <"$SERVER_DIR/acked")
awk '{ print $2, $3 }' "$SERVER_DIR/acked" | sort >"$SERVER_DIR/acked.sorted"
before_a=$(awk -v t="$t_kill_a" '$1 < t && $3 ~ /-0$/' "$SERVER_DIR/acked" | wc -l)
between=$(awk -v a="$t_kill_a" -v e="$t_kill_etcd" '$1 > a && $1 < e' "$SERVER_DIR/acked" | wc -l)
after_etcd=$(awk -v t="$t_kill_etcd" '$1 > t' "$SERVER_DIR/acked" | wc -l)
echo "# acknowledged: $acked ($before_a through A before its kill, $between between the kills, $after_etcd after the etcd leader's)"
check "A acknowledged writes before its SIGKILL" test "$before_a" -gt 0
check "writes were acknowledged after A's SIGKILL (clients failed over to B)" test "$between" -gt 0
check "writes were acknowledged after the etcd leader's SIGKILL" test "$after_etcd" -gt 0
check_equal "every acknowledged write is present, with its value, through B" 0 "$(missing b)"
if apiserver_start a; then ok "A restarts on the two remaining members"; else not_ok "A restarts on the two remaining members"; fi
check_equal "and through the restarted A" 0 "$(missing a)"
stored=$(ec get /registry/configmaps/default/w --prefix --keys-only | grep -c '^/registry/')
echo "# etcd holds $stored of the writers' ConfigMaps (a write whose answer was lost may be there unacknowledged)"
check "etcd holds at least every acknowledged write" test "$stored" -ge "$acked"
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault" "$SERVER_DIR"/[ab].log; then
        not_ok "the apiservers ran cleanly" "$(grep -E -A12 "ERROR|runtime error" "$SERVER_DIR"/[ab].log | head -40)"
else
        ok "the apiservers ran cleanly"
fi
tap_done
