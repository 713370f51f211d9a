#!/usr/bin/env bash
# test-node-join.sh: `flexlet node` joins a cluster with the join token that `flexlet apiserver`
# writes (docs/joining-nodes.md), as root: the TLS bootstrap through CertificateSigningRequests
# (client and serving certificates, approved and signed by the certificates controller), the
# node Ready with its own identity system:node:NAME, a pod pinned to it running and its log,
# refusals of a garbage token, an unknown token and a token for another CA, a restart that keeps
# its certificates and re-adopts its pod, and failover when the first server given dies (a
# loopback TCP relay in front of the one apiserver, killed with SIGKILL: two apiservers cannot
# share one SQLite store).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

FLEXLET_COMMAND=apiserver
NODE=join-$$
JOIN_PIDS=()
join_cleanup() {
        local pid
        for pid in "${JOIN_PIDS[@]}"; do
                kill -9 "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        node_cleanup
}
SERVER_CLEANUP=join_cleanup

# the node's pods in this test's own range and bridge (node.sh), which the cleanup removes
if ! server_start --cluster-cidr "$NODE_POD_CIDR"; then
        not_ok "flexlet apiserver starts"
        tap_done
        exit 1
fi
ND=$SERVER_DIR/node
TOKEN=$SERVER_DIR/data/node-token
KPORT=$(free_port)
DEAD=$(free_port)

# --- the join token
check_equal "apiserver writes DATA_DIR/node-token, mode 0600" "600" "$(stat -c %a "$TOKEN")"
hash=$(sha256sum "$SERVER_DIR/data/pki/ca.crt" | cut -d' ' -f1)
id=$(sed -n 's/^K10[0-9a-f]*::\([a-z0-9]*\)\..*/\1/p' "$TOKEN")
check_equal "the token is K10<sha256 of the CA PEM>::<id>.<secret>" "K10$hash" "$(cut -d: -f1 "$TOKEN")"
check_equal "its bootstrap token Secret is in kube-system, for the node token group" \
        "bootstrap.kubernetes.io/token system:bootstrappers:flexlet:default-node-token" \
        "$(k get secret -n kube-system "bootstrap-token-$id" -o jsonpath='{.type} {.data.auth-extra-groups}' | { read -r t g; echo "$t $(echo "$g" | base64 -d)"; })"

# join ARGS...: flexlet node for $NODE under $ND, in the foreground (the refusals);
# join_bg ARGS...: the same in the background, its pid (the binary's own) in JOIN_PIDS
JOIN_FLAGS=(--data-dir "$ND" --node-name "$NODE" --cgroup-root "$NODE_CGROUP_ROOT"
        --kubelet-listen "0.0.0.0:$KPORT" --allocatable cpu=2,memory=2Gi
        --pod-bridge "$NODE_POD_BRIDGE" --cluster-cidr "$NODE_POD_CIDR")
join() {
        "$FLEXLET_BIN" node "${JOIN_FLAGS[@]}" "$@"
}
join_bg() {
        "$FLEXLET_BIN" node "${JOIN_FLAGS[@]}" "$@" >>"$SERVER_DIR/node.log" 2>&1 &
        JOIN_PIDS+=($!)
}

# --- refusals
echo "not-a-token" >"$SERVER_DIR/garbage"
check_output "a garbage token is refused" "the join token does not start with K10" \
        join --server "https://127.0.0.1:$SERVER_PORT" --token-file "$SERVER_DIR/garbage"
sed 's/::.*/::abcdef.0123456789abcdef/' "$TOKEN" >"$SERVER_DIR/unknown"
check_output "a token the cluster does not know is refused (401)" \
        "the API server refused the join token (401 Unauthorized)" \
        join --server "https://127.0.0.1:$SERVER_PORT" --token-file "$SERVER_DIR/unknown"
sed 's/^K10./K100/; t; s/^K10/K10/' "$TOKEN" >"$SERVER_DIR/wrong-ca"
[ "$(cut -c4 "$TOKEN")" = 0 ] && sed 's/^K10./K101/' "$TOKEN" >"$SERVER_DIR/wrong-ca"
check_output "a token for another CA is refused before the token is sent" \
        "is not the one the join token names" \
        join --server "https://127.0.0.1:$SERVER_PORT" --token-file "$SERVER_DIR/wrong-ca"
check_equal "no certificate request came from the refused joins" "" \
        "$(k get csr -o name 2>/dev/null)"

# --- the join, with a dead address first and a relay second
RELAY=$(free_port)
python3 -c '
import asyncio, sys
async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data); await w.drain()
    except Exception: pass
    finally: w.close()
async def handle(cr, cw):
    try: ur, uw = await asyncio.open_connection("127.0.0.1", int(sys.argv[2]))
    except Exception: cw.close(); return
    await asyncio.gather(pipe(cr, uw), pipe(ur, cw))
async def main():
    s = await asyncio.start_server(handle, "127.0.0.1", int(sys.argv[1]))
    async with s: await s.serve_forever()
asyncio.run(main())' "$RELAY" "$SERVER_PORT" &
RELAY_PID=$!
JOIN_PIDS+=("$RELAY_PID")
SERVERS="https://127.0.0.1:$DEAD,https://127.0.0.1:$RELAY,https://127.0.0.1:$SERVER_PORT"
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$RELAY") 2>/dev/null && break; sleep 0.1; done
join_bg --server "$SERVERS" --token-file "$TOKEN"
# kubectl wait fails at once on a Node not yet registered: wait for it to exist first
for _ in $(seq 1 300); do k get node "$NODE" >/dev/null 2>&1 && break; sleep 0.2; done
check_output "the joined node registers and is Ready" "condition met" \
        k wait --for=condition=Ready "node/$NODE" --timeout=60s
