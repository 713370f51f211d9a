#!/usr/bin/env bash
# test-scheduler.sh: the scheduler through kubectl: with no node a pod stays Pending with
# PodScheduled=False/Unschedulable and a FailedScheduling event; once a Node with room exists the
# pod is bound to it (PodScheduled=True, a Scheduled event); a pod that does not fit gets
# upstream's "Insufficient cpu" message; a nodeSelector is honoured.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

if ! server_start; then
        not_ok "server starts"
        tap_done
        exit 1
fi

pod() { # pod NAME CPU [NODE_SELECTOR_JSON]
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"nodeSelector":${3:-null},"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"$2","memory":"64Mi"}}}]}}
JSON
}

# wait_jsonpath POD JSONPATH VALUE: polls until the pod shows the value (at most 15 s).
wait_jsonpath() {
        for _ in $(seq 1 75); do
                [ "$(k get pod "$1" -o jsonpath="$2" 2>/dev/null)" = "$3" ] && return 0
                sleep 0.2
        done
        return 1
}

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

server_check_log
tap_done
