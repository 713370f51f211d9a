#!/usr/bin/env bash
# test-scheduler.sh: the scheduler through kubectl: with no node a pod stays Pending with
# PodScheduled=False/Unschedulable and a FailedScheduling event; once a Node with room exists the
# pod is bound to it (PodScheduled=True, a Scheduled event); a pod that does not fit gets
# upstream's "Insufficient cpu" message; a nodeSelector is honoured. Volumes (VolumeBinding): a
# missing claim and an unbound Immediate claim keep the pod Pending with upstream's PreFilter
# messages; a bound volume whose nodeAffinity names another host is a "volume node affinity
# conflict" until the volume is recreated for this node; a WaitForFirstConsumer claim gets
# volume.kubernetes.io/selected-node when a pod using it is scheduled, and the pod (its requests
# held on the node meanwhile) is bound only once the claim is bound, here by hand; a
# selected-node removed (a provisioner giving up) fails PreBind and the pod is scheduled again.
# The classes name an external provisioner that does not run here (example.com/external): as
# upstream, a provisioner acts only on classes naming it, so `flexlet apiserver`'s local-loop
# provisioner leaves these claims alone and the test plays the provisioner's part by hand (the
# node "fake" has no node agent to make a local-loop volume on).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit

pod() { # pod NAME CPU [NODE_SELECTOR_JSON]
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"nodeSelector":${3:-null},"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"$2","memory":"64Mi"}}}]}}
JSON
}

# wait_object_jsonpath KIND NAME JSONPATH VALUE: polls until the object shows the value (at most
# 15 s); wait_jsonpath POD ... and wait_pvc_jsonpath CLAIM ... for pods and claims.
wait_object_jsonpath() {
        for _ in $(seq 1 75); do
                [ "$(k get "$1" "$2" -o jsonpath="$3" 2>/dev/null)" = "$4" ] && return 0
                sleep 0.2
        done
        return 1
}
wait_jsonpath() { wait_object_jsonpath pod "$@"; }
wait_pvc_jsonpath() { wait_object_jsonpath pvc "$@"; }

pod early 500m | k create -f - >/dev/null
if wait_jsonpath early '{.status.conditions[?(@.type=="PodScheduled")].reason}' Unschedulable; then
        ok "with no node a pod is Unschedulable"
else
        not_ok "with no node a pod is Unschedulable" "$(k get pod early -o yaml)"
fi
check_equal "upstream's message for no nodes" "no nodes available to schedule pods" \
        "$(k get pod early -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')"
check_output "a FailedScheduling event" "FailedScheduling" k get events --field-selector involvedObject.name=early

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Node","metadata":{"name":"fake","labels":{"disk":"ssd"}},
 "status":{"allocatable":{"cpu":"2","memory":"2Gi","pods":"10"},"capacity":{"cpu":"2","memory":"2Gi","pods":"10"},
  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ready"}]}}
JSON
node_lease_keep fake
if wait_jsonpath early '{.spec.nodeName}' fake; then ok "the pod is bound once a node has room"; else not_ok "the pod is bound once a node has room"; fi
check_equal "PodScheduled is True" "True" "$(k get pod early -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')"
check_output "a Scheduled event" "Successfully assigned default/early to fake" k get events --field-selector involvedObject.name=early,reason=Scheduled

pod big 3 | k create -f - >/dev/null
wait_jsonpath big '{.status.conditions[?(@.type=="PodScheduled")].reason}' Unschedulable
check_equal "a pod that does not fit gets upstream's message" \
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." \
        "$(k get pod big -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')"
pod fits 1 | k create -f - >/dev/null
if wait_jsonpath fits '{.spec.nodeName}' fake; then ok "a pod that fits beside the first is bound"; else not_ok "a pod that fits beside the first is bound"; fi
pod third 600m | k create -f - >/dev/null
wait_jsonpath third '{.status.conditions[?(@.type=="PodScheduled")].reason}' Unschedulable
check_output "the node's remaining cpu is respected" "Insufficient cpu" \
        k get pod third -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'
pod picky 100m '{"disk":"hdd"}' | k create -f - >/dev/null
wait_jsonpath picky '{.status.conditions[?(@.type=="PodScheduled")].reason}' Unschedulable
check_output "a nodeSelector that matches no node" "didn't match Pod's node affinity/selector" \
        k get pod picky -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'

check "bound pods can be force-deleted" k delete pod early fits --grace-period=0 --force
if wait_jsonpath third '{.spec.nodeName}' fake; then ok "a pod is bound once room frees up"; else not_ok "a pod is bound once room frees up"; fi

# --- volumes
label_out=$(k label node fake kubernetes.io/hostname=fake 2>&1) || not_ok "label the node" "$label_out"
pod_with_claim() { # pod_with_claim NAME CPU CLAIM
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"$2","memory":"16Mi"}}}],
  "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"$3"}}]}}