check_equal "two CSRs, approved and issued: the client one by the bootstrap token, the serving one by the node" \
        "kubernetes.io/kube-apiserver-client-kubelet system:bootstrap:$id Approved,Issued;kubernetes.io/kubelet-serving system:node:$NODE Approved,Issued;" \
        "$(k get csr --sort-by=.spec.signerName -o jsonpath='{range .items[*]}{.spec.signerName} {.spec.username} {.status.conditions[0].type},{.status.certificate}{";"}{end}' | sed 's/,[A-Za-z0-9+\/=]\{20,\};/,Issued;/g')"
check_equal "the node keeps its keys and certificates 0600 under its data dir" "600 600 600 600" \
        "$(stat -c %a "$ND/pki/node.key" "$ND/pki/node.crt" "$ND/pki/kubelet.key" "$ND/pki/kubelet.crt" | tr '\n' ' ' | sed 's/ $//')"
check_output "the node's client certificate is O=system:nodes, CN=system:node:$NODE" \
        "O = system:nodes, CN = system:node:$NODE" openssl x509 -in "$ND/pki/node.crt" -noout -subject
check_output "its Lease in kube-node-lease is renewed by the node" "$NODE" \
        k get lease -n kube-node-lease "$NODE" -o jsonpath='{.spec.holderIdentity}'

# --- a pod pinned to it, and its log through the kubelet endpoint
pod() {
        echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"nodeName\":\"$NODE\",\"terminationGracePeriodSeconds\":1,\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sh\",\"-c\",\"echo hello from \$HOSTNAME; sleep 3600\"]}]}}"
}
pod p1 | k create -f - >/dev/null
check_output "a pod pinned to the joined node runs" "condition met" k wait --for=condition=Ready pod/p1 --timeout=60s
until_equal "kubectl logs reaches the joined node's kubelet (its serving certificate, the API server's client certificate)" \
        "hello from p1" k logs p1
check_equal "kubectl exec reaches it too (the same client certificate, over the WebSocket proxy)" \
        "hi from p1" "$(k exec p1 -- sh -c 'echo hi from $HOSTNAME' 2>&1)"

# --- its identity: system:node:NAME, kept to its own pods' objects
NODE_CURL=(curl -s --cacert "$ND/pki/ca.crt" --cert "$ND/pki/node.crt" --key "$ND/pki/node.key")
check_output "the node authenticates as system:node:$NODE in system:nodes" "\"system:node:$NODE\"" \
        "${NODE_CURL[@]}" -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
        "https://127.0.0.1:$SERVER_PORT/apis/authentication.k8s.io/v1/selfsubjectreviews"
k create secret generic other-secret --from-literal=k=v >/dev/null
echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"elsewhere"},"spec":{"nodeName":"another-node","containers":[{"name":"c","image":"busybox","env":[{"name":"S","valueFrom":{"secretKeyRef":{"name":"other-secret","key":"k"}}}]}]}}' |
        k create -f - >/dev/null
check_output "the node may not read the Secret of a pod on another node (403)" \
        "no relationship found between node '$NODE' and this object" \
        "${NODE_CURL[@]}" "https://127.0.0.1:$SERVER_PORT/api/v1/namespaces/default/secrets/other-secret"

# --- failover: the server it talks to dies (SIGKILL of the relay); the next one takes over
kill -9 "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
pod p2 | k create -f - >/dev/null
check_output "after the first live server dies, a new pod on the node runs" "condition met" \
        k wait --for=condition=Ready pod/p2 --timeout=60s
t0=$(k get lease -n kube-node-lease "$NODE" -o jsonpath='{.spec.renewTime}')
until_equal "and the node still renews its Lease" "renewed" \
        sh -c "[ \"\$(KUBECONFIG=$KUBECONFIG $KUBECTL get lease -n kube-node-lease $NODE -o jsonpath='{.spec.renewTime}')\" != '$t0' ] && echo renewed"

# --- restart: the stored certificates, no token needed, the running pod re-adopted
kill "${JOIN_PIDS[-1]}"
wait "${JOIN_PIDS[-1]}" 2>/dev/null
if kill -0 "${JOIN_PIDS[-1]}" 2>/dev/null; then not_ok "the node stops on SIGTERM"; else ok "the node stops on SIGTERM"; fi
join_bg --server "https://127.0.0.1:$SERVER_PORT" --token-file /dev/null
until_equal "a restarted node uses its stored client certificate (no token read)" "1" \
        grep -c "using the stored client certificate" "$SERVER_DIR/node.log"
check_equal "and asks for no new certificate" "2" "$(k get csr -o name | wc -l)"
check_output "the restarted node is Ready" "condition met" \
        k wait --for=condition=Ready "node/$NODE" --timeout=30s
check_equal "its pod kept running through the restart" "0 Running" \
        "$(k get pod p1 -o jsonpath='{.status.containerStatuses[0].restartCount} {.status.phase}')"
until_equal "and its log is still served" "hello from p1" k logs p1

k delete pod p1 p2 elsewhere --grace-period=1 --wait=false >/dev/null 2>&1
# the node and the server stop cleanly, without a sanitizer report (ASan builds)
kill "${JOIN_PIDS[-1]}"
wait "${JOIN_PIDS[-1]}" 2>/dev/null
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$SERVER_DIR/node.log"; then
        not_ok "the node exits cleanly (no sanitizer report)" "$(grep -E -A12 "ERROR|runtime error" "$SERVER_DIR/node.log" | head -40)"
else
        ok "the node exits cleanly (no sanitizer report)"
fi
server_check_log
tap_done
