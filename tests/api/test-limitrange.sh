#!/usr/bin/env bash
# test-limitrange.sh: LimitRange and the LimitRanger admission through the real kubectl (1.32
# and 1.33) against `flexlet apiserver`: a LimitRange from YAML with its defaults, `get` (NAME
# CREATED AT) and `describe`, validation, a pod without resources getting the defaults and the
# kubernetes.io/limit-ranger annotation, upstream's 403 messages for a pod and a resize past a
# max (a resize inside it accepted, a plain pod update not the plugin's), server-side dry-run,
# and a claim's storage max on create and on expansion.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

K32() { kv 1.32 "$@"; }
K33() { kv 1.33 "$@"; }
# get PATH JQ: a field of an object, read without a kubectl run (a second each on a busy machine)
get() { api GET "/api/v1/namespaces/default/$1" | jq -r "$2"; }
# post COLLECTION JSON [QUERY]: the server's answer to a create, as JSON
post() { api POST "/api/v1/namespaces/default/$1${3:-}" -H 'Content-Type: application/json' -d "$2"; }

check_output "create a LimitRange from YAML" "limitrange/bounds created" K33 create -f - <<'EOF'
apiVersion: v1
kind: LimitRange
metadata:
  name: bounds
spec:
  limits:
  - type: Container
    max: {cpu: "1", memory: 512Mi}
    min: {cpu: 50m}
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m}
    maxLimitRequestRatio: {cpu: "10"}
  - type: Pod
    max: {cpu: "2"}
  - type: PersistentVolumeClaim
    max: {storage: 2Gi}
EOF
created=$(get limitranges/bounds .metadata.creationTimestamp)
check_equal "get limits (short name): NAME CREATED AT" "NAME CREATED AT bounds $created" \
        "$(K32 get limits | tr -s ' \n' ' ' | sed 's/ $//')"
# K8S: SetDefaults_LimitRangeItem: defaultRequest.memory comes from default.memory
check_equal "the defaults of the LimitRange itself" "256Mi" \
        "$(get limitranges/bounds '.spec.limits[0].defaultRequest.memory')"
# kubectl walks each item's resources in Go map order: the rows are compared sorted
for v in 1.32 1.33; do
        check_equal "describe limitrange (kubectl $v)" \
                "Container cpu 50m 1 100m 500m 10
Container memory - 512Mi 256Mi 256Mi -
PersistentVolumeClaim storage - 2Gi - - -
Pod cpu - 2 - - -" \
                "$(kv $v describe limitrange bounds | sed -n '/^----/,$p' | tail -n +2 | tr -s ' ' | sed 's/ $//' | LC_ALL=C sort)"
done
check_output "an invalid LimitRange is refused with upstream's words" \
        'spec.limits[0].default: Forbidden: may not be specified when `type` is '"'Pod'" \
        K33 create -f - <<<'{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"bad"},"spec":{"limits":[{"type":"Pod","default":{"cpu":"1"}}]}}'
# K8S: the defaults come first: max fills default and defaultRequest, which are then below min
check_equal "min above max is refused" \
        'LimitRange "bad" is invalid: [spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1, spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1, spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1]' \
        "$(post limitranges '{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"bad"},"spec":{"limits":[{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"}}]}}' | jq -r .message)"

# --- pods
pod() { echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"${2:-}}]}}"; }
check_output "a pod without resources is created" "pod/plain created" K32 create -f - <<<"$(pod plain)"
check_equal "it got the defaults, and QoS Burstable" "100m 256Mi 500m 256Mi Burstable" \
        "$(get pods/plain '.spec.containers[0].resources | "\(.requests.cpu) \(.requests.memory) \(.limits.cpu) \(.limits.memory)"') $(get pods/plain .status.qosClass)"
check_equal "and upstream's annotation" \
        "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c" \
        "$(get pods/plain '.metadata.annotations["kubernetes.io/limit-ranger"]')"
for v in 1.32 1.33; do
        check_output "a pod past the max is refused (kubectl $v)" \
                'Error from server (Forbidden): error when creating "STDIN": pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' \
                kv $v create -f - <<<"$(pod big ',"resources":{"limits":{"cpu":"2"}}')"
done
check_output "below the min and above the ratio: both, aggregated" \
        'pods "low" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, cpu max limit to request ratio per Container is 10, but provided ratio is 100.000000]' \
        K33 create -f - <<<"$(pod low ',"resources":{"requests":{"cpu":"10m"},"limits":{"cpu":"1"}}')"
check_output "server-side dry-run is admitted the same way" "maximum cpu usage per Container is 1" \
        K33 create --dry-run=server -f - <<<"$(pod big ',"resources":{"limits":{"cpu":"2"}}')"
check_equal "a dry-run create shows the defaults and stores nothing" "500m NotFound" \
        "$(post pods "$(pod dry)" '?dryRun=All' | jq -r '.spec.containers[0].resources.limits.cpu') $(get pods/dry .reason)"

# --- resize (KEP-1287: the plugin validates pods/resize)
for v in 1.32 1.33; do
        check_output "a resize past the max is refused (kubectl $v)" \
                'Error from server (Forbidden): pods "plain" is forbidden: maximum cpu usage per Container is 1, but limit is 1500m' \
                kv $v patch pod plain --subresource resize \
                -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"1500m"}}}]}}'
done
check_output "a resize inside the range is accepted" "pod/plain patched" K33 patch pod plain --subresource resize \
        -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"800m"}}}]}}'
check_equal "and stored" "200m 800m" \
        "$(get pods/plain '.spec.containers[0].resources | "\(.requests.cpu) \(.limits.cpu)"')"
check_output "a resize past the ratio names the ratio" \
        'pods "plain" is forbidden: cpu max limit to request ratio per Container is 10, but provided ratio is 16.000000' \
        K33 patch pod plain --subresource resize \
        -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"50m"},"limits":{"cpu":"800m"}}}]}}'
# K8S: SupportsAttributes: containers cannot change on a pod update, so a tighter LimitRange
# added later does not stop one
api POST /api/v1/namespaces/default/limitranges -H 'Content-Type: application/json' \
        -d '{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"tight"},"spec":{"limits":[{"type":"Container","max":{"cpu":"100m"}}]}}' >/dev/null
check_output "a pod update other than a resize is not the plugin's" "pod/plain patched" \
        K33 patch pod plain -p '{"metadata":{"labels":{"tier":"web"}}}'
api DELETE /api/v1/namespaces/default/limitranges/tight >/dev/null

# --- claims
claim() { echo "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"$2\"}}}}"; }
check_output "a claim past the max storage is refused" \
        'persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi' \
        K33 create -f - <<<"$(claim huge 5Gi)"
check_equal "a claim inside it is created" "PersistentVolumeClaim" "$(post persistentvolumeclaims "$(claim data 1Gi)" | jq -r .kind)"
api PATCH /api/v1/namespaces/default/persistentvolumeclaims/data/status -H 'Content-Type: application/merge-patch+json' \
        -d '{"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}}' >/dev/null
check_output "an expansion past the max is refused" \
        'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi' \
        K33 patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}'

check_equal "delete the LimitRange" 200 \
        "$(api DELETE /api/v1/namespaces/default/limitranges/bounds -o /dev/null -w '%{http_code}')"
check_output "without it the same pod is admitted" "pod/big created" K33 create -f - <<<"$(pod big ',"resources":{"limits":{"cpu":"2"}}')"
server_check_log
tap_done
