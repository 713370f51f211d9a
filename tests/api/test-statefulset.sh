#!/usr/bin/env bash
# test-statefulset.sh: apps/v1 StatefulSets and ControllerRevisions through the real kubectl
# against `flexlet apiserver` (no node: the pods stay Pending), the API alone: discovery and short
# names, defaults, upstream's validation messages, the status and scale subresources, the Table
# columns, and the controller's first steps: OrderedReady makes web-0 alone (it never becomes
# Ready here), rollout restart, history and undo move through ControllerRevisions, Parallel makes
# every ordinal at once with its identity and claims, the template is recorded in a
# ControllerRevision, the retention policy decides the claims' owners, an orphan member is
# adopted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

# --- the kinds
check_equal "discovery: statefulsets (sts) and controllerrevisions in apps/v1" \
        "controllerrevisions apps/v1 true ControllerRevision statefulsets sts apps/v1 true StatefulSet" \
        "$(k api-resources --api-group=apps --no-headers | grep -E '^(statefulsets|controllerrevisions) ' | tr -s ' \n' ' ' | sed 's/ $//')"
check_equal "discovery: statefulsets/scale is an autoscaling/v1 Scale, statefulsets/status is served" \
        '{"name":"statefulsets/scale","group":"autoscaling","version":"v1","kind":"Scale"} statefulsets/status' \
        "$(api GET /apis/apps/v1 | jq -cj '.resources[] | select(.name == "statefulsets/scale") | {name, group, version, kind}') $(api GET /apis/apps/v1 | jq -r '.resources[] | select(.name == "statefulsets/status") | .name')"

