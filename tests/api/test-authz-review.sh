#!/usr/bin/env bash
# test-authz-review.sh: `kubectl auth can-i` and impersonation through the real kubectl (1.32,
# with one check each by 1.27 and 1.33) against `flexlet apiserver`: the authorization.k8s.io/v1
# reviews in discovery; can-i answers (yes/no and the exit code) for the admin, a service account
# bound to view, and a resize-only Role holder (yes for patch pods --subresource=resize, no for
# patch pods); `can-i --list` tables; a SubjectAccessReview by the admin for another user (with
# RBAC's "allowed by" reason); the LocalSubjectAccessReview namespace mismatch; impersonation
# allowed for cluster-admin (a user with groups, a service account and its groups) and refused
# for the view holder with upstream's 403; groups without a user; and the audit log's
# impersonatedUser.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
cat >"$SERVER_DIR/policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  omitStages: ["RequestReceived"]
EOF
log=$SERVER_DIR/audit.log
server_start_or_exit --audit-policy-file "$SERVER_DIR/policy.yaml" --audit-log-path "$log"
ok "server starts (RBAC by default, with an audit log)"
url=https://127.0.0.1:$SERVER_PORT
ca=$SERVER_DIR/data/pki/ca.crt

as() { # as TOKEN ARGS...: kubectl 1.32 with only that token
        k --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$1" "${@:2}"
}
until_ok() { # the authorizer's copy of the roles follows the store a moment after a write
        for _ in $(seq 1 100); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
        done
        return 1
}
cani() { # cani ARGS...: kubectl auth can-i's output and exit code, "yes 0" or "no 1"
        local out rc
        out=$("$@" 2>&1)
        rc=$?
        echo "$out $rc"
}

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
metadata: {name: viewer, namespace: ns1}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: resizer, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewer, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: viewer}]
---
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
kind: RoleBinding
metadata: {name: bob-edit, namespace: ns2}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: User, name: bob}]
EOF
check "the namespaces, service accounts, roles and bindings are made" k apply -f "$SERVER_DIR/setup.yaml"
check_equal "discovery lists the four reviews" \
        "localsubjectaccessreviews selfsubjectaccessreviews selfsubjectrulesreviews subjectaccessreviews" \
        "$(k api-resources --api-group=authorization.k8s.io -o name | sed 's/\..*//' | sort | tr '\n' ' ' | sed 's/ $//')"
vtok=$(k -n ns1 create token viewer)
rtok=$(k -n ns1 create token resizer)

# --- the admin (system:masters)
check_equal "admin: can-i create pods" "yes 0" "$(cani k auth can-i create pods)"
check_equal "admin: can-i '*' '*'" "yes 0" "$(cani k auth can-i '*' '*')"
check_equal "admin: can-i get /logs" "yes 0" "$(cani k auth can-i get /logs)"
check_equal "admin: can-i --list begins with cluster-admin's rules" \
        "Resources Non-Resource URLs Resource Names Verbs|*.* [] [] [*]|[*] [] [*]" \
        "$(k auth can-i --list | head -3 | tr -s ' ' | sed 's/^ //; s/ $//' | paste -sd'|')"

# --- a service account bound to view in ns1
check "view holder: its binding is followed" until_ok as "$vtok" -n ns1 get pods
check_equal "view holder: can-i list pods -n ns1" "yes 0" "$(cani as "$vtok" auth can-i list pods -n ns1)"
check_equal "view holder: can-i create pods -n ns1" "no 1" "$(cani as "$vtok" auth can-i create pods -n ns1)"
check_equal "view holder: can-i list pods -n ns2" "no 1" "$(cani as "$vtok" auth can-i list pods -n ns2)"
check_equal "view holder: can-i get /logs" "no 1" "$(cani as "$vtok" auth can-i get /logs)"
check_equal "view holder: can-i --list -n ns1 shows view's pod rule" "pods [] [] [get list watch]" \
        "$(as "$vtok" auth can-i --list -n ns1 | tr -s ' ' | grep '^pods ' | sed 's/ $//')"
check_equal "and the self reviews every user may create" \
        "selfsubjectaccessreviews.authorization.k8s.io [] [] [create]" \
        "$(as "$vtok" auth can-i --list -n ns2 | tr -s ' ' | grep '^selfsubjectaccessreviews' | sed 's/ $//')"
# kubectl 1.27 asks for v2beta1 discovery only, and reads the legacy lists
check_equal "view holder, kubectl 1.27: can-i watch pods -n ns1" "yes 0" \
        "$(cani kv 1.27 --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$vtok" auth can-i watch pods -n ns1)"

# --- the resize-only Role holder
check "resizer: can-i patch pods --subresource=resize (once its binding is followed)" \
        until_ok as "$rtok" auth can-i patch pods --subresource=resize -n ns1
check_equal "resizer: can-i patch pods --subresource=resize prints yes" "yes 0" \
        "$(cani as "$rtok" auth can-i patch pods --subresource=resize -n ns1)"
