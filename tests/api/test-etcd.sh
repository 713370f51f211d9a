#!/usr/bin/env bash
# test-etcd.sh: `flexlet apiserver --store etcd` on a three-member etcd cluster (Debian's etcd on
# loopback ports, data in the test's folder) that serves clients over TLS and requires client
# certificates (--etcd-cafile/--etcd-certfile/--etcd-keyfile): real kubectl creates, lists, watches and patches
# pods; the objects sit under /registry/ as kube-apiserver keeps them; a watch from a version
# older than the compacted revision gets 410 Expired; kill -9 of the etcd member the apiserver
# talks to and writes go on through the others; a restarted apiserver keeps everything; with
# every member gone it still stops promptly on SIGTERM. Every
# etcd and the server are killed and their folder removed on exit, even on failure. Skips only
# when etcd is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
        echo "1..0 # SKIP etcd not installed"
        exit 0
fi

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
ETCD_PIDS=()
etcd_cleanup() {
        server_stop
        local p
        for p in "${ETCD_PIDS[@]}"; do
                [ -n "$p" ] && kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null
        done
        rm -rf "$SERVER_DIR"
}
SERVER_CLEANUP=etcd_cleanup
trap etcd_cleanup EXIT

# A CA, the members' serving certificate and the apiserver's client certificate.
pki=$SERVER_DIR/etcd-pki
mkdir -p "$pki"
cert() { # NAME CN USAGE: a P-256 key and a certificate the CA signs
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/$1.key" \
                -out "$pki/$1.csr" -subj "/CN=$2" 2>/dev/null &&
                openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
                        -CAcreateserial -out "$pki/$1.crt" -days 1 \
                        -extfile <(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=%s\n' "$3") 2>/dev/null
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/ca.key" \
        -out "$pki/ca.crt" -subj /CN=etcd-ca -days 1 2>/dev/null
# serverAuth alone: flexlet speaks gRPC, not the JSON gateway that would call etcd's own gRPC
# server with this certificate as a client one
cert server etcd serverAuth
cert client flexlet clientAuth
tls=(--etcd-cafile "$pki/ca.crt" --etcd-certfile "$pki/client.crt" --etcd-keyfile "$pki/client.key")

# Three members: client (TLS) and peer ports on loopback.
names=(m1 m2 m3)
clients=() peers=() cluster=
# six distinct ports: free_port only finds one nothing listens on yet, and may find it twice
ports=()
while [ "${#ports[@]}" -lt 6 ]; do
        port=$(free_port)
        [[ " ${ports[*]} " == *" $port "* ]] || ports+=("$port")
done
for i in 0 1 2; do
        clients[i]=https://127.0.0.1:${ports[2 * i]}
        peers[i]=http://127.0.0.1:${ports[2 * i + 1]}
        cluster+="${cluster:+,}${names[i]}=${peers[i]}"
done
endpoints=$(
        IFS=,
        echo "${clients[*]}"
)
etcd_start() {
        local i=$1
        # objects up to the store's 3 MiB cap need more than etcd's default 1.5 MiB request
        etcd --name "${names[i]}" --data-dir "$SERVER_DIR/etcd-${names[i]}" \
                --listen-client-urls "${clients[i]}" --advertise-client-urls "${clients[i]}" \
                --listen-peer-urls "${peers[i]}" --initial-advertise-peer-urls "${peers[i]}" \
                --initial-cluster "$cluster" --initial-cluster-state new \
                --initial-cluster-token "flexlet-test-$$" --max-request-bytes 8388608 \
                --cert-file "$pki/server.crt" --key-file "$pki/server.key" \
                --client-cert-auth --trusted-ca-file "$pki/ca.crt" \
                --logger zap --log-level error >>"$SERVER_DIR/etcd-${names[i]}.log" 2>&1 &
        ETCD_PIDS[i]=$!
}
for i in 0 1 2; do etcd_start "$i"; done
ectl() { # ENDPOINTS ARGS...
        local eps=$1
        shift
        ETCDCTL_API=3 etcdctl --endpoints "$eps" --command-timeout=5s --cacert "$pki/ca.crt" \
                --cert "$pki/client.crt" --key "$pki/client.key" "$@"
}
ec() { ectl "$endpoints" "$@"; }
for _ in $(seq 1 100); do
        ec endpoint health >/dev/null 2>&1 && break
        sleep 0.2
done
check "a three-member etcd cluster is healthy" ec endpoint health

# A short compaction interval, so the test sees one.
flags=(--store etcd --etcd-endpoints "$endpoints" --etcd-compaction-interval 1s "${tls[@]}")
check_fails "without a client certificate etcd refuses" \
        curl -sSf --cacert "$pki/ca.crt" -X POST "${clients[0]}/v3/kv/range" -d '{"key":"AA=="}'
FLEXLET_CHECK_DIR=$(mktemp -d "$SERVER_DIR/no-cert.XXXXXX")
check_output "and so does flexlet without it" "opening store on etcd" \
        timeout 60 "$FLEXLET_BIN" apiserver --data-dir "$FLEXLET_CHECK_DIR" --listen 127.0.0.1:0 \
        --store etcd --etcd-endpoints "${clients[0]}" --etcd-cafile "$pki/ca.crt"
if ! server_start "${flags[@]}"; then
        not_ok "flexlet apiserver --store etcd starts"
        tap_done
        exit 1
fi
ok "flexlet apiserver --store etcd starts and answers /readyz"
check "the default namespace gets its default ServiceAccount" wait_sa default

pod() {
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' "$1"
}

check "kubectl creates a pod" k create -f <(pod p1)
check_output "the pod is stored under /registry/pods/<namespace>/<name>" "/registry/pods/default/p1" \
        ec get /registry/pods/default/p1 --keys-only
check_output "namespaces are cluster-scoped keys" "/registry/namespaces/kube-system" \
        ec get /registry/namespaces/kube-system --keys-only
rv1=$(k get pod p1 -o jsonpath='{.metadata.resourceVersion}')
mod=$(ec get /registry/pods/default/p1 -w json | jq -r '.kvs[0].mod_revision')
check_equal "resourceVersion is etcd's mod_revision" "$mod" "$rv1"

# A watch through kubectl sees creates and patches.
k get pods -w -o 'custom-columns=NAME:.metadata.name,L:.metadata.labels.step' --no-headers \
        --request-timeout=30s >"$SERVER_DIR/watch.out" 2>&1 &
watch_pid=$!
for _ in $(seq 1 100); do grep -q p1 "$SERVER_DIR/watch.out" && break; sleep 0.1; done
check "kubectl creates a second pod" k create -f <(pod p2)
check "kubectl patches a pod" k patch pod p1 -p '{"metadata":{"labels":{"step":"patched"}}}'
for _ in $(seq 1 100); do grep -q "p1 *patched" "$SERVER_DIR/watch.out" && grep -q p2 "$SERVER_DIR/watch.out" && break; sleep 0.1; done
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
check_output "the watch saw the patch" "patched" cat "$SERVER_DIR/watch.out"
check_output "the watch saw the second pod" "p2" cat "$SERVER_DIR/watch.out"
check_output "kubectl lists both pods" "p1 p2" k get pods -o 'jsonpath={range .items[*]}{.metadata.name} {end}'
check_output "a stale update is 409 Conflict" "the object has been modified" \
        k replace -f <(k get pod p1 -o json | jq --arg rv "$rv1" '.metadata.resourceVersion=$rv')

# Compaction: once it has run past rv1, a watch from rv1 is 410 Expired.
for i in $(seq 1 5); do k create -f <(pod "c$i") >/dev/null; done
expired=
for _ in $(seq 1 100); do
        expired=$(api GET "/api/v1/namespaces/default/pods?watch=1&resourceVersion=$rv1&timeoutSeconds=1")
        [[ "$expired" == *'"code":410'* ]] && break
        sleep 0.2
done
check_output "a watch from before the compaction is 410 Expired" '"reason":"Expired"' echo "$expired"
check_output "etcd itself compacted" "compacted" ec get /registry/pods/default/p1 --rev="$rv1"
check "a list still works after compaction" k get pods p1 p2

# kill -9 the member the apiserver talks to (its first endpoint): writes go on.
kill -9 "${ETCD_PIDS[0]}"
wait "${ETCD_PIDS[0]}" 2>/dev/null
ETCD_PIDS[0]=
check "after kill -9 of one etcd member a create succeeds" k create -f <(pod p3)
check "and a patch" k patch pod p2 -p '{"metadata":{"labels":{"step":"after-kill"}}}'
check_output "and a list shows the new pod" "p3" k get pods -o name
check_output "and the write is in etcd" "/registry/pods/default/p3" \
        ectl "${clients[1]}" get /registry/pods/default/p3 --keys-only

# A restarted apiserver keeps everything.
rv_before=$(k get pod p2 -o jsonpath='{.metadata.resourceVersion}')
server_stop
if server_start "${flags[@]}"; then ok "the apiserver restarts on the remaining members"; else not_ok "the apiserver restarts on the remaining members"; fi
check_output "after a restart every pod is there" "p1 p2 p3" \
        k get pods p1 p2 p3 -o 'jsonpath={range .items[*]}{.metadata.name} {end}'
check_equal "and unchanged" "$rv_before" "$(k get pod p2 -o jsonpath='{.metadata.resourceVersion}')"
check_output "the patch survived" "after-kill" k get pod p2 -o 'jsonpath={.metadata.labels.step}'
check "and writes go on" k delete pod p3 --wait=false

# Every member gone: SIGTERM still stops the apiserver, its last requests to the store (the
# Leases it releases, its followers' reads) failing at once instead of each waiting out the
# store's 15 s retry window one after another.
for i in 1 2; do
        kill -9 "${ETCD_PIDS[i]}"
        wait "${ETCD_PIDS[i]}" 2>/dev/null
        ETCD_PIDS[i]=
done
kill "$SERVER_PID"
stopped=no
for _ in $(seq 1 200); do
        kill -0 "$SERVER_PID" 2>/dev/null || { stopped=yes; break; }
        sleep 0.1
done
check_equal "with every etcd member gone, SIGTERM still stops the apiserver within 20 s" yes "$stopped"
[ "$stopped" = yes ] || kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=

server_check_log
tap_done
