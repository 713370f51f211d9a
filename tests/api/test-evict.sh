#!/usr/bin/env bash
# test-evict.sh: PodDisruptionBudgets and the pods/eviction subresource through the real kubectl
# against `flexlet apiserver` (no node agent: pod readiness is written through pods/status, and a
# pod on no node is deleted at once): `kubectl create pdb` with kubectl 1.32 and 1.33 (protobuf
# bodies, IntOrString both ways), the Table columns, discovery, upstream's validation messages,
# the disruption controller's status, an eviction refused with 429 and upstream's Status, one
# allowed that takes the budget, the 500 for two budgets, pending pods evicted without a budget,
# and `kubectl drain` evicting through the subresource (blocked by a budget until --timeout).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

# --- the kind (K8S: kubectl 1.32+'s `create pdb` sends a protobuf body)
check "create pdb --min-available=1 (kubectl 1.32, protobuf)" \
        kv 1.32 create pdb web --selector=app=web --min-available=1
check "create pdb --max-unavailable=50% (kubectl 1.33, protobuf)" \
        k create pdb half --selector=app=db --max-unavailable=50%
check_equal "IntOrString survives protobuf both ways" "1 50%" \
        "$(api GET /apis/policy/v1/namespaces/default/poddisruptionbudgets | jq -r '[.items[].spec | .minAvailable // .maxUnavailable] | reverse | join(" ")')"
check_equal "get pdb: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS" \
        "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE half N/A 50% 0 web 1 N/A 0" \
        "$(k get pdb | tr -s ' \n' ' ' | sed 's/ [0-9]*s / /g; s/ $//')"
check_equal "discovery: policy/v1 poddisruptionbudgets, short name pdb" \
        "poddisruptionbudgets pdb policy/v1 true PodDisruptionBudget" \
        "$(k api-resources --api-group=policy --no-headers | tr -s ' ')"
check_equal "discovery: pods/eviction is a policy/v1 Eviction (kubectl drain looks for it)" \
        '{"name":"pods/eviction","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}' \
        "$(api GET /api/v1 | jq -c '.resources[] | select(.name == "pods/eviction") | {name, namespaced, group, version, kind, verbs}')"

wait_event() { for _ in $(seq 1 50); do [[ $(api GET "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D$1" | jq -r '[.items[].reason] | join(" ")') == *"$2"* ]] && return 0; sleep 0.2; done; return 1; }
check "the disruption controller records NoPods for a budget that selects none" wait_event half NoPods
post_pdb() { api POST /apis/policy/v1/namespaces/default/poddisruptionbudgets -H 'Content-Type: application/json' -d "$1" | jq -r .message; }
check_output "over 100% is refused" \
        'PodDisruptionBudget.policy "bad" is invalid: spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%' \
        k create pdb bad --selector=app=x --min-available=150%
