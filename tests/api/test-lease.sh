#!/usr/bin/env bash
# test-lease.sh: coordination.k8s.io/v1 Leases through the real kubectl against `flexlet
# apiserver`: create and get (kubectl 1.32 and 1.33), the Table columns, discovery, MicroTime
# (microseconds in JSON, seconds and nanoseconds in protobuf), upstream's validation messages,
# and the coordinated-leader-election fields dropped as with their 1.33 default gate. (The node
# lease itself: tests/e2e/test-node.sh.)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

lease() {
        cat <<JSON
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"$1"},
 "spec":{"holderIdentity":"$2","leaseDurationSeconds":$3,"leaseTransitions":$4,
         "renewTime":"2026-11-26T08:00:00.123456Z","strategy":"OldestEmulationVersion"}}
JSON
}

check "create a lease (kubectl 1.32)" sh -c "$(declare -f lease); lease a holder-a 40 0 | KUBECONFIG=$KUBECONFIG $KUBECTL_DIR/kubectl.1.32 create -f - >/dev/null"
lease b holder-b 15 2 | k create -f - >/dev/null
check_equal "get leases: NAME HOLDER AGE" "NAME HOLDER AGE a holder-a b holder-b" \
        "$(k get leases | tr -s ' \n' ' ' | sed 's/ [0-9]*s / /g; s/ [0-9]*s$//; s/ $//')"
check_equal "discovery: coordination.k8s.io/v1 leases" \
        "leases coordination.k8s.io/v1 true Lease" \
        "$(k api-resources --api-group=coordination.k8s.io --no-headers | tr -s ' ')"
check_equal "renewTime keeps its microseconds" "2026-11-26T08:00:00.123456Z" \
        "$(kv 1.33 get lease a -o jsonpath='{.spec.renewTime}')"
# K8S: Lease.spec is field 2, LeaseSpec.renewTime field 4, a MicroTime {seconds 1, nanos 2}
if command -v protoc >/dev/null; then
        check_equal "protobuf: spec.renewTime is field 2.4 with its nanoseconds" "1795680000 123456000" \
                "$(api GET /apis/coordination.k8s.io/v1/namespaces/default/leases/a -H 'Accept: application/vnd.kubernetes.protobuf' |
                        tail -c +5 | protoc --decode_raw | awk '/^2 \{/{s=1} s&&/^  2 \{/{t=1} t&&/^    4 \{/{r=1} r&&/^      [12]:/{printf "%s ", $2}' | sed 's/ $//')"
fi
check_equal "strategy is dropped (CoordinatedLeaderElection is off by default in 1.33)" "" \
        "$(k get lease a -o jsonpath='{.spec.strategy}')"
check_output "leaseDurationSeconds 0 is refused as upstream" \
        'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0' \
        sh -c "$(declare -f lease); lease c x 0 0 | KUBECONFIG=$KUBECONFIG $KUBECTL create -f - 2>&1"
check_output "negative leaseTransitions is refused as upstream" \
        'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0' \
        sh -c "$(declare -f lease); lease c x 10 -1 | KUBECONFIG=$KUBECONFIG $KUBECTL create -f - 2>&1"
check "renew by merge patch" k patch lease b --type=merge -p '{"spec":{"renewTime":"2026-11-26T08:01:00.000001Z","holderIdentity":"holder-c"}}'
check_equal "the renewal is stored" "holder-c 2026-11-26T08:01:00.000001Z" \
        "$(k get lease b -o jsonpath='{.spec.holderIdentity} {.spec.renewTime}')"
check "delete a lease" k delete lease a

server_check_log
tap_done
