#!/usr/bin/env bash
# test-drain.sh: cordon, drain and uncordon of the real node through kubectl, as root: a cordoned
# node reads Ready,SchedulingDisabled and carries the unschedulable taint, a new pod stays Pending
# with the scheduler's message; `kubectl drain` evicts a running pod (an emptyDir, no controller:
# --force --delete-emptydir-data) through pods/eviction, is held by a PodDisruptionBudget that
# allows no disruption until its --timeout, and succeeds, waiting until the pod is gone, once the
# budget allows one; after uncordon the pending pod is scheduled.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# until_equal NAME WANT COMMAND...: polls (up to 30 s) until the command prints WANT
until_equal() {
        local name=$1 want=$2 got=""
        shift 2
        for _ in $(seq 1 150); do
                got=$("$@" 2>&1)
                [ "$got" = "$want" ] && break
                sleep 0.2
        done
        check_equal "$name" "$want" "$got"
}

k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","trap 'exit 0' TERM; while :; do sleep 1; done"],
                 "volumeMounts":[{"name":"scratch","mountPath":"/scratch"}]}],
  "volumes":[{"name":"scratch","emptyDir":{}}]}}
JSON
check_output "the pod is Ready" "condition met" k wait --for=condition=Ready pod/web --timeout=60s
check "create pdb web --min-available=1" k create pdb web --selector=app=web --min-available=1
until_equal "the budget allows no disruption of its one healthy pod" "1 1 0" \
        k get pdb web -o jsonpath='{.status.currentHealthy} {.status.desiredHealthy} {.status.disruptionsAllowed}'

# --- cordon
check_output "cordon" "node/test-node cordoned" k cordon test-node
check_equal "the node reads Ready,SchedulingDisabled" "Ready,SchedulingDisabled" \
        "$(k get node test-node --no-headers | awk '{print $2}')"
until_equal "the node lifecycle taints it unschedulable:NoSchedule" "node.kubernetes.io/unschedulable:NoSchedule" \
        k get node test-node -o jsonpath='{range .spec.taints[*]}{.key}:{.effect}{end}'
k run late --image=busybox --restart=Never --command -- sleep 3600 >/dev/null
until_equal "a new pod stays Pending: the node is unschedulable" \
        "Pending 0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." \
        k get pod late -o jsonpath='{.status.phase} {.status.conditions[?(@.type=="PodScheduled")].message}'

# --- drain, held by the budget, then allowed
out=$(k drain test-node --ignore-daemonsets --delete-emptydir-data --force --timeout=3s 2>&1)
rc=$?
if [ $rc -ne 0 ] && [[ $out == *"error when evicting pods/\"web\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."* ]] &&
        [[ $out == *"error when evicting pods/\"web\" -n \"default\": global timeout reached: 3s"* ]]; then
        ok "drain is held by the budget, retries with upstream's message and gives up at --timeout"
else
        not_ok "drain is held by the budget, retries with upstream's message and gives up at --timeout" "rc=$rc" "$out"
fi
check_equal "the pod still runs" Running "$(k get pod web -o jsonpath='{.status.phase}')"
k patch pdb web --type=merge -p '{"spec":{"minAvailable":0}}' >/dev/null
until_equal "the budget now allows one disruption" "1" k get pdb web -o jsonpath='{.status.disruptionsAllowed}'
check_output "drain evicts the pod and waits until it is gone (kubectl 1.32)" "node/test-node drained" \
        kv 1.32 drain test-node --ignore-daemonsets --delete-emptydir-data --force --timeout=60s
check_fails "the evicted pod is gone" k get pod web

# --- uncordon
check_output "uncordon" "node/test-node uncordoned" k uncordon test-node
until_equal "the taint goes" "" k get node test-node -o jsonpath='{.spec.taints}'
until_equal "the pending pod is scheduled on the node" "test-node" k get pod late -o jsonpath='{.spec.nodeName}'
check "delete the pods" k delete pod late --timeout=30s
check "delete the budget" k delete pdb web
tap_done