check_output "a bad percentage, a negative count and both bounds are refused" \
        "spec: Invalid value: {\"minAvailable\":-1,\"maxUnavailable\":\"5\"}: minAvailable and maxUnavailable cannot be both set, spec.minAvailable: Invalid value: -1: must be greater than or equal to 0, spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"5\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')" \
        post_pdb '{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b2"},"spec":{"minAvailable":-1,"maxUnavailable":"5"}}'
check_output "an unknown unhealthyPodEvictionPolicy is refused" \
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"' \
        post_pdb '{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"b3"},"spec":{"minAvailable":1,"unhealthyPodEvictionPolicy":"Never"}}'

# --- the disruption controller and the eviction subresource
# ready_pod NAME [NODE]: a Running pod whose Ready condition is True
ready_pod() {
        local node=${2:+,\"nodeName\":\"$2\"}
        api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' \
                -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"'"$1"'","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}]'"$node"'}}' >/dev/null
        api PATCH "/api/v1/namespaces/default/pods/$1/status" -H 'Content-Type: application/merge-patch+json' \
                -d '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
}
# wait_pdb NAME JQ_FILTER: waits until the budget's status answers the filter with true
wait_pdb() {
        for _ in $(seq 1 100); do
                [ "$(api GET "/apis/policy/v1/namespaces/default/poddisruptionbudgets/$1" | jq "$2")" = true ] && return 0
                sleep 0.1
        done
        return 1
}
# evict NAME [BODY_NAME [CURL_ARGS...]]: POST pods/NAME/eviction, the answer on stdout
evict() {
        local name=$1 body=${2:-$1}
        shift $(($# < 2 ? $# : 2))
        api POST "/api/v1/namespaces/default/pods/$name/eviction" -H 'Content-Type: application/json' \
                -d '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"'"$body"'"}}' "$@"
}

ready_pod w1
check "the controller counts one healthy pod of one expected, none allowed" \
        wait_pdb web '.status | .expectedPods == 1 and .currentHealthy == 1 and .desiredHealthy == 1 and .disruptionsAllowed == 0 and .observedGeneration == 1 and (.conditions[0] | .type == "DisruptionAllowed" and .status == "False" and .reason == "InsufficientPods")'
want_429='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod'"'"'s disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 1 healthy pods and has 1 currently"}]},"code":429}'
check_equal "an eviction the budget forbids is 429 with upstream's Status" \
        "429 $(jq -cS . <<<"$want_429")" \
        "$(evict w1 w1 -o "$SERVER_DIR/evict.json" -w '%{http_code}') $(jq -cS . "$SERVER_DIR/evict.json")"
check_equal "the pod is still there" w1 "$(api GET /api/v1/namespaces/default/pods/w1 | jq -r .metadata.name)"
ready_pod w2
check "a second healthy pod allows one disruption" \
        wait_pdb web '.status | .currentHealthy == 2 and .disruptionsAllowed == 1 and .conditions[0].reason == "SufficientPods"'
rv=$(api GET /apis/policy/v1/namespaces/default/poddisruptionbudgets/web | jq -r .metadata.resourceVersion)
check_equal "an allowed eviction is 201 Success" '201 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}' \
        "$(evict w1 w1 -o "$SERVER_DIR/evict.json" -w '%{http_code}') $(jq -c . "$SERVER_DIR/evict.json")"
check_equal "the evicted pod is gone" 404 "$(api GET /api/v1/namespaces/default/pods/w1 -o /dev/null -w '%{http_code}')"
check_output "the eviction wrote the budget: disruptionsAllowed 0, the pod in disruptedPods" \
        '"disruptionsAllowed":0' \
        sh -c "curl -sk -H 'Authorization: Bearer $(cat "$SERVER_DIR/data/pki/admin.token")' 'https://127.0.0.1:$SERVER_PORT/apis/policy/v1/namespaces/default/poddisruptionbudgets?watch=1&resourceVersion=$rv&timeoutSeconds=1' | jq -c 'select(.object.metadata.name == \"web\" and .object.status.disruptedPods.w1 != null) | .object.status'"
check "the controller settles at one healthy, none allowed" \
        wait_pdb web '.status | .currentHealthy == 1 and .disruptionsAllowed == 0 and .expectedPods == 1'
check_output "a wrong name in the body is 400" "name in URL does not match name in Eviction object" evict w2 other
check_output "a body of the wrong shape is 400 with the decoder's words" \
        'Eviction in version \"v1\" cannot be handled as a Eviction: json: cannot unmarshal string into Go struct field DeleteOptions.deleteOptions.gracePeriodSeconds of type int64' \
        api POST /api/v1/namespaces/default/pods/w2/eviction -H 'Content-Type: application/json' \
        -d '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"w2"},"deleteOptions":{"gracePeriodSeconds":"x"}}'
check_output "a missing pod is 404" 'pods \"ghost\" not found' evict ghost
api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' \
        -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' >/dev/null
check_output "a pending pod is evicted without the budget (canIgnorePDB)" '"status":"Success"' evict pending
# K8S: a policy/v1beta1 Eviction is accepted too; this one in protobuf: the k8s envelope with
# typeMeta {policy/v1beta1, Eviction} and raw Eviction {metadata {name "beta"}}
api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' \
        -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"beta"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' >/dev/null
printf 'k8s\0\x0a\x1a\x0a\x0epolicy/v1beta1\x12\x08Eviction\x12\x08\x0a\x06\x0a\x04beta\x1a\x00\x22\x00' >"$SERVER_DIR/beta.pb"
check_output "a policy/v1beta1 Eviction in protobuf is taken" '"status":"Success"' \
        api POST /api/v1/namespaces/default/pods/beta/eviction -H 'Content-Type: application/vnd.kubernetes.protobuf' \
        --data-binary @"$SERVER_DIR/beta.pb"
check "create a second budget over the same pods" k create pdb web2 --selector=app=web --max-unavailable=1
check_equal "two budgets for one pod are 500 as upstream" \
        '500 This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' \
        "$(evict w2 w2 -o "$SERVER_DIR/evict.json" -w '%{http_code}') $(jq -r .message "$SERVER_DIR/evict.json")"
api DELETE /apis/policy/v1/namespaces/default/poddisruptionbudgets/web2 >/dev/null

# --- kubectl drain: cordon, list the node's pods across namespaces, evict (protobuf), wait
api POST /api/v1/nodes -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}' >/dev/null
ready_pod d1 n1
k create pdb drainable --selector=app=none --min-available=0 >/dev/null
check_output "drain refuses a bare pod without --force, as upstream" \
        "cannot delete Pods that declare no controller (use --force to override): default/d1" \
        k drain n1 --timeout=5s
api PATCH /apis/policy/v1/namespaces/default/poddisruptionbudgets/web -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"minAvailable":2}}' >/dev/null
check "the budget sees its new generation" wait_pdb web '.status.observedGeneration == 2 and .status.desiredHealthy == 2'
check_output "drain retries a blocked eviction with upstream's message, then gives up at --timeout" \
        "error when evicting pods/\"d1\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget." \
        k drain n1 --force --grace-period=0 --timeout=2s
check_equal "the node is cordoned and the pod still there" "true d1" \
        "$(api GET /api/v1/nodes/n1 | jq -r .spec.unschedulable) $(api GET /api/v1/namespaces/default/pods/d1 | jq -r .metadata.name)"
api PATCH /apis/policy/v1/namespaces/default/poddisruptionbudgets/web -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"minAvailable":0}}' >/dev/null
check "the budget allows the disruption again" wait_pdb web '.status.observedGeneration == 3 and .status.disruptionsAllowed > 0'
check_output "drain evicts the pod and waits until it is gone (kubectl 1.32)" "node/n1 drained" \
        kv 1.32 drain n1 --force --grace-period=0 --timeout=20s
check_equal "the drained pod is gone" 404 "$(api GET /api/v1/namespaces/default/pods/d1 -o /dev/null -w '%{http_code}')"
check_output "uncordon" "node/n1 uncordoned" k uncordon n1
server_check_log
tap_done