JSON
}
scheduled_message() { k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
# wait_message POD TEXT: polls until the pod's PodScheduled message contains TEXT (at most 15 s).
wait_message() {
        for _ in $(seq 1 75); do
                [[ "$(scheduled_message "$1" 2>/dev/null)" == *"$2"* ]] && return 0
                sleep 0.2
        done
        return 1
}
no_preemption="preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."

pod_with_claim orphan 100m nope | k create -f - >/dev/null
wait_message orphan 'not found'
check_equal "a missing claim: PreFilter's message" \
        "0/1 nodes are available: persistentvolumeclaim \"nope\" not found. $no_preemption" \
        "$(scheduled_message orphan)"
check_output "a missing claim: a FailedScheduling event" 'persistentvolumeclaim "nope" not found' \
        k get events --field-selector involvedObject.name=orphan,reason=FailedScheduling
claim_json() { # claim_json NAME CLASS [EXTRA_SPEC_JSON] [ANNOTATIONS_JSON]
        cat <<JSON
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"$1","annotations":${4:-{\}}},
 "spec":{"storageClassName":"$2","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"100Mi"}}${3:+,$3}}}
JSON
}
class_json() { # class_json NAME MODE
        cat <<JSON
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"$1"},
 "provisioner":"example.com/external","volumeBindingMode":"$2"}
JSON
}
class_json instant Immediate | k create -f - >/dev/null
claim_json now instant | k create -f - >/dev/null
pod_with_claim eager 100m now | k create -f - >/dev/null
wait_message eager 'unbound immediate'
check_equal "an unbound Immediate claim: PreFilter's message" \
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. $no_preemption" \
        "$(scheduled_message eager)"
check_equal "an unbound Immediate claim: the pod is not bound" "" "$(k get pod eager -o jsonpath='{.spec.nodeName}')"

