#!/usr/bin/env bash
# test-quota.sh: ResourceQuota through the real kubectl (1.33 and 1.32) against `flexlet
# apiserver`: `kubectl create quota`, the Table columns of `get quota`, `describe quota`,
# upstream's validation and admission messages; with requests.cpu=1 two pods of 500m fit and a
# third is refused; a resize past the quota is refused and a smaller one accepted, the pod
# counting at the larger of its spec and its allocated resources (KEP-1287) until its node
# reports the smaller allocation; claims counted on create and on expansion; object counts;
# status.used given back after a delete; racing creates never both take the last room.
# The node's part (a pod's allocated resources, a claim bound) is written through /status, as
# the node agent and the volume controllers do; no node runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

# used NS QUOTA RESOURCE: the quota's status.used value for RESOURCE
used() { api GET "/api/v1/namespaces/$1/resourcequotas/$2" | jq -r --arg r "$3" '.status.used[$r] // empty'; }
# wait_used NS QUOTA RESOURCE VALUE: until the controller (or an admission) wrote VALUE
wait_used() { for _ in $(seq 1 100); do [ "$(used "$1" "$2" "$3")" == "$4" ] && return 0; sleep 0.1; done; used "$1" "$2" "$3"; return 1; }
# post NS COLLECTION [curl args...]: a create of the JSON on stdin
post() { api POST "/api/v1/namespaces/$1/$2" -H 'Content-Type: application/json' -d @- "${@:3}"; }
# refusal NS COLLECTION: the message of the server's answer to a create of the JSON on stdin
refusal() { post "$1" "$2" | jq -r .message; }
# pod NAME [CPU]: a pod whose container c requests CPU (none without)
pod() {
        local res=''
        [ -n "${2:-}" ] && res=",\"resources\":{\"requests\":{\"cpu\":\"$2\"}}"
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"containers":[{"name":"c","image":"busybox"%s}]}}' "$1" "$res"
}
# resize POD CPU: kubectl's resize of container c's cpu request
resize() { k patch pod "$1" --subresource resize -p "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"$2\"}}}]}}"; }
# allocate POD CPU: what the node reports once it admitted and applied a resize
allocate() {
        api PATCH "/api/v1/namespaces/default/pods/$1/status" -H 'Content-Type: application/merge-patch+json' \
                -d "{\"status\":{\"containerStatuses\":[{\"name\":\"c\",\"image\":\"busybox\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}},\"allocatedResources\":{\"cpu\":\"$2\"},\"resources\":{\"requests\":{\"cpu\":\"$2\"}}}]}}" -o /dev/null -w '%{http_code}'
}

# --- the object, with both kubectl versions (they send protobuf)
check "kubectl 1.33 create quota --hard --scopes" k create quota compute --hard=requests.cpu=1,pods=4 --scopes=NotTerminating
check "kubectl 1.32 create quota" kv 1.32 create quota objects \
        --hard=count/configmaps=3,persistentvolumeclaims=1,requests.storage=2Gi
check "the controller fills status.used" wait_used default compute requests.cpu 0
check_equal "get quota: NAME AGE REQUEST LIMIT" "NAME AGE REQUEST LIMIT compute pods: 0/4, requests.cpu: 0/1" \
        "$(k get quota compute | tr -s ' \n' ' ' | sed 's/ [0-9]*s / /; s/ $//')"
# the namespace's kube-root-ca.crt (the root CA publisher's) counts, as upstream
check_output "kubectl 1.32 reads the Table too" "count/configmaps: 1/3, persistentvolumeclaims: 0/1, requests.storage: 0/2Gi" \
        kv 1.32 get quota objects
check_output "a scope that cannot apply is refused with upstream's words" \
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource' \
        refusal default resourcequotas <<<'{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"bad"},"spec":{"hard":{"cpu":"1"},"scopes":["BestEffort"]}}'
check_output "a resource that is not a quota resource is refused" \
        'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota' \
        refusal default resourcequotas <<<'{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"bad"},"spec":{"hard":{"storage":"1"}}}'

# --- pods: two of 500m fit requests.cpu=1, a third does not
check "a first pod of 500m is admitted" post default pods -f -o /dev/null <<<"$(pod p1 500m)"
check "a second pod of 500m is admitted" post default pods -f -o /dev/null <<<"$(pod p2 500m)"
check_output "a third is refused with upstream's message" \
        'pods "p3" is forbidden: exceeded quota: compute, requested: requests.cpu=250m, used: requests.cpu=1, limited: requests.cpu=1' \
        k create -f - <<<"$(pod p3 250m)"
check_output "a pod without a cpu request is refused" \
        'pods "p4" is forbidden: failed quota: compute: must specify requests.cpu for: c' \
        refusal default pods <<<"$(pod p4)"