sts() { # sts NAME POLICY REPLICAS RETENTION_DELETED RETENTION_SCALED
        cat <<JSON
{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"$1"},
 "spec":{"replicas":$3,"serviceName":"$1-svc","podManagementPolicy":"$2",
  "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"$4","whenScaled":"$5"},
  "selector":{"matchLabels":{"app":"$1"}},
  "template":{"metadata":{"labels":{"app":"$1"}},
   "spec":{"containers":[{"name":"c","image":"busybox","volumeMounts":[{"name":"data","mountPath":"/data"}]}]}},
  "volumeClaimTemplates":[{"metadata":{"name":"data"},
   "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"100Mi"}}}}]}}
JSON
}
sts web OrderedReady 3 Retain Retain | k create -f - >/dev/null
check_equal "defaults: OrderedReady, RollingUpdate partition 0, Retain/Retain, revisionHistoryLimit 10, the claim template's volumeMode and phase" \
        "OrderedReady RollingUpdate 0 Retain Retain 10 Always Filesystem Pending" \
        "$(k get sts web -o jsonpath='{.spec.podManagementPolicy} {.spec.updateStrategy.type} {.spec.updateStrategy.rollingUpdate.partition} {.spec.persistentVolumeClaimRetentionPolicy.whenDeleted} {.spec.persistentVolumeClaimRetentionPolicy.whenScaled} {.spec.revisionHistoryLimit} {.spec.template.spec.restartPolicy} {.spec.volumeClaimTemplates[0].spec.volumeMode} {.spec.volumeClaimTemplates[0].status.phase}')"
k apply -f - >/dev/null <<'JSON'
{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"def"},
 "spec":{"selector":{"matchLabels":{"app":"def"}},
  "template":{"metadata":{"labels":{"app":"def"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}
JSON
check_equal "a bare StatefulSet defaults replicas 1 and the retention policy" "1 Retain Retain" \
        "$(k get sts def -o jsonpath='{.spec.replicas} {.spec.persistentVolumeClaimRetentionPolicy.whenDeleted} {.spec.persistentVolumeClaimRetentionPolicy.whenScaled}')"

# --- validation
post() { api POST "/apis/apps/v1/namespaces/default/$1" -H 'Content-Type: application/json' -d "$2" | jq -r .message; }
tmpl='"template":{"metadata":{"labels":{"app":"y"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
check_equal "an empty selector, a bad podManagementPolicy and update strategy" \
        'StatefulSet.apps "bad" is invalid: [spec.podManagementPolicy: Invalid value: "Sometimes": must be '"'"'OrderedReady'"'"' or '"'"'Parallel'"'"', spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:"Later", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be '"'"'RollingUpdate'"'"' or '"'"'OnDelete'"'"', spec.selector: Invalid value: &v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset]' \
        "$(post statefulsets '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"bad"},"spec":{"podManagementPolicy":"Sometimes","updateStrategy":{"type":"Later"},"selector":{},'"$tmpl"'}}')"
check_equal "a selector that does not match, a retention policy outside Retain/Delete, a negative partition" \
        'StatefulSet.apps "bad" is invalid: [spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0, spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": supported values: "Retain", "Delete", spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`]' \
        "$(post statefulsets '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"bad"},"spec":{"updateStrategy":{"rollingUpdate":{"partition":-1}},"persistentVolumeClaimRetentionPolicy":{"whenScaled":"Keep"},"selector":{"matchLabels":{"app":"x"}},'"$tmpl"'}}')"
check_equal "OnDelete with rollingUpdate, restartPolicy Never, a name that is not a DNS label" \
        'StatefulSet.apps "a.b" is invalid: [metadata.name: Invalid value: "a.b": must not contain dots, spec.updateStrategy.rollingUpdate: Invalid value: &apps.RollingUpdateStatefulSetStrategy{Partition:0, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy '"'"'RollingUpdate'"'"', spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"]' \
        "$(post statefulsets '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"a.b"},"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":{"partition":0}},"selector":{"matchLabels":{"app":"y"}},"template":{"metadata":{"labels":{"app":"y"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}')"
check_output "only replicas, ordinals, template, updateStrategy, the retention policy and minReadySeconds change" \
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden" \
        k patch sts web --type=merge -p '{"spec":{"serviceName":"other"}}'
check_equal "the status is the status subresource's: a main-resource write keeps it" "keeps" \
        "$(api PATCH /apis/apps/v1/namespaces/default/statefulsets/def -H 'Content-Type: application/merge-patch+json' -d '{"status":{"replicas":7}}' | jq -r 'if .status.replicas == 7 then "wrote" else "keeps" end')"
check_equal "a status whose readyReplicas exceed replicas is refused" \
        'StatefulSet.apps "def" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas' \
        "$(api PATCH /apis/apps/v1/namespaces/default/statefulsets/def/status -H 'Content-Type: application/merge-patch+json' -d '{"status":{"replicas":1,"readyReplicas":2}}' | jq -r .message)"
check_equal "a ControllerRevision needs data" \
        'ControllerRevision.apps "r" is invalid: data: Required value: data is mandatory' \
        "$(post controllerrevisions '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"revision":1}')"

# --- the controller's first steps
wait_for() { for _ in $(seq 1 100); do [ "$(eval "$2")" = "$1" ] && return 0; sleep 0.1; done; return 1; }
check "OrderedReady: web-0 is made" wait_for "pod/web-0" "k get pods -l app=web -o name"
sleep 1
check_equal "and alone: web-1 waits for web-0 to be Running and Ready" "pod/web-0" \
        "$(k get pods -l app=web -o name | xargs)"
rev=$(k get controllerrevisions -l app=web -o jsonpath='{.items[0].metadata.name}')
check_equal "the template is recorded in ControllerRevision web-<hash>, revision 1, controlled by the set" \
        "yes 1 StatefulSet web true replace" \
        "$(case $rev in web-*) echo -n yes;; esac) $(k get controllerrevision "$rev" -o jsonpath='{.revision} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}') $(k get controllerrevision "$rev" -o json | jq -r '.data.spec.template["$patch"]')"
check_equal "web-0: hostname, subdomain, pod-name, pod-index and controller-revision-hash labels, the claim's volume, a controller reference" \
        "web-0 web-svc web-0 0 $rev data-web-0 StatefulSet true" \
        "$(k get pod web-0 -o jsonpath='{.spec.hostname} {.spec.subdomain} {.metadata.labels.statefulset\.kubernetes\.io/pod-name} {.metadata.labels.apps\.kubernetes\.io/pod-index} {.metadata.labels.controller-revision-hash} {.spec.volumes[?(@.name=="data")].persistentVolumeClaim.claimName} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].controller}')"
check_equal "claim data-web-0 from the template: the selector's labels, 100Mi, no owner (Retain/Retain)" \
        "web 100Mi 0" \
        "$(k get pvc data-web-0 -o jsonpath='{.metadata.labels.app} {.spec.resources.requests.storage}') $(k get pvc data-web-0 -o json | jq '.metadata.ownerReferences // [] | length')"
check "the status: replicas 1, updateRevision, observedGeneration" \
        wait_for "1 $rev 1" "k get sts web -o jsonpath='{.status.replicas} {.status.updateRevision} {.status.observedGeneration}'"

# --- rollout restart, history, undo (the history is the set's ControllerRevisions)
revs() { k get controllerrevisions -l app=web -o jsonpath='{range .items[*]}{.metadata.name}={.revision} {end}' | tr ' ' '\n' | sort | xargs; }
check "rollout restart sts/web" k rollout restart sts/web
check "a second revision records the restarted template" wait_for 2 "k get controllerrevisions -l app=web -o name | wc -l"
check_equal "rollout history lists revisions 1 2" "1 2" \
        "$(k rollout history sts/web | awk '$1 ~ /^[0-9]+$/ {print $1}' | xargs)"
check_output "rollout undo" "statefulset.apps/web rolled back" k rollout undo sts/web
check_equal "the template is revision 1's again (no restartedAt)" "none" \
        "$(k get sts web -o json | jq -r '.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"] // "none"')"
check "the first revision becomes the newest, 3" wait_for "$rev=3" "k get controllerrevision $rev -o jsonpath='{.metadata.name}={.revision}'"
check "and the update revision again" wait_for "$rev" "k get sts web -o jsonpath='{.status.updateRevision}'"

# --- Parallel, and the Delete policies
sts par Parallel 3 Delete Retain | k create -f - >/dev/null
check "Parallel: the 3 ordinals are made at once" wait_for "pod/par-0 pod/par-1 pod/par-2" "k get pods -l app=par -o name | sort | xargs"
check_equal "WhenDeleted Delete: each claim is controlled by the set" \
        "StatefulSet/par/true StatefulSet/par/true StatefulSet/par/true" \
        "$(for i in 0 1 2; do k get pvc data-par-$i -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller} '; done | sed 's/ $//')"
check "switch to WhenScaled Delete, WhenDeleted Retain" k patch sts par --type=merge -p '{"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Delete"}}}'
check "the set's references leave the claims" wait_for "0" "k get pvc -l app=par -o json | jq '[.items[].metadata.ownerReferences // [] | .[]] | length'"
check_output "scale sts par --replicas=1 (the scale subresource)" "statefulset.apps/par scaled" k scale sts par --replicas=1
check "the scaled-down pods go (no node: at once) and their claims with them (owned by the pod)" \
        wait_for "pod/par-0 data-par-0" "echo \$(k get pods -l app=par -o name) \$(k get pvc -l app=par -o name | sed 's|.*/||')"
check_equal "GET scale" "Scale 1 app=par" \
        "$(api GET /apis/apps/v1/namespaces/default/statefulsets/par/scale | jq -r '"\(.kind) \(.spec.replicas) \(.status.selector)"')"

# --- adoption: an orphan whose name makes it a member and whose labels match
k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo-0","labels":{"app":"solo"}},
 "spec":{"containers":[{"name":"c","image":"busybox"}]}}
JSON
sts solo OrderedReady 1 Retain Retain | k create -f - >/dev/null
check "the set adopts the orphan solo-0 (a controller reference)" \
        wait_for "StatefulSet solo true" "k get pod solo-0 -o jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}'"

# --- protobuf: a StatefulSet and a ControllerRevision read and written back unchanged
PB=application/vnd.kubernetes.protobuf
for obj in statefulsets/web "controllerrevisions/$rev"; do
        api GET "/apis/apps/v1/namespaces/default/$obj" -H "Accept: $PB" >"$SERVER_DIR/obj.pb"
        check_equal "$obj in protobuf, PUT back: 200 and the same object" "200 same" \
                "$(api PUT "/apis/apps/v1/namespaces/default/$obj" -H "Content-Type: $PB" -H 'Accept: application/json' --data-binary @"$SERVER_DIR/obj.pb" -o "$SERVER_DIR/put.json" -w '%{http_code}') $(api GET "/apis/apps/v1/namespaces/default/$obj" | jq -S 'del(.metadata.managedFields)' >"$SERVER_DIR/a.json"; jq -S 'del(.metadata.managedFields)' "$SERVER_DIR/put.json" | diff -q - "$SERVER_DIR/a.json" >/dev/null && echo same)"
done

# --- Tables
check_equal "get sts -o wide: NAME READY AGE CONTAINERS IMAGES" "NAME READY AGE CONTAINERS IMAGES web 0/3 c busybox" \
        "$(k get sts web -o wide | tr -s ' \n' ' ' | sed -E 's/ [0-9]+[smhd][0-9smhd]* / /; s/ $//')"
check_equal "get controllerrevisions: NAME CONTROLLER REVISION AGE (the first revision is 3 since the undo)" \
        "NAME CONTROLLER REVISION AGE|$rev statefulset.apps/web 3" \
        "$(k get controllerrevisions "$rev" | awk '{print $1, $2, $3, $4}' | sed -E 's/ [0-9]+[smh][0-9smh]*$//' | paste -sd '|')"
check_output "describe sts reads the strategy and claim templates" "Update Strategy:    RollingUpdate" \
        sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe sts web"
server_check_log

tap_done