check_equal "resizer: can-i patch pods" "no 1" "$(cani as "$rtok" auth can-i patch pods -n ns1)"
check_equal "resizer, kubectl 1.33 (protobuf): can-i patch pods/x --subresource=resize" "yes 0" \
        "$(cani kv 1.33 --kubeconfig=/dev/null --server="$url" --certificate-authority="$ca" --token="$rtok" auth can-i patch pods/x --subresource=resize -n ns1)"
check_equal "resizer: can-i --list -n ns1 holds exactly its Role" \
        "pods/resize [] [] [get patch]|pods [] [] [get]" \
        "$(as "$rtok" auth can-i --list -n ns1 | tr -s ' ' | grep '^pods' | sed 's/ $//' | paste -sd'|')"

# --- a SubjectAccessReview by the admin for another user
sar() { # sar USER VERB RESOURCE NS: the review's status as "allowed reason"
        jq -n --arg u "$1" --arg v "$2" --arg r "$3" --arg n "$4" \
                '{apiVersion:"authorization.k8s.io/v1",kind:"SubjectAccessReview",spec:{user:$u,resourceAttributes:{verb:$v,resource:$r,namespace:$n}}}' |
                k create -f - -o json | jq -r '"\(.status.allowed) \(.status.reason // "")"'
}
check_equal "SubjectAccessReview: bob may create pods in ns2, and why" \
        'true RBAC: allowed by RoleBinding "bob-edit/ns2" of ClusterRole "edit" to User "bob"' \
        "$(sar bob create pods ns2)"
check_equal "SubjectAccessReview: bob may not in ns1" "false " "$(sar bob create pods ns1)"
check_output "SubjectAccessReview without user or groups: 422 with upstream's words" \
        'The SubjectAccessReview "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified' \
        k create -f - <<<'{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"verb":"get"}}}'
check_equal "the view holder may not create a SubjectAccessReview" \
        'Error from server (Forbidden): error when creating "STDIN": subjectaccessreviews.authorization.k8s.io is forbidden: User "system:serviceaccount:ns1:viewer" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope' \
        "$(as "$vtok" create -f - <<<'{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"x","resourceAttributes":{"verb":"get"}}}' 2>&1)"
check_output "LocalSubjectAccessReview naming another namespace: upstream's 422" \
        'The LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: "ns2": must match metadata.namespace' \
        k -n ns1 create -f - <<<'{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns2"}}}'
check_equal "LocalSubjectAccessReview in its namespace answers" "true" \
        "$(k -n ns2 create -o jsonpath='{.status.allowed}' -f - <<<'{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns2"}}}')"

# --- impersonation
check_equal "cluster-admin impersonates bob: can-i create pods -n ns2 --as=bob" "yes 0" \
        "$(cani k auth can-i create pods -n ns2 --as=bob)"
check_equal "and --as=bob in ns1: no" "no 1" "$(cani k auth can-i create pods -n ns1 --as=bob)"
check_equal "whoami --as=bob --as-group=devs: the groups asked for and system:authenticated" \
        "bob devs,system:authenticated" \
        "$(k auth whoami --as=bob --as-group=devs -o json | jq -r '"\(.status.userInfo.username) \(.status.userInfo.groups | join(","))"')"
check_equal "whoami as a service account: its groups" \
        "system:serviceaccount:ns1:viewer system:serviceaccounts,system:serviceaccounts:ns1,system:authenticated" \
        "$(k auth whoami --as=system:serviceaccount:ns1:viewer -o json | jq -r '"\(.status.userInfo.username) \(.status.userInfo.groups | join(","))"')"
check_output "acting as the view holder lists its pods" "No resources found in ns1 namespace." \
        k -n ns1 get pods --as=system:serviceaccount:ns1:viewer
check_equal "the view holder may not impersonate: upstream's 403" \
        'Error from server (Forbidden): users "bob" is forbidden: User "system:serviceaccount:ns1:viewer" cannot impersonate resource "users" in API group "" at the cluster scope' \
        "$(as "$vtok" -n ns1 get pods --as=bob 2>&1)"
check_equal "nor a group, checked after the user" \
        'Error from server (Forbidden): serviceaccounts "resizer" is forbidden: User "system:serviceaccount:ns1:viewer" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"' \
        "$(as "$vtok" -n ns1 get pods --as=system:serviceaccount:ns1:resizer --as-group=g 2>&1)"
check_equal "groups without a user: upstream's 500" \
        '500 Internal Server Error: "/api/v1/namespaces/ns1/pods": requested [{Group  system:masters    }] without impersonating a user' \
        "$(curl -sk -o "$SERVER_DIR/500.txt" -w '%{http_code}' -H "Authorization: Bearer $vtok" \
                -H 'Impersonate-Group: system:masters' "$url/api/v1/namespaces/ns1/pods") $(cat "$SERVER_DIR/500.txt")"
imp=$(jq -c 'select(.impersonatedUser.username == "bob" and .objectRef.resource == "selfsubjectreviews") | [.user.username, .impersonatedUser.groups]' "$log" | head -1)
check_equal "the audit log records the user and whom it impersonated" \
        '["kubernetes-admin",["devs","system:authenticated"]]' "$imp"

server_check_log
tap_done
