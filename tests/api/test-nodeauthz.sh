#!/usr/bin/env bash
# test-nodeauthz.sh: what a node's credential may do, against `flexlet apiserver` with client
# certificates for system:node:n1 and system:node:n2 (group system:nodes) that the test signs
# with the server's CA: NodeRestriction (its own Node only, no forbidden labels, the status of
# its own pods only and never their labels, deletes and evictions of its own pods, mirror pods
# only, claim status only), with upstream's 403 messages, through curl and the real kubectl.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
if ! server_start; then
        not_ok "server starts"
        tap_done
        exit 1
fi
ok "server starts"
url=https://127.0.0.1:$SERVER_PORT
pki=$SERVER_DIR/data/pki

node_cert() { # node_cert NAME: a client certificate for system:node:NAME in system:nodes
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -subj "/O=system:nodes/CN=system:node:$1" -keyout "$tmp/$1.key" \
                -out "$tmp/$1.csr" >/dev/null 2>&1 &&
                printf 'extendedKeyUsage=clientAuth\n' >"$tmp/$1.ext" &&
                openssl x509 -req -in "$tmp/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
                        -CAcreateserial -days 1 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" \
                        >/dev/null 2>&1
}
check "issue node certificates for n1 and n2" bash -c "$(declare -f node_cert); tmp=$tmp pki=$pki
        node_cert n1 && node_cert n2"

# as NODE METHOD PATH [CONTENT-TYPE BODY]: the HTTP status and the Status message (or "ok")
as() {
        local who=$1 method=$2 path=$3 ct=${4:-application/json} body=${5:-}
        local args=(-sk --cert "$tmp/$who.crt" --key "$tmp/$who.key" -o "$tmp/out" -w '%{http_code}'
                -X "$method" -H "Content-Type: $ct")
        [ -n "$body" ] && args+=(-d "$body")
        echo "$(curl "${args[@]}" "$url$path") $(jq -r 'if .kind == "Status" then .message else "ok" end' "$tmp/out" 2>/dev/null)"
}
merge=application/merge-patch+json

# two nodes and a pod bound to each, made by the admin
for n in n1 n2; do
        k create -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$n","labels":{"kubernetes.io/hostname":"$n"}}}
JSON
        k create -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-$n","labels":{"app":"x"}},
 "spec":{"nodeName":"$n","containers":[{"name":"c","image":"busybox"}]}}
JSON
done
check_equal "the admin made two nodes and a pod on each" "n1 n2 p-n1 p-n2" \
        "$(k get nodes,pods -o name | sed 's|.*/||' | tr '\n' ' ' | sed 's/ $//')"
check_equal "whoami with a node certificate: system:node:n1 in system:nodes" \
        "system:node:n1 system:nodes,system:authenticated" \
        "$(k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
                --client-certificate="$tmp/n1.crt" --client-key="$tmp/n1.key" auth whoami \
                -o jsonpath='{.status.userInfo.username} {.status.userInfo.groups}' |
                sed 's/\["\(.*\)","\(.*\)"\]/\1,\2/')"

# --- pods
status_patch='{"status":{"conditions":[{"type":"Ready","status":"False"}]}}'
check_equal "a node patching another node's pod status: 403" \
        '403 pods "p-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself' \
        "$(as n1 PATCH /api/v1/namespaces/default/pods/p-n2/status $merge "$status_patch")"
check_equal "a node patching its own pod's status: 200" "200 ok" \
        "$(as n1 PATCH /api/v1/namespaces/default/pods/p-n1/status $merge "$status_patch")"
check_equal "a node changing its own pod's labels through status: 403" \
        '403 pods "p-n1" is forbidden: node "n1" cannot update labels through pod status' \
        "$(as n1 PATCH /api/v1/namespaces/default/pods/p-n1/status $merge '{"metadata":{"labels":{"app":"y"}}}')"
check_equal "a node deleting another node's pod: 403" \
        '403 pods "p-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself' \
        "$(as n1 DELETE /api/v1/namespaces/default/pods/p-n2)"
