#!/usr/bin/env bash
# test-daemonset.sh: apps/v1 DaemonSets end to end, as root, through the real kubectl against
# `flexlet serve` (its node runs real pods) and two fake Nodes kept Ready by their leases (their
# pods are bound by the scheduler but never run): a pod per eligible node, bound through the
# node affinity the controller sets; a NoSchedule-tainted node skipped until the DaemonSet
# tolerates it; a nodeSelector followed as nodes are labelled and unlabelled; a deleted node's
# pod gone; the status numbers; a RollingUpdate of a template change (rollout status, history
# from ControllerRevisions, undo, restart) on the real node; OnDelete.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

fake_node() {
        k create -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$1","labels":{"kubernetes.io/hostname":"$1"}},
 "spec":{${2:-}},
 "status":{"allocatable":{"cpu":"2","memory":"2Gi","pods":"10"},"capacity":{"cpu":"2","memory":"2Gi","pods":"10"},
  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ready"}]}}
JSON
        node_lease_keep "$1"
}
fake_node fa
fake_node fb '"taints":[{"key":"dedicated","value":"infra","effect":"NoSchedule"}]'

# ds NAME [SPEC_EXTRA_JSON] [POD_SPEC_EXTRA_JSON] [CONTAINER_EXTRA_JSON]: a DaemonSet of
# busybox that ends at once on SIGTERM
ds() {
        k create -f - >/dev/null <<JSON
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"$1"},
 "spec":{${2:+$2,}"selector":{"matchLabels":{"app":"$1"}},
  "template":{"metadata":{"labels":{"app":"$1"}},"spec":{${3:+$3,}"terminationGracePeriodSeconds":2,
   "containers":[{${4:+$4,}"name":"c","image":"busybox","command":["sh","-c","trap 'exit 0' TERM; while true; do sleep 1; done"]}]}}}}
JSON
}
# the nodes of an app's live pods (bound or not), sorted
nodes_of() {
        api GET "/api/v1/namespaces/default/pods?labelSelector=app%3D$1" |
                jq -r '[.items[] | select(.metadata.deletionTimestamp == null) | .spec.nodeName // .spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]] | sort | join(" ")'
}
status_of() { k get ds "$1" -o jsonpath='{.status.desiredNumberScheduled} {.status.currentNumberScheduled} {.status.numberMisscheduled}'; }

# --- a pod per eligible node; the tainted one is skipped
ds all
until_equal "a pod on each untainted node (fb's NoSchedule taint is not tolerated)" "fa test-node" nodes_of all
until_equal "desired 2, current 2, misscheduled 0" "2 2 0" status_of all
pod_fa=$(k get pods -l app=all -o json | jq -r '.items[] | select(.spec.nodeName == "fa") | .metadata.name')
check_equal "the pod is <ds>-xxxxx, owned by the DaemonSet, bound by the scheduler through its node affinity" \
        "yes DaemonSet true metadata.name In fa default-scheduler" \
        "$(case $pod_fa in all-?????) echo yes ;; esac) $(k get pod "$pod_fa" -o jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].controller} {.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key} {.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].operator} {.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]} {.spec.schedulerName}')"
check_equal "the daemon tolerations are added (not-ready and unreachable NoExecute, 4 NoSchedule)" \
        "node.kubernetes.io/disk-pressure:NoSchedule node.kubernetes.io/memory-pressure:NoSchedule node.kubernetes.io/not-ready:NoExecute node.kubernetes.io/pid-pressure:NoSchedule node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unschedulable:NoSchedule" \
        "$(k get pod "$pod_fa" -o json | jq -r '[.spec.tolerations[] | select(.operator == "Exists" and .tolerationSeconds == null) | "\(.key):\(.effect)"] | sort | join(" ")')"
until_equal "the pod on test-node runs and the DaemonSet counts it ready and available" "1 1" \
        k get ds all -o jsonpath='{.status.numberReady} {.status.numberAvailable}'
check "the tainted node is tolerated once the template says so" \
        k patch ds all --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete"},"template":{"spec":{"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]}}}}'
until_equal "then fb gets a pod too" "fa fb test-node" nodes_of all
check "delete node fa" k delete node fa --wait=false
until_equal "its pod goes with it" "fb test-node" nodes_of all
until_equal "desired 2 again" "2 2 0" status_of all

# --- a nodeSelector, followed as labels change
ds sel "" '"nodeSelector":{"role":"edge"}'
until_equal "a nodeSelector no node matches: nothing desired" "0 0 0" status_of sel
check "label test-node role=edge" k label node test-node role=edge
until_equal "the labelled node gets a pod" "test-node" nodes_of sel
check "label test-node role=core" k label node test-node role=core --overwrite
until_equal "relabelled away, its pod is deleted" "" nodes_of sel
check_equal "get ds: the node selector column" "sel 0 0 0 0 0 role=edge" \
        "$(k get ds sel --no-headers | awk '{print $1, $2, $3, $4, $5, $6, $7}')"

