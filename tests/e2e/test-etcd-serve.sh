#!/usr/bin/env bash
# test-etcd-serve.sh: `flexlet serve --store etcd`, as root: the whole single-node cluster on a
# one-member etcd (Debian's, on loopback ports, data in the test's folder): the node registers
# Ready, a pod runs, an in-place resize of its CPU and memory completes and reaches the cgroup,
# the pod's events sit in etcd on a lease (--event-ttl), and the pod is deleted to the end.
# etcd, the server and everything the pod made are removed on exit, even on failure. Skips only
# when not root or when etcd is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
        echo "1..0 # SKIP etcd not installed"
        exit 0
fi

SERVER_DIR=$(mktemp -d /tmp/flexlet-e2e.XXXXXX)
ETCD_PID=
etcd_serve_cleanup() {
        server_stop
        [ -n "$ETCD_PID" ] && kill -9 "$ETCD_PID" 2>/dev/null && wait "$ETCD_PID" 2>/dev/null
        node_cleanup
}
SERVER_CLEANUP=etcd_serve_cleanup
trap etcd_serve_cleanup EXIT

client=http://127.0.0.1:$(free_port)
peer=http://127.0.0.1:$(free_port)
etcd --data-dir "$SERVER_DIR/etcd" --listen-client-urls "$client" --advertise-client-urls "$client" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "default=$peer" --max-request-bytes 8388608 \
        --logger zap --log-level error >"$SERVER_DIR/etcd.log" 2>&1 &
ETCD_PID=$!
ec() { ETCDCTL_API=3 etcdctl --endpoints "$client" --command-timeout=5s "$@"; }
for _ in $(seq 1 100); do
        ec endpoint health >/dev/null 2>&1 && break
        sleep 0.1
done

node_test_start --store etcd --etcd-endpoints "$client"
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s
check_output "the node is stored in etcd" "/registry/nodes/test-node" ec get /registry/nodes/test-node --keys-only

k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":2,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","echo started; sleep 3600"],
                 "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}}]}}
JSON
check_output "the pod runs" "condition met" k wait --for=jsonpath='{.status.phase}'=Running pod/web --timeout=60s
until_equal "its log is read through the API" "started" k logs web

k patch pod web --subresource resize -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m","memory":"192Mi"}}}]}}' >/dev/null
until_equal "the resize completes: the status shows the new limits" "300m 192Mi" \
        k get pod web -o 'jsonpath={.status.containerStatuses[0].resources.limits.cpu} {.status.containerStatuses[0].resources.limits.memory}'
uid=$(k get pod web -o jsonpath='{.metadata.uid}')
cg=$(find "$(cg_root memory)" -type d -name "pod$uid" 2>/dev/null | head -1)
if [ -n "$cg" ]; then
        until_equal "and the pod's cgroup holds the new memory limit" "201326592" cg_get "$cg" memory
else
        not_ok "the pod's cgroup is found" "$(find "$(cg_root memory)" -maxdepth 3 -type d | head)"
fi
check_equal "the restart count stays 0" "0" "$(k get pod web -o 'jsonpath={.status.containerStatuses[0].restartCount}')"

ev=$(ec get /registry/events/default/ --prefix -w json | jq -r '[.kvs[]?.lease // empty] | length')
if [ "${ev:-0}" -gt 0 ]; then ok "the pod's events are in etcd on a lease"; else not_ok "the pod's events are in etcd on a lease" "$(ec get /registry/events/ --prefix --keys-only)"; fi

k delete pod web --wait=false >/dev/null
until_equal "the pod is deleted to the end" "" k get pods -o name
check_output "and gone from etcd" "" ec get /registry/pods/default/web --keys-only

server_check_log
tap_done
