#!/usr/bin/env bash
# test-identities.sh: every flexlet component runs as itself with least privilege (docs/rbac.md,
# "Identities"), against `flexlet apiserver` with an audit log: the scheduler's and the
# controller manager's client certificates (system:kube-scheduler, system:kube-controller-manager)
# and each controller's service account in kube-system, through the real kubectl; what each may
# not do, refused with upstream's 403 words (the scheduler reads no Secret and deletes no
# namespace, a controller's token makes no ClusterRoleBinding; the storage controllers' tokens
# may what upstream's roles give, kubectl auth can-i says, and no more); the controllers still doing
# their work under those identities (the ReplicaSet controller makes pods, the namespace
# controller empties and finalizes a namespace) as the audit log shows, each event with
# upstream's authorization.k8s.io/decision and reason annotations; and no component using the
# admin's credential.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
cat >"$tmp/policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
EOF
log=$SERVER_DIR/audit.log
server_start_or_exit --audit-policy-file "$tmp/policy.yaml" --audit-log-path "$log"
ok "server starts"
url=https://127.0.0.1:$SERVER_PORT
pki=$SERVER_DIR/data/pki

# as_cert NAME ARGS...: kubectl with DATA_DIR/pki/NAME.crt alone; as_token TOKEN ARGS...: with
# a bearer token alone (no kubeconfig: the admin's certificate would be presented too)
as_cert() {
        local n=$1
        shift
        "$KUBECTL" --kubeconfig=/dev/null --cache-dir "$SERVER_DIR/cache-$n" --server="$url" \
                --certificate-authority="$pki/ca.crt" --client-certificate="$pki/$n.crt" \
                --client-key="$pki/$n.key" "$@"
}
as_token() {
        local t=$1
        shift
        "$KUBECTL" --kubeconfig=/dev/null --cache-dir "$SERVER_DIR/cache-token" --server="$url" \
                --certificate-authority="$pki/ca.crt" --token="$t" "$@"
}
whoami_of() { "$@" auth whoami -o jsonpath='{.status.userInfo.username}'; }

k create secret generic s1 -n default --from-literal=k=v >/dev/null

# ---- the scheduler ----
check_equal "the scheduler's certificate is system:kube-scheduler" "system:kube-scheduler" \
        "$(whoami_of as_cert scheduler)"
check "the scheduler lists nodes" as_cert scheduler get nodes
check_output "the scheduler cannot read a Secret" \
        'Error from server (Forbidden): secrets "s1" is forbidden: User "system:kube-scheduler" cannot get resource "secrets" in API group "" in the namespace "default"' \
        as_cert scheduler get secret s1 -n default
check_output "the scheduler cannot delete a namespace" \
        'Error from server (Forbidden): namespaces "default" is forbidden: User "system:kube-scheduler" cannot delete resource "namespaces" in API group "" in the namespace "default"' \
        as_cert scheduler delete namespace default --wait=false

# ---- the controller manager ----
check_equal "the controller manager's certificate is system:kube-controller-manager" \
        "system:kube-controller-manager" "$(whoami_of as_cert controller-manager)"
check_output "the controller manager cannot delete a pod" \
        'User "system:kube-controller-manager" cannot delete resource "pods" in API group "" in the namespace "default"' \
        as_cert controller-manager delete pod nosuch -n default

# ---- the controllers' service accounts ----
want="certificate-controller clusterrole-aggregation-controller daemon-set-controller deployment-controller disruption-controller expand-controller generic-garbage-collector job-controller namespace-controller node-controller persistent-volume-binder pvc-protection-controller replicaset-controller resourcequota-controller root-ca-cert-publisher service-account-controller statefulset-controller token-cleaner ttl-after-finished-controller"
have=$(k get sa -n kube-system -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep -v '^default$' | sort | tr '\n' ' ' | sed 's/ $//')
check_equal "each controller has its service account in kube-system" "$want" "$have"
rs_token=$(k create token replicaset-controller -n kube-system)
check_equal "a controller's token is its service account" \
        "system:serviceaccount:kube-system:replicaset-controller" "$(whoami_of as_token "$rs_token")"
check "the ReplicaSet controller's identity may create pods" \
        as_token "$rs_token" run p1 --image=busybox -n default --dry-run=server
check_output "it cannot create a ClusterRoleBinding" \
        'error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope' \
        as_token "$rs_token" create clusterrolebinding grab --clusterrole=cluster-admin --user=me
check_output "nor read a Secret" \
        'User "system:serviceaccount:kube-system:replicaset-controller" cannot get resource "secrets"' \
        as_token "$rs_token" get secret s1 -n default
# the storage controllers (the local-loop provisioner as persistent-volume-binder, the expander
# as expand-controller) get upstream's roles and no more: what each needs, then what it may not
can_i() { # can_i TOKEN VERB RESOURCE [FLAGS...]: kubectl's yes or no
        local t=$1
        shift
        as_token "$t" auth can-i "$@" 2>/dev/null # its answer; a cluster-scoped one warns
}
pvb_token=$(k create token persistent-volume-binder -n kube-system)
check_equal "the provisioner's token is its service account" \
        "system:serviceaccount:kube-system:persistent-volume-binder" "$(whoami_of as_token "$pvb_token")"
check_equal "the provisioner creates volumes and binds claims, and no more" \
        "yes yes yes no no no no" \
        "$(can_i "$pvb_token" create persistentvolumes) $(can_i "$pvb_token" update persistentvolumeclaims --subresource=status -n default) $(can_i "$pvb_token" get nodes) $(can_i "$pvb_token" get secrets -n default) $(can_i "$pvb_token" patch nodes) $(can_i "$pvb_token" delete persistentvolumeclaims -n default) $(can_i "$pvb_token" create clusterrolebindings)"
