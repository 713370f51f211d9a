#!/usr/bin/env bash
# test-gc.sh: deletion with a propagation policy and the garbage collector, through the real
# kubectl against `flexlet apiserver`, with ConfigMaps whose ownerReferences the test sets:
# a chain of owners deleted in the background, dangling references (an owner gone, an owner of
# another uid), a reference to a gone owner removed from an object that keeps another owner,
# Foreground deletion waiting for a dependent with blockOwnerDeletion (kubectl 1.32 and 1.33),
# blockOwnerDeletion refused on an owner the server cannot map,
# Orphan deletion leaving the dependents without their reference, and upstream's DeleteOptions
# validation; and batch/v1 Job through the API: kubectl 1.32/1.33 create job, the generated
# selector and labels, the Table, validation, the Job controller's owned and tracked pod, and
# batch/v1's orphan-by-default delete with upstream's warning.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

CM=/api/v1/namespaces/default/configmaps
uid() { api GET "$CM/$1" | jq -r .metadata.uid; }
# ref NAME [UID] [BLOCK]: an ownerReference to the ConfigMap NAME
ref() { printf '{"apiVersion":"v1","kind":"ConfigMap","name":"%s","uid":"%s"%s}' "$1" "${2:-$(uid "$1")}" "${3:+,\"blockOwnerDeletion\":true}"; }
# cm NAME [REFS_JSON_ARRAY] [FINALIZERS_JSON_ARRAY]
cm() {
        api POST "$CM" -H 'Content-Type: application/json' \
                -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'"$1"'","ownerReferences":'"${2:-[]}"',"finalizers":'"${3:-[]}"'}}' >/dev/null
}
code() { api GET "$CM/$1" -o /dev/null -w '%{http_code}'; }
# wait_for JQ_FILTER NAME: until the ConfigMap answers the filter with true (gone: 404)
wait_gone() { for _ in $(seq 1 100); do [ "$(code "$1")" == 404 ] && return 0; sleep 0.1; done; return 1; }
wait_for() { for _ in $(seq 1 100); do [ "$(api GET "$CM/$2" | jq -r "$1")" == true ] && return 0; sleep 0.1; done; return 1; }

# --- background (kubectl's default): a chain a <- b <- c goes with its root
cm a
cm b "[$(ref a)]"
cm c "[$(ref b)]"
check_output "kubectl delete deletes the root at once (Background)" 'configmap "a" deleted' k delete cm a
check "the garbage collector deletes its dependent" wait_gone b
check "... and the dependent's dependent" wait_gone c

# --- dangling references: the owner's uid decides
cm keep
cm gone1 "[$(ref nosuch 11111111-2222-3333-4444-555555555555)]"
cm gone2 "[$(ref keep 11111111-2222-3333-4444-555555555555)]"
cm mixed "[$(ref keep),$(ref nosuch 11111111-2222-3333-4444-666666666666)]"
check "a reference to an owner that never was is dangling: deleted" wait_gone gone1
check "a reference to an owner of another uid is dangling: deleted" wait_gone gone2
check "one with a live owner stays and loses only the dangling reference" \
        wait_for '[.metadata.ownerReferences[].name] == ["keep"]' mixed

# --- foreground: the owner waits for its blocking dependents
cm fg
cm fgd "[$(ref fg "" block)]" '["example.com/hold"]'
cm fgn "[$(ref fg)]"
check_output "kubectl 1.32 delete --cascade=foreground --wait=false" 'configmap "fg" deleted' \
        kv 1.32 delete cm fg --cascade=foreground --wait=false
check_equal "the owner is marked with the foregroundDeletion finalizer" 'true ["foregroundDeletion"]' \
        "$(api GET "$CM/fg" | jq -c '(.metadata.deletionTimestamp != null), .metadata.finalizers' | tr '\n' ' ' | sed 's/ $//')"
check "its dependents are deleted, the non-blocking one goes" wait_gone fgn
check "the blocking dependent is being deleted (its own finalizer holds it)" \
        wait_for '.metadata.deletionTimestamp != null' fgd
check_equal "the owner is still there while a blocking dependent is" 200 "$(code fg)"
api PATCH "$CM/fgd" -H 'Content-Type: application/merge-patch+json' -d '{"metadata":{"finalizers":null}}' >/dev/null
check "the dependent goes once its finalizer is removed" wait_gone fgd
check "then the owner goes" wait_gone fg
cm fg2
cm fg2d "[$(ref fg2 "" block)]"
check_output "kubectl 1.33 delete --cascade=foreground waits for the whole tree" 'configmap "fg2" deleted' \
        k delete cm fg2 --cascade=foreground --timeout=20s
check_equal "owner and dependent are gone" "404 404" "$(code fg2) $(code fg2d)"

