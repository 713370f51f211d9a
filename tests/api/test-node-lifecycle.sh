#!/usr/bin/env bash
# test-node-lifecycle.sh: the node lifecycle and taint eviction controllers against `flexlet
# apiserver` with a 1 s monitor period and a 4 s grace period, and three nodes the test plays
# the kubelet for (their Leases in kube-node-lease and their Ready condition): a node that goes
# silent turns Unknown with upstream's reason and message and gets the unreachable NoSchedule
# and NoExecute taints while the others stay Ready; DefaultTolerationSeconds gives pods their
# 300 s tolerations; a pod tolerating 2 s is evicted (DisruptionTarget, TaintManagerEviction)
# and the others stay, marked not Ready; the node back is untainted; and when every node is
# silent (full disruption) no NoExecute taint is kept. The node IPAM controller, given room for
# two nodes' subnets, gives two of them a podCIDR and reports CIDRNotAvailable on the third
# (once), which gets the subnet a deleted node frees.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit --node-monitor-period 1s --node-monitor-grace-period 4s \
        --cluster-cidr 10.99.0.0/23 --node-cidr-mask-size 24
ok "server starts and answers /readyz"

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
json() { api "$1" "$2" -H "Content-Type: ${4:-application/json}" -d "$3" >/dev/null; }
node_ready() {
        json PATCH "/api/v1/nodes/$1/status" \
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"lastHeartbeatTime\":\"$(now)\",\"lastTransitionTime\":\"$(now)\"}]}}" \
                application/strategic-merge-patch+json
}
for n in n1 n2 n3; do
        json POST /api/v1/nodes "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"$n\"}}"
        node_ready $n
        node_lease_keep $n
done

with_cidr() { k get nodes -o json | jq -r '[.items[] | select(.spec.podCIDR) | .spec.podCIDR] | sort | join(" ")'; }
check_equal_eventually() { for _ in $(seq 1 100); do [ "$(eval "$2")" = "$3" ] && break; sleep 0.2; done; check_equal "$1" "$3" "$(eval "$2")"; }
check_equal_eventually "node IPAM: two nodes get the two /24s of --cluster-cidr 10.99.0.0/23" with_cidr \
        "10.99.0.0/24 10.99.1.0/24"
starved=$(k get nodes -o json | jq -r '[.items[] | select(.spec.podCIDR | not) | .metadata.name] | join(" ")')
cidr_events() { k get events -o json | jq -r --arg n "$1" '[.items[] | select(.reason == "CIDRNotAvailable" and .involvedObject.name == $n) | "\(.type) \(.source.component) \(.involvedObject.kind) \(.message)"] | join(";")'; }
check_equal_eventually "and the third gets upstream's CIDRNotAvailable event" "cidr_events '$starved'" \
        "Normal cidrAllocator Node Node $starved status is now: CIDRNotAvailable"

pod() {
        json POST /api/v1/namespaces/default/pods \
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"nodeName\":\"n1\",\"tolerations\":$2,\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}"
}
pod brief '[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":2}]'
pod patient '[]'
pod forever '[{"operator":"Exists"}]'
check_equal "DefaultTolerationSeconds: 300 s for not-ready and unreachable" \
        "node.kubernetes.io/not-ready:NoExecute:300 node.kubernetes.io/unreachable:NoExecute:300" \
        "$(k get pod patient -o json | jq -r '[.spec.tolerations[] | "\(.key):\(.effect):\(.tolerationSeconds)"] | join(" ")')"
check_equal "DefaultTolerationSeconds: a pod tolerating everything gets nothing more" "1" \
        "$(k get pod forever -o json | jq '.spec.tolerations | length')"
json PATCH /api/v1/namespaces/default/pods/patient/status \
        "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"$(now)\"}]}}" \
        application/strategic-merge-patch+json
touch "$SERVER_DIR/silent-n1"