check_output "describe quota: used and hard" "requests.cpu  1     1" k describe quota compute

# --- resize (KEP-1287): counted at the larger of desired and allocated
check_equal "the node reports p1's 500m allocated" 200 "$(allocate p1 500m)"
check_output "a resize past the quota is refused" \
        'pods "p1" is forbidden: exceeded quota: compute, requested: requests.cpu=100m, used: requests.cpu=1, limited: requests.cpu=1' \
        resize p1 600m
check "a smaller resize is accepted" resize p1 200m
check_output "p1 still counts its allocated 500m until the node applies the resize" \
        'exceeded quota: compute, requested: requests.cpu=100m, used: requests.cpu=1, limited: requests.cpu=1' \
        refusal default pods <<<"$(pod p5 100m)"
check_equal "the node reports p1's 200m allocated" 200 "$(allocate p1 200m)"
check "the quota controller gives the 300m back" wait_used default compute requests.cpu 700m
check "now a pod of 300m fits" post default pods -f -o /dev/null <<<"$(pod p5 300m)"
check_equal "and status.used says so" 1 "$(used default compute requests.cpu)"

# --- claims: counted on create and on expansion
api POST /apis/storage.k8s.io/v1/storageclasses -H 'Content-Type: application/json' -o /dev/null \
        -d '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"grow"},"provisioner":"flexlet.io/local-loop","allowVolumeExpansion":true}'
# expand CLAIM SIZE [curl args...]: raise the claim's request
expand() {
        api PATCH "/api/v1/namespaces/default/persistentvolumeclaims/$1" -H 'Content-Type: application/merge-patch+json' \
                -d "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"$2\"}}}}" "${@:3}"
}
expand_refusal() { expand "$1" "$2" | jq -r .message; }
claim() { printf '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"%s"},"spec":{"storageClassName":"grow","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"%s"}}}}' "$1" "$2"; }
check "a claim of 1Gi is admitted" post default persistentvolumeclaims -f -o /dev/null <<<"$(claim c1 1Gi)"
check_equal "it is charged to requests.storage" 1Gi "$(used default objects requests.storage)"
check_output "a second claim passes persistentvolumeclaims=1" \
        'persistentvolumeclaims "c2" is forbidden: exceeded quota: objects, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1' \
        refusal default persistentvolumeclaims <<<"$(claim c2 1Gi)"
api PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1/status -H 'Content-Type: application/merge-patch+json' \
        -d '{"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}}' -o /dev/null
check_output "an expansion past requests.storage is refused" \
        'persistentvolumeclaims "c1" is forbidden: exceeded quota: objects, requested: requests.storage=2Gi, used: requests.storage=1Gi, limited: requests.storage=2Gi' \
        expand_refusal c1 3Gi
check "an expansion within it is accepted" expand c1 2Gi -f -o /dev/null
check_equal "and charged" 2Gi "$(used default objects requests.storage)"

# --- object counts, given back after a delete
cm() { printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"}}' "$1"; }
check "a ConfigMap within count/configmaps=3 (kube-root-ca.crt is one)" post default configmaps -f -o /dev/null <<<"$(cm a)"
check "a second" post default configmaps -f -o /dev/null <<<"$(cm b)"
check_output "a third passes count/configmaps=3" \
        'configmaps "c" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=3, limited: count/configmaps=3' \
        refusal default configmaps <<<"$(cm c)"
api DELETE /api/v1/namespaces/default/configmaps/a -o /dev/null
check "the quota controller updates status.used after a delete" wait_used default objects count/configmaps 2
check "and the room is there again" post default configmaps -f -o /dev/null <<<"$(cm c)"

# --- racing creates: only one takes the last room (the charge is a compare-and-swap)
api POST /api/v1/namespaces -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"race"}}' -o /dev/null
post race resourcequotas -o /dev/null <<<'{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"one"},"spec":{"hard":{"count/secrets":"1"}}}'
wait_used race one count/secrets 0 >/dev/null
racers=()
for i in 1 2 3 4 5 6; do
        post race secrets -o /dev/null -w '%{http_code}\n' <<<"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s$i\"}}" \
                >>"$SERVER_DIR/race" 2>&1 &
        racers+=($!)
done
wait "${racers[@]}"
check_equal "six racing creates: one 201, five 403" "1 201
5 403" "$(sort "$SERVER_DIR/race" | uniq -c | awk '{print $1, $2}')"
check_equal "one Secret stored, one charged" "1 1" \
        "$(api GET /api/v1/namespaces/race/secrets | jq '.items | length') $(used race one count/secrets)"

server_check_log
tap_done