check_equal "blockOwnerDeletion on an owner of a kind the server does not know is 403 as upstream" \
        '403 configmaps "blk" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"' \
        "$(api POST "$CM" -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"blk","ownerReferences":[{"apiVersion":"example.com/v1","kind":"Widget","name":"w","uid":"u1","blockOwnerDeletion":true}]}}' | jq -r '"\(.code) \(.message)"')"

# --- orphan: the dependents stay without their reference
cm or
cm ord "[$(ref or),$(ref keep)]"
cm ord2 "[$(ref or)]"
check_output "kubectl delete --cascade=orphan" 'configmap "or" deleted' k delete cm or --cascade=orphan
check "the owner goes once its dependents are orphaned" wait_gone or
check_equal "the dependents stay, without the reference to the orphaning owner" '["keep"] null' \
        "$(api GET "$CM/ord" | jq -c '[.metadata.ownerReferences[].name]') $(api GET "$CM/ord2" | jq -c .metadata.ownerReferences)"
cm or2
cm or2d "[$(ref or2)]"
api DELETE "$CM/or2" -H 'Content-Type: application/json' -d '{"orphanDependents":true}' >/dev/null
check "the deprecated orphanDependents: true orphans too" wait_gone or2
check_equal "... keeping the dependent" "200 null" "$(code or2d) $(api GET "$CM/or2d" | jq -c .metadata.ownerReferences)"

# --- DeleteOptions validation (K8S: ValidateDeleteOptions)
check_equal "an unknown propagationPolicy is 422 as upstream" \
        '422 DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"' \
        "$(api DELETE "$CM/keep" -H 'Content-Type: application/json' -d '{"propagationPolicy":"Sideways"}' | jq -r '"\(.code) \(.message)"')"
check_equal "orphanDependents with propagationPolicy is 422 as upstream" \
        '422 DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "": orphanDependents and deletionPropagation cannot be both set' \
        "$(api DELETE "$CM/keep?propagationPolicy=Orphan" -H 'Content-Type: application/json' -d '{"orphanDependents":false}' | jq -r '"\(.code) \(.message)"')"
check_equal "neither deleted the object" 200 "$(code keep)"
# --- batch/v1 Job through the API (no node: its pods stay Pending)
check_output "kubectl 1.32 create job (protobuf)" "job.batch/j1 created" kv 1.32 create job j1 --image=busybox -- true
check_output "kubectl 1.33 create job" "job.batch/j2 created" k create job j2 --image=busybox
check_equal "the generated selector and labels (batch/v1 1.32)" \
        "true true Never 1 1 6 NonIndexed" \
        "$(api GET /apis/batch/v1/namespaces/default/jobs/j1 | jq -r '.metadata.uid as $u | [(.spec.selector.matchLabels["batch.kubernetes.io/controller-uid"] == $u), (.spec.template.metadata.labels | .["controller-uid"] == $u and .["job-name"] == "j1" and .["batch.kubernetes.io/job-name"] == "j1"), .spec.template.spec.restartPolicy, .spec.completions, .spec.parallelism, .spec.backoffLimit, .spec.completionMode] | join(" ")')"
check_equal "get jobs: NAME STATUS COMPLETIONS DURATION AGE" "NAME STATUS COMPLETIONS DURATION AGE j1 Running 0/1" \
        "$(kv 1.32 get jobs | awk 'NR == 1 {printf "%s %s %s %s %s", $1, $2, $3, $4, $5} NR == 2 {printf " %s %s %s", $1, $2, $3}')"
check_equal "the Job controller creates its pod, owned and tracked" "Job true batch.kubernetes.io/job-tracking" \
        "$(for _ in $(seq 1 50); do p=$(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dj1' | jq -c '.items[0] // empty'); [ -n "$p" ] && break; sleep 0.1; done; jq -r '[.metadata.ownerReferences[0].kind, .metadata.ownerReferences[0].controller, .metadata.finalizers[0]] | join(" ")' <<<"$p")"
check_equal "restartPolicy Always is refused as upstream" \
        'Job.batch "bad" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"' \
        "$(api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"bad"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}' | jq -r .message)"
check_output "a delete naming no policy orphans by default, with upstream's warning" \
        'Warning: 299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"' \
        api DELETE /apis/batch/v1/namespaces/default/jobs/j2 -i
check_equal "... and marks it with the orphan finalizer until its pods are orphaned" 404 \
        "$(for _ in $(seq 1 50); do c=$(api GET /apis/batch/v1/namespaces/default/jobs/j2 -o /dev/null -w '%{http_code}'); [ "$c" = 404 ] && break; sleep 0.1; done; echo "$c")"
check_output "kubectl delete job (background) deletes its pods too" 'job.batch "j1" deleted' k delete job j1
check_equal "... the pod is gone" 0 \
        "$(for _ in $(seq 1 50); do n=$(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dj1' | jq '.items | length'); [ "$n" = 0 ] && break; sleep 0.1; done; echo "$n")"
api DELETE '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dj2' >/dev/null
server_check_log
tap_done