wait_for() { for _ in $(seq 1 ${3:-100}); do [ "$(eval "$1")" = "$2" ] && return 0; sleep 0.2; done; return 1; }
ready_of() { k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'; }
check "the silent node turns Unknown after the grace period" wait_for "ready_of n1" Unknown
check_equal "with upstream's reason and message" \
        "NodeStatusUnknown Kubelet stopped posting node status." \
        "$(k get node n1 -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason} {.status.conditions[?(@.type=="Ready")].message}')"
check_equal "the renewing nodes stay Ready" "True True" "$(ready_of n2) $(ready_of n3)"
taints_of() { k get node "$1" -o json | jq -r '[.spec.taints[]? | "\(.key):\(.effect)"] | sort | join(" ")'; }
check "the silent node gets the unreachable NoSchedule and NoExecute taints" wait_for "taints_of n1" \
        "node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unreachable:NoSchedule"
gone_or_deleting() { k get pod "$1" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null | grep -q . && echo yes || { k get pod "$1" >/dev/null 2>&1 || echo yes; }; }
check "the pod tolerating 2 s is evicted" wait_for "gone_or_deleting brief" yes
check_equal "with the DisruptionTarget condition" "True DeletionByTaintManager Taint manager: deleting due to NoExecute taint" \
        "$(k get pod brief -o jsonpath='{.status.conditions[?(@.type=="DisruptionTarget")].status} {.status.conditions[?(@.type=="DisruptionTarget")].reason} {.status.conditions[?(@.type=="DisruptionTarget")].message}')"
check_output "and the TaintManagerEviction event" "Marking for deletion Pod default/brief" \
        k get events --field-selector involvedObject.name=brief -o jsonpath='{.items[*].message}'
check_equal "pods tolerating longer stay" "no no" "$(gone_or_deleting patient || true)no $(gone_or_deleting forever || true)no"
check_equal "and are marked not Ready (NodeNotReady)" "False" \
        "$(k get pod patient -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')"
check_output "the NodeNotReady event" "Node is not ready" \
        k get events --field-selector involvedObject.name=patient -o jsonpath='{.items[*].message}'

# the kubelet comes back
rm "$SERVER_DIR/silent-n1"
node_ready n1
check "the node back is untainted" wait_for "taints_of n1" ""
check_equal "and Ready" "True" "$(ready_of n1)"

# every node silent: full disruption, no NoExecute taint kept
touch "$SERVER_DIR/silent-n1" "$SERVER_DIR/silent-n2" "$SERVER_DIR/silent-n3"
check "every node turns Unknown" wait_for '[ "$(ready_of n1)$(ready_of n2)$(ready_of n3)" = UnknownUnknownUnknown ] && echo all' all
no_execute() { k get nodes -o json | jq -r '[.items[].spec.taints[]? | select(.effect == "NoExecute")] | length'; }
check "a fully disrupted cluster keeps no NoExecute taint" wait_for no_execute 0 25
sleep 2
check_equal "and adds none" "0" "$(no_execute)"

# node IPAM: the subnet of a deleted node goes to the node that had none
freed=$(k get node n2 -o jsonpath='{.spec.podCIDR}')
[ -n "$freed" ] || freed=$(k get node n1 -o jsonpath='{.spec.podCIDR}')
holder=$(k get nodes -o json | jq -r --arg c "$freed" '.items[] | select(.spec.podCIDR == $c) | .metadata.name')
k delete node "$holder" >/dev/null
check_equal_eventually "node IPAM: a deleted node's subnet goes to the node without one" \
        "k get node '$starved' -o jsonpath='{.spec.podCIDR}'" "$freed"
check_equal "CIDRNotAvailable was reported once, not at every pass" "1" \
        "$(k get events -o json | jq --arg n "$starved" '[.items[] | select(.reason == "CIDRNotAvailable" and .involvedObject.name == $n)] | length')"

server_check_log
tap_done
