#!/usr/bin/env bash
# test-scheduling.sh: the scheduler over several nodes, through kubectl, with no real pods: three
# Node objects (n1 and n2 in zone a, n3 in zone b; 4 cpu, 8Gi each) kept Ready by their leases.
# A ReplicaSet of 6 spreads 2 per node (LeastAllocated and the default hostname/zone spreading);
# pods with required anti-affinity by hostname go one per node and the 4th stays Pending with
# upstream's message and a FailedScheduling event; pods spread by zone (maxSkew 1,
# DoNotSchedule) alternate zones; one pinned to the fuller zone is refused with upstream's
# message when every zone counts (nodeAffinityPolicy Ignore) and bound when only the zones its
# nodeSelector allows count (Honor); invalid constraints are refused with upstream's messages;
# required pod affinity follows a pod into its zone.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit

node_json() { # node_json NAME ZONE
        cat <<JSON
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$1","labels":{"kubernetes.io/hostname":"$1","topology.kubernetes.io/zone":"$2"}},
 "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},
  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ready"}]}}
JSON
}
for n in n1:a n2:a n3:b; do
        node_json "${n%:*}" "${n#*:}" | k create -f - >/dev/null
        node_lease_keep "${n%:*}"
done

# pod NAME LABELS_JSON [SPEC_MEMBERS_JSON]
pod() {
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1","labels":$2},
 "spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]${3:+,$3}}}
JSON
}
node_of() { k get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null; }
scheduled_message() { k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' 2>/dev/null; }
# wait_bound POD: polls until the pod has a node (at most 15 s).
wait_bound() {
        for _ in $(seq 1 75); do
                [ -n "$(node_of "$1")" ] && return 0
                sleep 0.2
        done
        return 1
}
# wait_message POD TEXT: polls until the PodScheduled message contains TEXT (at most 15 s).
wait_message() {
        for _ in $(seq 1 75); do
                [[ "$(scheduled_message "$1")" == *"$2"* ]] && return 0
                sleep 0.2
        done
        return 1
}

# --- spreading: a ReplicaSet of 6 over 3 equal nodes
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"spread"},
 "spec":{"replicas":6,"selector":{"matchLabels":{"app":"spread"}},
  "template":{"metadata":{"labels":{"app":"spread"}},
   "spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}
JSON
placed=""
for _ in $(seq 1 75); do
        placed=$(k get pods -l app=spread -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' 2>/dev/null | grep -c .)
        [ "$placed" = 6 ] && break
        sleep 0.2
done
check_equal "a ReplicaSet of 6: every replica is bound" 6 "$placed"
check_equal "a ReplicaSet of 6 spreads 2 per node" "2 n1,2 n2,2 n3" \
        "$(k get pods -l app=spread -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | uniq -c | awk '{print $1" "$2}' | paste -sd,)"

# --- anti-affinity: one per node, the 4th Pending
anti='"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"solo"}},"topologyKey":"kubernetes.io/hostname"}]}}'
for i in 1 2 3; do
        pod "solo-$i" '{"app":"solo"}' "$anti" | k create -f - >/dev/null
        wait_bound "solo-$i" || not_ok "solo-$i is bound" "$(k get pod "solo-$i" -o yaml)"
done
check_equal "anti-affinity: one replica per node" "n1 n2 n3" \
        "$(for i in 1 2 3; do node_of "solo-$i"; echo; done | sort | paste -sd' ')"
pod solo-4 '{"app":"solo"}' "$anti" | k create -f - >/dev/null
wait_message solo-4 "anti-affinity"
check_equal "anti-affinity: the 4th replica gets upstream's message" \
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod." \
        "$(scheduled_message solo-4)"
check_equal "anti-affinity: the 4th replica is Pending, unbound" "Pending " \
        "$(k get pod solo-4 -o jsonpath='{.status.phase} {.spec.nodeName}')"
check_output "anti-affinity: a FailedScheduling event" "didn't match pod anti-affinity rules" \
        k get events --field-selector involvedObject.name=solo-4,reason=FailedScheduling
# a pod the others' anti-affinity does not select is welcome anywhere (symmetry is per label)
k delete pod solo-3 --grace-period=0 --force >/dev/null 2>&1
if wait_bound solo-4; then ok "anti-affinity: the 4th replica is bound once a node is free"; else not_ok "anti-affinity: the 4th replica is bound once a node is free"; fi

# --- zone spread: maxSkew 1 by zone, DoNotSchedule
spread='"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"zoned"}}}]'
zone_of() { k get node "$(node_of "$1")" -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}'; }
pod zoned-1 '{"app":"zoned"}' "$spread" | k create -f - >/dev/null
wait_bound zoned-1
pod zoned-2 '{"app":"zoned"}' "$spread" | k create -f - >/dev/null
wait_bound zoned-2
check_equal "zone spread: two pods, two zones" "a b" "$(printf '%s\n%s\n' "$(zone_of zoned-1)" "$(zone_of zoned-2)" | sort | paste -sd' ')"
pod zoned-3 '{"app":"zoned"}' "$spread,\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"a\"}" | k create -f - >/dev/null
if wait_bound zoned-3; then ok "zone spread: a third in zone a keeps the skew at 1"; else not_ok "zone spread: a third in zone a keeps the skew at 1"; fi
# counted over zone a alone (nodeAffinityPolicy Honor: the pod's nodeSelector leaves zone b
# out), a fourth pinned to zone a is within the skew; counted over every zone (Ignore) it is not
spread_ignore=${spread/'"DoNotSchedule"'/'"DoNotSchedule","nodeAffinityPolicy":"Ignore"'}
pod zoned-4 '{"app":"zoned"}' "$spread_ignore,\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"a\"}" | k create -f - >/dev/null
wait_message zoned-4 "topology spread"
check_equal "zone spread: a fourth pinned to zone a, counted over all zones, is refused with upstream's message" \
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 2 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling." \
        "$(scheduled_message zoned-4)"
pod zoned-5 '{"app":"zoned"}' "$spread,\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"a\"}" | k create -f - >/dev/null
if wait_bound zoned-5; then ok "zone spread: counted over the zones the pod may use (Honor), it is bound"; else not_ok "zone spread: counted over the zones the pod may use (Honor), it is bound" "$(k get pod zoned-5 -o yaml)"; fi

# --- validation: upstream's messages
bad_pod() { pod bad '{}' "$1" | k create -f - 2>&1; }
check_output "validation: maxSkew 0 is refused" \
        'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero' \
        bad_pod '"topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]'
check_output "validation: an anti-affinity term without topologyKey is refused" \
        'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty' \
        bad_pod '"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{}}]}}'

# matchLabelKeys and mismatchLabelKeys join the labelSelector when the pod is created
pod keyed '{"app":"keyed","rev":"7"}' '"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"keyed"}},"topologyKey":"kubernetes.io/hostname","matchLabelKeys":["rev"],"mismatchLabelKeys":["app"]}]}}' | k create -f - >/dev/null
check_equal "matchLabelKeys and mismatchLabelKeys are merged into the labelSelector at creation" \
        '[{"key":"rev","operator":"In","values":["7"]},{"key":"app","operator":"NotIn","values":["keyed"]}]' \
        "$(k get pod keyed -o jsonpath='{.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions}')"

# --- pod affinity: follow a pod into its zone
pod anchor '{"app":"anchor"}' '"nodeSelector":{"kubernetes.io/hostname":"n3"}' | k create -f - >/dev/null
wait_bound anchor
pod follower '{"app":"follower"}' '"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"anchor"}},"topologyKey":"topology.kubernetes.io/zone"}]}}' | k create -f - >/dev/null
if wait_bound follower; then ok "pod affinity: the follower is bound"; else not_ok "pod affinity: the follower is bound" "$(k get pod follower -o yaml)"; fi
check_equal "pod affinity: the follower is in the anchor's zone" b "$(zone_of follower)"

server_check_log
tap_done