pv_json() { # pv_json NAME HOST CLAIM CLASS [CLAIM_UID]
        cat <<JSON
{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"$1"},
 "spec":{"capacity":{"storage":"100Mi"},"accessModes":["ReadWriteOnce"],"storageClassName":"$4",
  "hostPath":{"path":"/tmp/$1"},"claimRef":{"namespace":"default","name":"$3","uid":"${5:-}"},
  "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["$2"]}]}]}}}}
JSON
}
pv_json pv-far elsewhere near "" | k create -f - >/dev/null
claim_json near "" '"volumeName":"pv-far"' '{"pv.kubernetes.io/bind-completed":"yes"}' | k create -f - >/dev/null
pod_with_claim pinned 100m near | k create -f - >/dev/null
wait_message pinned 'volume node affinity'
check_equal "a bound volume of another host: volume node affinity conflict" \
        "0/1 nodes are available: 1 node(s) had volume node affinity conflict. $no_preemption" \
        "$(scheduled_message pinned)"
k delete pv pv-far --wait=false >/dev/null
k patch pv pv-far --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1
for _ in $(seq 1 50); do k get pv pv-far >/dev/null 2>&1 || break; sleep 0.2; done
# the binder marks the claim Lost while its volume is gone; as upstream, a volume that comes back
# naming the claim's uid binds it again (one naming no uid would be a misbound claim)
pv_json pv-far fake near "" "$(k get pvc near -o jsonpath='{.metadata.uid}')" | k create -f - >/dev/null
if wait_jsonpath pinned '{.spec.nodeName}' fake; then
        ok "the volume recreated for this node: the pod is bound"
else
        not_ok "the volume recreated for this node: the pod is bound" "$(k get pod pinned -o yaml; k get pvc near -o yaml; k get pv pv-far -o yaml)"
fi

class_json late WaitForFirstConsumer | k create -f - >/dev/null
claim_json delayed late | k create -f - >/dev/null
pod_with_claim waiter 1 delayed | k create -f - >/dev/null
if wait_pvc_jsonpath delayed '{.metadata.annotations.volume\.kubernetes\.io/selected-node}' fake; then
        ok "WaitForFirstConsumer: the scheduler writes selected-node on the claim"
else
        not_ok "WaitForFirstConsumer: the scheduler writes selected-node on the claim" "$(k get pvc delayed -o yaml)"
fi
sleep 3
check_equal "WaitForFirstConsumer: the pod is not bound while its claim is unbound" "" \
        "$(k get pod waiter -o jsonpath='{.spec.nodeName}')"
# fake has 2 cpu: third holds 600m, pinned 100m, the waiting pod 1: 300m are left
pod squeeze 500m | k create -f - >/dev/null
wait_jsonpath squeeze '{.status.conditions[?(@.type=="PodScheduled")].reason}' Unschedulable
check_output "the waiting pod's requests are held on its node" "Insufficient cpu" scheduled_message squeeze
pv_json pv-delayed fake delayed late | k create -f - >/dev/null
k patch pvc delayed --type=merge \
        -p '{"metadata":{"annotations":{"pv.kubernetes.io/bind-completed":"yes","pv.kubernetes.io/bound-by-controller":"yes"}},"spec":{"volumeName":"pv-delayed"}}' >/dev/null
k patch pvc delayed --subresource=status --type=merge -p '{"status":{"phase":"Bound"}}' >/dev/null
if wait_jsonpath waiter '{.spec.nodeName}' fake; then
        ok "WaitForFirstConsumer: the pod is bound once its claim is"
else
        not_ok "WaitForFirstConsumer: the pod is bound once its claim is" "$(k get pod waiter -o yaml)" "$(k get pvc delayed -o yaml)"
fi
scheduled_event() { k get events --field-selector involvedObject.name=waiter,reason=Scheduled 2>&1; }
for _ in $(seq 1 25); do [[ "$(scheduled_event)" == *"assigned default/waiter"* ]] && break; sleep 0.2; done
check_output "WaitForFirstConsumer: a Scheduled event" "Successfully assigned default/waiter to fake" scheduled_event

# the provisioner gives up by removing selected-node (done by hand here): PreBind fails, the pod
# is scheduled again after its back-off, and the claim gets selected-node again
claim_json retry late | k create -f - >/dev/null
pod_with_claim retrier 100m retry | k create -f - >/dev/null
wait_pvc_jsonpath retry '{.metadata.annotations.volume\.kubernetes\.io/selected-node}' fake
k annotate pvc retry volume.kubernetes.io/selected-node- >/dev/null
wait_message retrier 'provisioning failed'
check_equal "selected-node removed: PreBind's failure on the pod" \
        "SchedulerError running PreBind plugin \"VolumeBinding\": binding volumes: provisioning failed for PVC \"retry\"" \
        "$(k get pod retrier -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') $(scheduled_message retrier)"
if wait_pvc_jsonpath retry '{.metadata.annotations.volume\.kubernetes\.io/selected-node}' fake; then
        ok "selected-node removed: the pod is scheduled again"
else
        not_ok "selected-node removed: the pod is scheduled again" "$(k get pvc retry -o yaml)"
fi
check_equal "selected-node removed: the pod waits again, unbound" "" "$(k get pod retrier -o jsonpath='{.spec.nodeName}')"

server_check_log
tap_done
