#!/usr/bin/env bash
# test-nodeauthz.sh: what a node's credential may do, against `flexlet apiserver
# --authorization-mode=Node,RBAC` with client certificates for system:node:n1 and system:node:n2
# (group system:nodes) that the test signs with the server's CA: the Node authorizer (secrets,
# config maps and claims only of pods bound to the node, kept current as pods go and come back
# elsewhere; its own Node; pods listed only by spec.nodeName; no spec writes) and
# NodeRestriction (its own Node only, no forbidden labels, the status of its own pods only and
# never their labels, deletes and evictions of its own pods, mirror pods only, claim status
# only), with upstream's 403 messages, through curl and the real kubectl. No RBAC binding names
# the nodes or alice, so the refusals carry the Node authorizer's reasons alone. (RBAC is in the
# chain because flexlet's own controllers, the service account controller among them, run as
# their service accounts, which RBAC binds: without it they would be refused, docs/rbac.md.)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
printf 'tok-alice,alice,uid-1\n' >"$tmp/tokens.csv"
# server_start's shape, /readyz asked with the admin token
start() {
        SERVER_PORT=$(free_port)
        "$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data" --listen "127.0.0.1:$SERVER_PORT" \
                --node-name test-node --authorization-mode=Node,RBAC --token-auth-file "$tmp/tokens.csv" \
                >>"$SERVER_DIR/server.log" 2>&1 &
        SERVER_PID=$!
        trap server_cleanup EXIT
        for _ in $(seq 1 100); do
                if [ -s "$SERVER_DIR/data/pki/admin.token" ] && [ "$(api GET /readyz 2>/dev/null)" = ok ]; then
                        export KUBECONFIG="$SERVER_DIR/data/kubeconfig"
                        return 0
                fi
                kill -0 "$SERVER_PID" 2>/dev/null || break
                sleep 0.1
        done
        sed 's/^/# /' "$SERVER_DIR/server.log"
        return 1
}
if ! start; then
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
# kubectl NODE ARGS...: the real kubectl with a node's certificate
kn() {
        local who=$1
        shift
        k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
                --client-certificate="$tmp/$who.crt" --client-key="$tmp/$who.key" "$@"
}
forbidden() { # forbidden NODE VERB RESOURCE SCOPE: the head of the Node authorizer's refusal
        echo "User \"system:node:$1\" cannot $2 resource \"$3\" in API group \"\" $4"
}

# --- the Node authorizer: what a node reaches through its pods
k create secret generic s1 --from-literal=a=1 >/dev/null
k create secret generic s2 --from-literal=a=2 >/dev/null
k create secret generic s3 --from-literal=a=3 >/dev/null
k create configmap cm1 --from-literal=a=1 >/dev/null
k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c1"},
 "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"none","resources":{"requests":{"storage":"1Gi"}}}}
JSON
# uses NAME NODE SECRET: a pod on NODE with SECRET in its env, cm1 as a volume and claim c1
uses() {
        k create -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"nodeName":"$2","containers":[{"name":"c","image":"busybox",
   "env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"$3","key":"a"}}}]}],
   "volumes":[{"name":"cm","configMap":{"name":"cm1"}},{"name":"d","persistentVolumeClaim":{"claimName":"c1"}}]}}
JSON
}
uses user-1 n1 s1
uses user-2 n2 s2
norel="no relationship found between node 'n1' and this object"
check_equal "a node reading a Secret of a pod on it: 200" "200 ok" \
        "$(as n1 GET /api/v1/namespaces/default/secrets/s1)"
check_equal "a node reading a Secret of a pod not on it: 403" \
        "403 secrets \"s2\" is forbidden: $(forbidden n1 get secrets 'in the namespace "default"'): $norel" \
        "$(as n1 GET /api/v1/namespaces/default/secrets/s2)"
check_equal "a node reading a Secret no pod uses: 403" \
        "403 secrets \"s3\" is forbidden: $(forbidden n1 get secrets 'in the namespace "default"'): $norel" \
        "$(as n1 GET /api/v1/namespaces/default/secrets/s3)"
check_equal "a node watching its Secret by name: 200" "200" \
        "$(as n1 GET '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1' | cut -d' ' -f1)"
check_equal "a node listing Secrets: 403" \
        "403 secrets is forbidden: $(forbidden n1 list secrets 'in the namespace "default"'): No Object name found" \
        "$(as n1 GET /api/v1/namespaces/default/secrets)"
check_equal "a node reading its pods' ConfigMap and claim: 200" "200 ok 200 ok" \
        "$(as n1 GET /api/v1/namespaces/default/configmaps/cm1) $(as n1 GET /api/v1/namespaces/default/persistentvolumeclaims/c1)"
