#!/usr/bin/env bash
# test-rbac.sh: authorization with RBAC (the default mode) through the real kubectl (1.32 and
# 1.33) against `flexlet apiserver`: the bootstrap policy, a service account bound to `view` in
# one namespace (lists there, upstream's exact refusal of a create, refused everything in
# another namespace), the Forbidden Status in JSON and protobuf, the resize-only Role (cpu,
# memory and a Memory emptyDir through pods/resize; a label patch refused), the escalation
# checks and their `escalate` and `bind` ways out, aggregation into `view`, and a deleted
# bootstrap rule back after a restart.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts (RBAC by default) and answers /readyz"
url=https://127.0.0.1:$SERVER_PORT
ca=$SERVER_DIR/data/pki/ca.crt

as() { # as TOKEN ARGS...: kubectl 1.32 with only that token
        k --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$1" "${@:2}"
}
as33() { # the same with kubectl 1.33 (protobuf for built-in kinds)
        kv 1.33 --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$1" "${@:2}"
}
# until CMD...: runs CMD until it succeeds, for at most about 10 s (the authorizer's copy of
# the roles and the aggregation controller follow the store a moment after a write)
until_ok() {
        for _ in $(seq 1 100); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
        done
        return 1
}

# --- the bootstrap policy
# upstream's bootstrap ClusterRoles flexlet keeps, its controllers' roles among them, and
# metrics-server's system:aggregated-metrics-reader (flexlet serves metrics.k8s.io itself), and
# flexlet:node-routes (docs/node.md, "Across nodes")
check_equal "the bootstrap roles exist" "38" \
        "$(k get clusterroles -l kubernetes.io/bootstrapping=rbac-defaults -o name | wc -l)"
check_equal "cluster-admin is bound to system:masters" "ClusterRole/cluster-admin Group/system:masters" \
        "$(k get clusterrolebinding cluster-admin -o json | jq -r '"\(.roleRef.kind)/\(.roleRef.name) \(.subjects[0].kind)/\(.subjects[0].name)"')"
check_equal "anonymous /healthz: allowed by system:public-info-viewer" "200" \
        "$(curl -sk -o /dev/null -w '%{http_code}' "$url/healthz")"
check_equal "anonymous /api: 401" "401" "$(curl -sk -o /dev/null -w '%{http_code}' "$url/api")"

# everything the test needs, in one apply: the namespaces, the service accounts and their roles
cat >"$SERVER_DIR/setup.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: ns1}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns2}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: ns1}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: resizer, namespace: ns1}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: esc, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: sa-view, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: sa}]
---
# the resize-only Role of docs/rbac.md
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-resizer, namespace: ns1}
rules:
- apiGroups: [""]
  resources: ["pods/resize"]
  verbs: ["get", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: resizer, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-resizer}
subjects: [{kind: ServiceAccount, name: resizer}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rbac-writer, namespace: ns1}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["create", "get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: esc, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rbac-writer}
subjects: [{kind: ServiceAccount, name: esc}]
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: ns1}
spec:
  containers:
  - name: c
    image: busybox
    volumeMounts: [{name: scratch, mountPath: /scratch}]
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {cpu: 200m, memory: 128Mi}
  volumes:
  - name: scratch
    emptyDir: {medium: Memory, sizeLimit: 32Mi}
EOF
check "the namespaces, service accounts, roles and bindings are made" k apply -f "$SERVER_DIR/setup.yaml"
token() { # a token of ns1's service account $1, through the TokenRequest API
        api POST "/api/v1/namespaces/ns1/serviceaccounts/$1/token" -H 'Content-Type: application/json' \
                -d '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}' | jq -r .status.token
}
code() { # code TOKEN METHOD PATH [curl args]: the HTTP code of a request with that token
        curl -sk -o /dev/null -w '%{http_code}' -X "$2" -H "Authorization: Bearer $1" "$url$3" "${@:4}"
}
view_aggregated() { [ "$(k get clusterrole view -o json | jq '.rules | length')" -gt 5 ]; }
check "view gets its rules from the aggregation controller" until_ok view_aggregated
tok=$(k -n ns1 create token sa)
rtok=$(token resizer)
etok=$(token esc)
check "the view holder lists pods in ns1 (1.32)" until_ok as "$tok" -n ns1 get pods
check_output "and with 1.33 (protobuf)" "app " as33 "$tok" -n ns1 get pods
check_equal "a create is refused with upstream's words" \
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ns1:sa" cannot create resource "pods" in API group "" in the namespace "ns1"' \
        "$(as "$tok" -n ns1 run web --image=busybox 2>&1)"