exp_token=$(k create token expand-controller -n kube-system)
check_equal "the expander's token is its service account" \
        "system:serviceaccount:kube-system:expand-controller" "$(whoami_of as_token "$exp_token")"
check_equal "the expander grows volumes and claims' status, and no more" \
        "yes yes no no no no no" \
        "$(can_i "$exp_token" patch persistentvolumes) $(can_i "$exp_token" patch persistentvolumeclaims --subresource=status -n default) $(can_i "$exp_token" create persistentvolumes) $(can_i "$exp_token" delete persistentvolumes) $(can_i "$exp_token" update persistentvolumeclaims -n default) $(can_i "$exp_token" get secrets -n default) $(can_i "$exp_token" create pods -n default)"

# ---- the controllers at work under their identities ----
k apply -f - >/dev/null <<'EOF'
{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs1","namespace":"default"},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"rs1"}},
  "template":{"metadata":{"labels":{"app":"rs1"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}
EOF
# rs1_pods N: waits up to 20 s for rs1 to have N pods; prints how many it has
rs1_pods() {
        local n=0
        for _ in $(seq 1 100); do
                n=$(k get pods -n default -l app=rs1 -o name | wc -l)
                [ "$n" = "$1" ] && break
                sleep 0.2
        done
        echo "$n"
}
check_equal "the ReplicaSet controller makes its pods" 2 "$(rs1_pods 2)"
k create namespace gone >/dev/null
k create configmap c1 -n gone >/dev/null
check "the namespace controller empties and removes a namespace" \
        timeout 30 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" delete namespace gone --timeout=30s

creator() { # creator RESOURCE NS VERB [SUBRESOURCE]: the users of the ResponseComplete events
        jq -r --arg r "$1" --arg ns "$2" --arg v "$3" --arg sub "${4:-}" \
                'select(.stage == "ResponseComplete" and .objectRef.resource == $r and .objectRef.namespace == $ns and .verb == $v and (.objectRef.subresource // "") == $sub and .responseStatus.code < 300) | .user.username' "$log" | sort -u | tr '\n' ' ' | sed 's/ $//'
}
check_equal "the audit log: its pods were created by the ReplicaSet controller's account" \
        "system:serviceaccount:kube-system:replicaset-controller" "$(creator pods default create)"
check_equal "the namespace was finalized by the namespace controller's account" \
        "system:serviceaccount:kube-system:namespace-controller" "$(creator namespaces gone update finalize)"
# (the scheduler watches ReplicaSets too, for its default topology spreading) In the server's own
# process the controllers' and the scheduler's informers read the watch cache through the feed
# (docs/api.md, "How the controllers read"): no watch of theirs reaches the API (a list does when
# a controller asks itself: the namespace controller's, emptying a namespace).
check_equal "the controllers' informers do not watch through the API (the in-process feed)" "" \
        "$(jq -r 'select(.verb == "watch" and .objectRef.resource == "replicasets" and (.userAgent // "" | startswith("kubectl") | not)) | .user.username' "$log" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_equal "the system namespaces were made by the server's loopback identity" \
        "system:apiserver" \
        "$(jq -r 'select(.stage == "ResponseComplete" and .verb == "create" and .objectRef.resource == "namespaces" and .objectRef.name == "kube-system") | .user.username' "$log" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_equal "no flexlet component uses the admin's credential" "" \
        "$(jq -r 'select(.user.username == "kubernetes-admin" and (.userAgent // "" | startswith("kubectl") | not)) | .requestURI' "$log" | head -3)"

# ---- authorization annotations, as upstream's WithAuthorization ----
check_equal "an allowed request's event says allow and which binding allowed it" \
        '{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \"system:controller:replicaset-controller\" of ClusterRole \"system:controller:replicaset-controller\" to ServiceAccount \"replicaset-controller/kube-system\""}' \
        "$(jq -c 'select(.stage == "ResponseComplete" and .verb == "create" and .objectRef.resource == "pods" and .objectRef.namespace == "default" and .user.username == "system:serviceaccount:kube-system:replicaset-controller" and .responseStatus.code == 201) | .annotations' "$log" | head -1)"
check_equal "a refused one says forbid" \
        '{"authorization.k8s.io/decision":"forbid","authorization.k8s.io/reason":""}' \
        "$(jq -c 'select(.stage == "ResponseComplete" and .user.username == "system:kube-scheduler" and .objectRef.resource == "secrets") | .annotations' "$log" | head -1)"
check_equal "the admin (system:masters) is allowed with no reason" \
        '{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}' \
        "$(jq -c 'select(.stage == "ResponseComplete" and .user.username == "kubernetes-admin" and .objectRef.resource == "secrets" and .verb == "create") | .annotations' "$log" | head -1)"

# ---- a deleted account comes back ----
# One thread (token-refresh) keeps every controller's token; it looks at each account every 30 s
# and makes a deleted one again, with a new token, so its controller goes on.
old_uid=$(k get serviceaccount replicaset-controller -n kube-system -o jsonpath='{.metadata.uid}')
k delete serviceaccount replicaset-controller -n kube-system >/dev/null
new_uid=""
for _ in $(seq 1 90); do
        new_uid=$(k get serviceaccount replicaset-controller -n kube-system -o jsonpath='{.metadata.uid}' 2>/dev/null)
        [ -n "$new_uid" ] && [ "$new_uid" != "$old_uid" ] && break
        sleep 1
done
check_equal "the ReplicaSet controller's deleted account is made again" "made again" \
        "$([ -n "$new_uid" ] && [ "$new_uid" != "$old_uid" ] && echo made again)"
k scale replicaset rs1 -n default --replicas=3 >/dev/null
check_equal "and its controller acts with the new account's token" 3 "$(rs1_pods 3)"

server_check_log
tap_done