# --- RollingUpdate on the real node: rollout status, history, undo, restart
ds web '"minReadySeconds":0' '"nodeSelector":{"kubernetes.io/hostname":"test-node"}' '"resources":{"requests":{"cpu":"50m"}}'
check_output "rollout status returns" 'daemon set "web" successfully rolled out' \
        k rollout status ds/web --timeout=60s
web1=$(k get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
check "set image rolls out" k set image ds/web c=busybox:1.36
check_output "rollout status returns after set image" 'daemon set "web" successfully rolled out' \
        k rollout status ds/web --timeout=60s
check_equal "a new pod runs the new image, the old one is gone" "busybox:1.36 1" \
        "$(k get pods -l app=web -o json | jq -r "[.items[] | select(.metadata.deletionTimestamp == null and .metadata.name != \"$web1\")][0].spec.containers[0].image") $(k get pods -l app=web -o name | wc -l)"
check_equal "two ControllerRevisions web-<hash>, revisions 1 and 2, owned by the DaemonSet" "1 2" \
        "$(k get controllerrevisions -l app=web -o json | jq -r '[.items[] | select(.metadata.ownerReferences[0].name == "web") | .revision] | sort | join(" ")')"
check_equal "rollout history lists revisions 1 2" "1 2" \
        "$(k rollout history ds/web | awk '$1 ~ /^[0-9]+$/ {print $1}' | xargs)"
check_output "rollout undo" 'rolled back' k rollout undo ds/web
check_output "rollout status returns after undo" 'daemon set "web" successfully rolled out' \
        k rollout status ds/web --timeout=60s
check_equal "undo went back to busybox, as revision 3 (revision 1's ControllerRevision renumbered)" \
        "busybox 2 3" \
        "$(k get ds web -o jsonpath='{.spec.template.spec.containers[0].image}') $(k get controllerrevisions -l app=web -o name | wc -l) $(k get controllerrevisions -l app=web -o json | jq -r '[.items[].revision] | max')"
check "rollout restart" k rollout restart ds/web
check_output "rollout status returns after restart" 'daemon set "web" successfully rolled out' \
        k rollout status ds/web --timeout=60s
check_equal "the restarted pod carries the restartedAt annotation; up to date 1 of 1" "yes 1 1" \
        "$([ -n "$(k get pods -l app=web -o json | jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .metadata.annotations["kubectl.kubernetes.io/restartedAt"] // empty')" ] && echo yes) $(k get ds web -o jsonpath='{.status.updatedNumberScheduled} {.status.desiredNumberScheduled}')"
rp=$(k get pods -l app=web -o json | jq -r '[.items[] | select(.metadata.deletionTimestamp == null)][0].metadata.name')
check "resize the DaemonSet's pod in place" k patch pod "$rp" --subresource resize \
        -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"60m"}}}]}}'
check_output "describe ds reads the status and shows the resized pod (an Event ResizedPods)" \
        "Pod $rp runs resized in place: c requests.cpu 60m (template 50m)" \
        sh -c "for _ in \$(seq 1 100); do '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe ds web | grep -q ResizedPods && break; sleep 0.2; done; '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe ds web | grep -q 'Number of Nodes Scheduled with Up-to-date Pods: 1' && '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe ds web"

# --- OnDelete: a template change waits for the pod's deletion
web_pod() { k get pods -l app=web -o json | jq -r '[.items[] | select(.metadata.deletionTimestamp == null)][0].metadata.name'; }
check "switch to OnDelete and change the image" \
        k patch ds web --type=merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null},"template":{"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}}}'
p=$(web_pod)
until_equal "OnDelete: the pod stays, not up to date" "0 $p" \
        sh -c "echo \$('$KUBECTL' --cache-dir '$SERVER_DIR/cache' get ds web -o jsonpath='{.status.updatedNumberScheduled}') $p"
check "delete the pod" k delete pod "$p" --wait=false
until_equal "its replacement runs the new template" "busybox:1.36" \
        sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' get pods -l app=web -o json | jq -r '[.items[] | select(.metadata.deletionTimestamp == null and .metadata.name != \"$p\")][0].spec.containers[0].image'"

check "delete the DaemonSets (their pods go with them)" k delete ds --all --timeout=60s
until_equal "no pod is left on test-node" 0 sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' get pods --field-selector spec.nodeName=test-node -o name | wc -l"
server_check_log
tap_done