check_equal "a node evicting another node's pod: 403" \
        '403 pods "p-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself' \
        "$(as n1 POST /api/v1/namespaces/default/pods/p-n2/eviction application/json \
                '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p-n2"}}')"
check_equal "a node creating a pod that is no mirror pod: 403" \
        '403 pods "own" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods' \
        "$(as n1 POST /api/v1/namespaces/default/pods application/json \
                '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"own"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}')"
check_equal "a node binding a pod: 403" \
        '403 pods "p-n1" is forbidden: unexpected pod subresource "binding", only '"'status'"' and '"'eviction'"' are allowed' \
        "$(as n1 POST /api/v1/namespaces/default/pods/p-n1/binding application/json \
                '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p-n1"},"target":{"kind":"Node","name":"n1"}}')"
check_equal "the pods keep their labels and nodes" "p-n1=x,n1 p-n2=x,n2" \
        "$(k get pods -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.labels.app},{.spec.nodeName} {end}' | sed 's/ $//')"
check_equal "the admin still patches any pod's status" "200 ok" \
        "$(api PATCH /api/v1/namespaces/default/pods/p-n2/status -o /dev/null -w '%{http_code}' \
                -H "Content-Type: $merge" -d "$status_patch") ok"

# --- nodes
check_equal "a node updating another Node: 403" \
        '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"' \
        "$(as n1 PATCH /api/v1/nodes/n2 $merge '{"metadata":{"labels":{"x":"y"}}}')"
check_equal "a node updating another Node's status: 403" \
        '403 nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"' \
        "$(as n1 PATCH /api/v1/nodes/n2/status $merge '{"status":{"phase":"Running"}}')"
check_equal "a node setting a node-restriction.kubernetes.io label on itself: 403" \
        '403 nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/a, node-role.kubernetes.io/worker' \
        "$(as n1 PATCH /api/v1/nodes/n1 $merge '{"metadata":{"labels":{"node-role.kubernetes.io/worker":"","node-restriction.kubernetes.io/a":"b"}}}')"
check_equal "a node changing its taints: 403" \
        '403 nodes "n1" is forbidden: node "n1" is not allowed to modify taints' \
        "$(as n1 PATCH /api/v1/nodes/n1 $merge '{"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}}')"
check_equal "a node setting labels kubelets may set on itself: 200" "200 ok" \
        "$(as n1 PATCH /api/v1/nodes/n1 $merge '{"metadata":{"labels":{"topology.kubernetes.io/zone":"z1","node.kubernetes.io/exclude-from-external-load-balancers":"","app":"v"}}}')"
check_equal "a node registering another Node: 403" \
        '403 nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"' \
        "$(as n1 POST /api/v1/nodes application/json '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n3"}}')"
check_output "kubectl with n2's certificate: upstream's words" \
        'Error from server (Forbidden): nodes "n1" is forbidden: node "n2" is not allowed to modify node "n1"' \
        k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
        --client-certificate="$tmp/n2.crt" --client-key="$tmp/n2.key" label node n1 a=b

# --- claims: only their status, and of that only what growing a volume writes
k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},
 "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"none","resources":{"requests":{"storage":"1Gi"}}}}
JSON
check_equal "a node writing a claim's capacity and conditions through status: 200" "200 ok" \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1/status $merge \
                '{"status":{"capacity":{"storage":"1Gi"},"conditions":[{"type":"FileSystemResizePending","status":"True"}]}}')"
check_equal "a node writing a claim's phase through status: 403" \
        '403 persistentvolumeclaims "c1" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions: status.phase' \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1/status $merge '{"status":{"phase":"Bound"}}')"
check_equal "a node changing a claim itself: 403" \
        '403 persistentvolumeclaims "c1" is forbidden: may only update PVC status' \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1 $merge '{"metadata":{"labels":{"a":"b"}}}')"

# --- deletes of its own
check_equal "a node deleting its own pod: 200" "200 ok" \
        "$(as n1 DELETE /api/v1/namespaces/default/pods/p-n1)"

tap_done