check_output "kubectl with n1's certificate: upstream's words" \
        "Error from server (Forbidden): secrets \"s2\" is forbidden: $(forbidden n1 get secrets 'in the namespace "default"'): $norel" \
        kn n1 get --raw /api/v1/namespaces/default/secrets/s2
k delete pod user-1 --grace-period=0 --force >/dev/null 2>&1
# the authorizer's graph follows the pods through a watch: the deletion reaches it a moment later
code_of() { as "$@" | cut -d' ' -f1; }
until_code() { # until_code WANT NODE PATH: polls (up to 10 s) until NODE's GET answers WANT
        local want=$1 got=
        shift
        for _ in $(seq 1 100); do
                got=$(code_of "$1" GET "$2")
                [ "$got" = "$want" ] && break
                sleep 0.1
        done
        echo "$got"
}
check_equal "its pod deleted, the node no longer reads the Secret: 403" "403" \
        "$(until_code 403 n1 /api/v1/namespaces/default/secrets/s1)"
uses user-1 n2 s1
check_equal "the pod made again on another node: that node reads it, n1 does not" "200 403" \
        "$(as n2 GET /api/v1/namespaces/default/secrets/s1 | cut -d' ' -f1) $(as n1 GET /api/v1/namespaces/default/secrets/s1 | cut -d' ' -f1)"
uses user-1b n1 s1
check_equal "and a new pod on n1 brings it back" "200" \
        "$(as n1 GET /api/v1/namespaces/default/secrets/s1 | cut -d' ' -f1)"
check_equal "a node listing its own pods by spec.nodeName: 200" "200" \
        "$(as n1 GET '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1' | cut -d' ' -f1)"
check_equal "a node listing every pod: 403" \
        "403 pods is forbidden: $(forbidden n1 list pods 'at the cluster scope'): can only list/watch pods with spec.nodeName field selector" \
        "$(as n1 GET /api/v1/pods)"
# the Node authorizer refuses it (tests/unit/apiserver/test-authz-node.c), RBAC's
# flexlet:node-routes then allows it: every node's route keeper reads the other Nodes
# (docs/node-authorization.md)
check_equal "a node reading another Node: 200, through flexlet:node-routes" "200 ok" \
        "$(as n1 GET /api/v1/nodes/n2)"
check_equal "a node reading its own Node: 200" "200 ok" "$(as n1 GET /api/v1/nodes/n1)"
check_equal "a node changing a pod's spec: 403" \
        "403 pods \"p-n1\" is forbidden: $(forbidden n1 patch pods 'in the namespace "default"')" \
        "$(as n1 PATCH /api/v1/namespaces/default/pods/p-n1 $merge '{"spec":{"activeDeadlineSeconds":5}}')"
check_equal "a node resizing a pod: 403" \
        "403 pods \"p-n1\" is forbidden: $(forbidden n1 patch pods/resize 'in the namespace "default"')" \
        "$(as n1 PATCH /api/v1/namespaces/default/pods/p-n1/resize $merge '{}')"
check_equal "a user who is no node: the Node authorizer has no opinion" \
        '403 pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"' \
        "$(curl -sk -H 'Authorization: Bearer tok-alice' "$url/api/v1/namespaces/default/pods" |
                jq -r '"\(.code) \(.message)"')"

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
        "403 pods \"p-n1\" is forbidden: $(forbidden n1 create pods/binding 'in the namespace "default"')" \
        "$(as n1 POST /api/v1/namespaces/default/pods/p-n1/binding application/json \
                '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p-n1"},"target":{"kind":"Node","name":"n1"}}')"
check_equal "the pods keep their labels and nodes" "p-n1=x,n1 p-n2=x,n2" \
        "$(k get pods p-n1 p-n2 -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.labels.app},{.spec.nodeName} {end}' | sed 's/ $//')"
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

# --- claims: only their status, and of that only what growing a volume writes
check_equal "a node writing a claim's capacity and conditions through status: 200" "200 ok" \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1/status $merge \
                '{"status":{"capacity":{"storage":"1Gi"},"conditions":[{"type":"FileSystemResizePending","status":"True"}]}}')"
check_equal "a node writing a claim's phase through status: 403" \
        '403 persistentvolumeclaims "c1" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions: status.phase' \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1/status $merge '{"status":{"phase":"Bound"}}')"
check_equal "a node changing a claim itself: 403" \
        "403 persistentvolumeclaims \"c1\" is forbidden: $(forbidden n1 patch persistentvolumeclaims 'in the namespace "default"'): can only get individual resources of this type" \
        "$(as n1 PATCH /api/v1/namespaces/default/persistentvolumeclaims/c1 $merge '{"metadata":{"labels":{"a":"b"}}}')"

# --- deletes of its own
check_equal "a node deleting its own pod: 200" "200 ok" \
        "$(as n1 DELETE /api/v1/namespaces/default/pods/p-n1)"

tap_done
