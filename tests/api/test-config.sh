#!/usr/bin/env bash
# test-config.sh: ConfigMap, Secret and ServiceAccount through the real kubectl against `flexlet
# apiserver`: `kubectl create configmap/secret/serviceaccount`, the Table columns of `get`,
# `describe`, upstream's validation messages (keys, base64, Secret types, immutable, type), the
# default ServiceAccount of a new namespace (recreated when deleted), and the ServiceAccount
# admission of pods.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

# K8S: kubectl 1.32+'s typed `create` commands send protobuf bodies (bytes values included).
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
printf 'line1\nline2\n' >"$tmp/app.conf"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=t -days 1 -keyout "$tmp/tls.key" \
        -out "$tmp/tls.crt" >/dev/null 2>&1

check "create configmap --from-literal --from-file" \
        k create configmap app --from-literal=mode=fast --from-file="$tmp/app.conf"
check_equal "the file's content is a data key" "line1
line2" "$(k get configmap app -o jsonpath='{.data.app\.conf}')"
check_equal "get cm: NAME DATA AGE" "NAME DATA AGE app 2" "$(k get cm | tr -s ' \n' ' ' | cut -d' ' -f1-5)"
check "create secret generic" k create secret generic creds --from-literal=user=admin --from-literal=pw=s3cret
check_equal "data is base64 on the wire" "czNjcmV0" "$(k get secret creds -o jsonpath='{.data.pw}')"
check "create secret tls" k create secret tls cert --cert="$tmp/tls.crt" --key="$tmp/tls.key"
check "create secret docker-registry" k create secret docker-registry pull \
        --docker-server=registry.example --docker-username=u --docker-password=p
check_equal "get secrets: NAME TYPE DATA" "cert kubernetes.io/tls 2
creds Opaque 2
pull kubernetes.io/dockerconfigjson 1" "$(k get secrets --no-headers | awk '{print $1, $2, $3}')"
check "create serviceaccount" k create serviceaccount builder
check_equal "get sa: NAME SECRETS" "builder 0
default 0" "$(k get sa --no-headers | awk '{print $1, $2}')"
check_output "describe configmap shows the data" "line2" k describe configmap app

# --- validation, with upstream's words (raw requests: a kubectl run costs a second here)
# post COLLECTION JSON: the message of the server's answer to a create
post() { api POST "/api/v1/namespaces/default/$1" -H 'Content-Type: application/json' -d @- <<<"$2" | jq -r .message; }
# patch KIND NAME MERGE_PATCH: the message (or the kind) of the server's answer
patch() { api PATCH "/api/v1/namespaces/default/$1/$2" -H 'Content-Type: application/merge-patch+json' -d "$3" | jq -r '.message // .kind'; }
check_output "a bad key is refused" \
        "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')" \
        k create -f - <<<'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":{"a b":"x"}}'
check_output "a key in data and binaryData is refused" \
        'data[k]: Invalid value: "k": duplicate of key present in binaryData' \
        post configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"k":"x"},"binaryData":{"k":"eA=="}}'
check_output "bad base64 in a Secret is refused as Go's decoder does" \
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4' \
        post secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b64"},"data":{"a":"YWJj!A=="}}'
check_output "a tls Secret needs its keys" \
        'Secret "t" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]' \
        post secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"t"},"type":"kubernetes.io/tls"}'
check_output "dockerconfigjson must be JSON" \
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}' \
        post secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"d"},"type":"kubernetes.io/dockerconfigjson","stringData":{".dockerconfigjson":"[]"}}'
over=$(head -c 1048577 /dev/zero | tr '\0' x)
check_output "more than 1 MiB of data is refused" \
        '[]: Too long: may not be more than 1048576 bytes' \
        post configmaps "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\"},\"data\":{\"a\":\"$over\"}}"

# --- stringData, type and immutable
post secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"sd"},"data":{"a":"eA=="},"stringData":{"b":"hello"}}' >/dev/null
check_equal "stringData is merged into data and dropped" "eA== aGVsbG8= Opaque" \
        "$(k get secret sd -o jsonpath='{.data.a} {.data.b} {.stringData}{.type}')"
check_output "a Secret's type cannot change" \
        'type: Invalid value: "kubernetes.io/basic-auth": field is immutable' \
        patch secrets sd '{"type":"kubernetes.io/basic-auth","stringData":{"username":"u"}}'
post configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"immutable":true,"data":{"a":"1"}}' >/dev/null
check_output "the data of an immutable ConfigMap cannot change (kubectl's words)" \
        'The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set' \
        k patch configmap frozen --type merge -p '{"data":{"a":"2"}}'
check_output "immutable cannot be unset" \
        'immutable: Forbidden: field is immutable when `immutable` is set' \
        patch configmaps frozen '{"immutable":false}'
check_equal "its labels still can" ConfigMap "$(patch configmaps frozen '{"metadata":{"labels":{"team":"a"}}}')"
check_equal "an immutable ConfigMap can be deleted" 200 \
        "$(api DELETE /api/v1/namespaces/default/configmaps/frozen -o /dev/null -w '%{http_code}')"

# --- the default ServiceAccount and the ServiceAccount admission of pods
api POST /api/v1/namespaces -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}' >/dev/null
check "a new namespace gets its default ServiceAccount" wait_sa team
api DELETE /api/v1/namespaces/team/serviceaccounts/default >/dev/null
check "it is created again" wait_sa team
api POST /api/v1/namespaces/team/pods -H 'Content-Type: application/json' -d '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' >/dev/null
check_equal "a pod gets serviceAccountName default (and serviceAccount)" "default default" \
        "$(k get pod p -n team -o jsonpath='{.spec.serviceAccountName} {.spec.serviceAccount}')"
check_output "a pod naming a missing ServiceAccount is refused" \
        'pods "q" is forbidden: error looking up service account team/ghost: serviceaccount "ghost" not found' \
        k create -f - <<<'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"team"},"spec":{"serviceAccountName":"ghost","containers":[{"name":"c","image":"busybox"}]}}'
server_check_log
tap_done