check_equal "the same with kubectl 1.33" \
        'Error from server (Forbidden): error when creating "STDIN": pods is forbidden: User "system:serviceaccount:ns1:sa" cannot create resource "pods" in API group "" in the namespace "ns1"' \
        "$(jq -n '{apiVersion:"v1",kind:"Pod",metadata:{name:"web"},spec:{containers:[{name:"c",image:"busybox"}]}}' | as33 "$tok" -n ns1 create -f - 2>&1)"
refused=
for r in "GET pods" "GET configmaps" "GET pods/x" "POST configmaps" "DELETE pods/x" "GET events" "GET pods?watch=true"; do
        c=$(code "$tok" "${r% *}" "/api/v1/namespaces/ns2/${r#* }" -H 'Content-Type: application/json' -d '{}')
        [ "$c" = 403 ] || refused="$refused [$r: $c]"
done
check_equal "everything in ns2 is refused (403)" "" "$refused"
check_output "a cluster-scoped read is refused at the cluster scope" \
        'nodes is forbidden: User "system:serviceaccount:ns1:sa" cannot list resource "nodes" in API group "" at the cluster scope' \
        as "$tok" get nodes
check_equal "the Forbidden Status (JSON): code, reason, details" \
        '403 Forbidden {"group":null,"kind":"pods","name":"web"}' \
        "$(curl -sk -H "Authorization: Bearer $tok" "$url/api/v1/namespaces/ns2/pods/web" | jq -c '"\(.code) \(.reason) \(.details | {group, kind, name})"' -r)"
pb=$(curl -sk -o "$SERVER_DIR/forbidden.pb" -w '%{http_code} %{content_type}' -H "Authorization: Bearer $tok" \
        -H 'Accept: application/vnd.kubernetes.protobuf' "$url/api/v1/namespaces/ns2/pods/web")
check_equal "the Forbidden Status over protobuf" \
        '403 application/vnd.kubernetes.protobuf k8s Forbidden 1' \
        "$pb $(head -c 3 "$SERVER_DIR/forbidden.pb") $(grep -ac 'pods "web" is forbidden: User "system:serviceaccount:ns1:sa" cannot get resource "pods"' "$SERVER_DIR/forbidden.pb" | sed 's/^[1-9].*/Forbidden 1/')"

# --- the resize-only Role (docs/rbac.md)
resize='{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m","memory":"96Mi"},"limits":{"cpu":"300m","memory":"192Mi"}}}],"volumes":[{"name":"scratch","emptyDir":{"medium":"Memory","sizeLimit":"48Mi"}}]}}'
check_equal "the resizer patches pods/resize: 200" "200" \
        "$(code "$rtok" PATCH /api/v1/namespaces/ns1/pods/app/resize \
                -H 'Content-Type: application/strategic-merge-patch+json' -d "$resize")"
check_equal "cpu, memory and the Memory emptyDir changed" "150m 300m 96Mi 192Mi 48Mi" \
        "$(k -n ns1 get pod app -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.requests.memory} {.spec.containers[0].resources.limits.memory} {.spec.volumes[0].emptyDir.sizeLimit}')"
check_output "kubectl 1.33 patch --subresource resize as the resizer" "pod/app patched" \
        as33 "$rtok" -n ns1 patch pod app --subresource resize \
        -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"120m"}}}]}}'
check_equal "a label patch is refused" \
        'Error from server (Forbidden): pods "app" is forbidden: User "system:serviceaccount:ns1:resizer" cannot patch resource "pods" in API group "" in the namespace "ns1"' \
        "$(as "$rtok" -n ns1 label pod app x=y 2>&1)"
check_output "and so is a status patch" 'cannot get resource "pods/status"' \
        as "$rtok" -n ns1 patch pod app --subresource status -p '{"status":{"phase":"Running"}}'

# --- escalation
check_equal "a Role with rules the user lacks: upstream's escalation refusal" \
        'Error from server (Forbidden): roles.rbac.authorization.k8s.io "pod-maker" is forbidden: user "system:serviceaccount:ns1:esc" (groups=["system:serviceaccounts" "system:serviceaccounts:ns1" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["create" "delete"]}' \
        "$(as "$etok" -n ns1 create role pod-maker --verb=create,delete --resource=pods 2>&1)"
check_output "a Role within the user's own rules is allowed" "role.rbac.authorization.k8s.io/sub-writer created" \
        as "$etok" -n ns1 create role sub-writer --verb=get --resource=roles.rbac.authorization.k8s.io
check_output "a binding to a role the user does not hold is refused" \
        'is attempting to grant RBAC permissions not currently held' \
        as "$etok" -n ns1 create rolebinding edit-me --clusterrole=edit --serviceaccount=ns1:esc
check_output "a binding to a missing role: 404" \
        'roles.rbac.authorization.k8s.io "nothing" not found' \
        as "$etok" -n ns1 create rolebinding nothing --role=nothing --serviceaccount=ns1:esc
cat >"$SERVER_DIR/grant.yaml" <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: escalator-binder, namespace: ns1}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles"]
  verbs: ["escalate"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles"]
  verbs: ["bind"]
  resourceNames: ["edit"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: esc-escalate-bind, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: escalator-binder}
subjects: [{kind: ServiceAccount, name: esc}]
EOF
k apply -f "$SERVER_DIR/grant.yaml" >/dev/null
pod_maker='{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"pod-maker"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["create","delete"]}]}'
created() { [ "$(code "$etok" POST /apis/rbac.authorization.k8s.io/v1/namespaces/ns1/roles -H 'Content-Type: application/json' -d "$pod_maker")" = 201 ]; }
check "with escalate on roles the same Role is allowed" until_ok created
check_output "with bind on the edit ClusterRole the binding is allowed" \
        "rolebinding.rbac.authorization.k8s.io/edit-me created" \
        as "$etok" -n ns1 create rolebinding edit-me --clusterrole=edit --serviceaccount=ns1:resizer
check_output "bind on edit does not reach admin" 'is attempting to grant RBAC permissions not currently held' \
        as "$etok" -n ns1 create rolebinding admin-me --clusterrole=admin --serviceaccount=ns1:resizer

# --- aggregation: a ClusterRole labelled aggregate-to-view adds to view
jq -n '{apiVersion:"rbac.authorization.k8s.io/v1",kind:"ClusterRole",metadata:{name:"widget-viewer",
        labels:{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
        rules:[{apiGroups:["example.com"],resources:["widgets"],verbs:["get","list"]}]}' | k create -f - >/dev/null
has_widgets() { k get clusterrole "$1" -o json | jq -e '.rules | any(.resources == ["widgets"])'; }
check "a ClusterRole labelled aggregate-to-view shows up in view" until_ok has_widgets view
check "and in edit and admin, which aggregate view" until_ok has_widgets admin

# --- reconciliation at start: a removed rule comes back, an added one stays
k get clusterrole system:basic-user -o json | jq '.rules = [.rules[0], {apiGroups:["example.com"],resources:["gadgets"],verbs:["get"]}]' | k replace -f - >/dev/null
check_equal "a rule of system:basic-user removed" "0" \
        "$(k get clusterrole system:basic-user -o json | jq '[.rules[] | select(.resources == ["selfsubjectreviews"])] | length')"
k -n ns1 delete rolebinding sa-view >/dev/null
server_stop
if ! server_start; then
        not_ok "server restarts"
fi
check_equal "after a restart the rule is back and the user's rule kept" "1 1" \
        "$(k get clusterrole system:basic-user -o json | jq -r '"\([.rules[] | select(.resources == ["selfsubjectreviews"])] | length) \([.rules[] | select(.resources == ["gadgets"])] | length)"')"
check_output "the binding deleted before the restart grants nothing after it" \
        'cannot list resource "pods"' as "$tok" -n ns1 get pods

server_check_log
tap_done
