#!/usr/bin/env bash
# test-workloads.sh: apps/v1 Deployments and ReplicaSets through the real kubectl against
# `flexlet apiserver` (no node: the pods stay Pending), the API alone: discovery and short
# names, defaults, upstream's validation messages, the scale subresource in JSON and protobuf
# (kubectl 1.32 and 1.33's `scale`, a raw protobuf Scale read and written back), the Table
# columns, and the controllers' first steps (a ReplicaSet named by the pod-template-hash, its
# pods, the ownerReferences, the status) and a Recreate rollout (pods without a node go at once).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"
PB=application/vnd.kubernetes.protobuf
W=$SERVER_DIR/work
mkdir -p "$W"

# --- the kinds
check_equal "discovery: apps/v1 deployments (deploy), replicasets (rs), daemonsets (ds), controllerrevisions" \
        "controllerrevisions apps/v1 true ControllerRevision daemonsets ds apps/v1 true DaemonSet deployments deploy apps/v1 true Deployment replicasets rs apps/v1 true ReplicaSet" \
        "$(k api-resources --api-group=apps --no-headers | grep -E '^(controllerrevisions|daemonsets|deployments|replicasets) ' | tr -s ' \n' ' ' | sed 's/ $//')"
check_equal "discovery: deployments/scale is an autoscaling/v1 Scale" \
        '{"name":"deployments/scale","group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}' \
        "$(api GET /apis/apps/v1 | jq -c '.resources[] | select(.name == "deployments/scale") | {name, group, version, kind, verbs}')"
check "create deployment --replicas=3 (kubectl 1.32, protobuf)" kv 1.32 create deployment web --image=busybox --replicas=3
check_equal "defaults: RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600, the template's" \
        'RollingUpdate 25% 25% 10 600 Always ClusterFirst File' \
        "$(k get deploy web -o jsonpath='{.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} {.spec.strategy.rollingUpdate.maxUnavailable} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.spec.template.spec.restartPolicy} {.spec.template.spec.dnsPolicy} {.spec.template.spec.containers[0].terminationMessagePolicy}')"

# --- validation
post() { api POST "/apis/apps/v1/namespaces/default/$1" -H 'Content-Type: application/json' -d "$2" | jq -r .message; }
tmpl='"template":{"metadata":{"labels":{"app":"y"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
check_equal "a selector that does not match the template's labels" \
        'Deployment.apps "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`' \
        "$(post deployments '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad"},"spec":{"selector":{"matchLabels":{"app":"x"}},'"$tmpl"'}}')"
check_equal "no selector, a negative count, restartPolicy Never" \
        'ReplicaSet.apps "bad" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]' \
        "$(post replicasets '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"bad"},"spec":{"replicas":-1,'"$tmpl"'}}')"
check_equal "maxSurge and maxUnavailable both 0" \
        'Deployment.apps "bad" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0' \
        "$(post deployments '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad"},"spec":{"selector":{"matchLabels":{"app":"y"}},"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":0}},'"$tmpl"'}}')"
check_equal "restartPolicy must be Always" \
        'Deployment.apps "bad" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"' \
        "$(post deployments '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad"},"spec":{"selector":{"matchLabels":{"app":"y"}},"template":{"metadata":{"labels":{"app":"y"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}')"
check_output "the selector is immutable" \
        'spec.selector: Invalid value: &v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable' \
        k patch deploy web --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}'

# --- the controllers' first steps (no node: the pods stay Pending)
wait_for() { for _ in $(seq 1 100); do [ "$(eval "$2")" = "$1" ] && return 0; sleep 0.1; done; return 1; }
hash_of() { k get rs -l app=web -o jsonpath='{.items[0].metadata.labels.pod-template-hash}'; }
check "the Deployment controller makes one ReplicaSet" wait_for 1 "k get rs -l app=web -o name | wc -l"
h=$(hash_of)
check_equal "named <deployment>-<hash>, revision 1, owned by the Deployment (controller, blockOwnerDeletion)" \
        "web-$h 1 Deployment web true true" \
        "$(k get rs "web-$h" -o jsonpath='{.metadata.name} {.metadata.annotations.deployment\.kubernetes\.io/revision} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller} {.metadata.ownerReferences[0].blockOwnerDeletion}')"
check "the ReplicaSet controller makes 3 pods web-$h-xxxxx" wait_for 3 "k get pods -l pod-template-hash=$h -o name | grep -c '^pod/web-$h-'"
check "the ReplicaSet's status counts them" wait_for 3 "k get rs web-$h -o jsonpath='{.status.replicas}'"

# --- scale
check_output "scale --replicas=5 (kubectl 1.32)" "deployment.apps/web scaled" kv 1.32 scale deploy/web --replicas=5
check_output "scale --replicas=4 (kubectl 1.33)" "deployment.apps/web scaled" kv 1.33 scale deploy/web --replicas=4
check_equal "GET scale: an autoscaling/v1 Scale of spec.replicas and the selector" \
        'Scale autoscaling/v1 4 app=web' \
        "$(api GET /apis/apps/v1/namespaces/default/deployments/web/scale | jq -r '"\(.kind) \(.apiVersion) \(.spec.replicas) \(.status.selector)"')"
if command -v protoc >/dev/null; then
        # the Scale's resourceVersion is the Deployment's: read it once the Deployment controller
        # has written the scale's status (else its write makes the PUT below a 409, rightly)
        check "the Deployment's status settles at 4 replicas" \
                wait_for "4 $(k get deploy web -o jsonpath='{.metadata.generation}')" \
                "k get deploy web -o jsonpath='{.status.replicas} {.status.observedGeneration}'"
        api GET /apis/apps/v1/namespaces/default/deployments/web/scale -H "Accept: $PB" >"$W/scale.pb"
        check_equal "GET scale in protobuf: spec.replicas (2.1) and status.selector (3.2)" '4 "app=web"' \
                "$(tail -c +5 "$W/scale.pb" | protoc --decode_raw | tr -s ' \n' ' ' | sed -E 's/.*\} 2 \{ 1: ([0-9]+) \} 3 \{ 1: [0-9]+ 2: ("[^"]*") \}.*/\1 \2/')"
        check_equal "PUT of that protobuf Scale back is 200 and keeps 4" "200 4" \
                "$(api PUT /apis/apps/v1/namespaces/default/deployments/web/scale -H "Content-Type: $PB" -H 'Accept: application/json' --data-binary @"$W/scale.pb" -o "$W/put.json" -w '%{http_code}') $(jq -r .spec.replicas "$W/put.json")"
else
        ok "# SKIP protoc (Debian protobuf-compiler) is not installed"
        ok "# SKIP protoc (Debian protobuf-compiler) is not installed"
        ok "# SKIP protoc (Debian protobuf-compiler) is not installed"
fi
check_equal "a negative scale is refused as the Scale's" \
        'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' \
        "$(api PATCH /apis/apps/v1/namespaces/default/deployments/web/scale -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"replicas":-1}}' | jq -r .message)"
check_equal "a stale Scale resourceVersion is a conflict on the Deployment" "409" \
        "$(api PUT /apis/apps/v1/namespaces/default/deployments/web/scale -H 'Content-Type: application/json' -d '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":2}}' | jq -r .code)"
check "the ReplicaSet follows the scale to 4 pods" wait_for 4 "k get rs web-$h -o jsonpath='{.status.replicas}'"

# --- Recreate: the old ReplicaSet goes to 0 and its pods away before the new one is made
k apply -f - >/dev/null <<'JSON'
{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"rec"},
 "spec":{"replicas":2,"strategy":{"type":"Recreate"},"selector":{"matchLabels":{"app":"rec"}},
  "template":{"metadata":{"labels":{"app":"rec"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}
JSON
check "Recreate: the first ReplicaSet has 2 pods" wait_for 2 "k get pods -l app=rec -o name | wc -l"
r1=$(k get rs -l app=rec -o jsonpath='{.items[0].metadata.name}')
check "set image on the Recreate Deployment" k set image deploy/rec c=busybox:1.36
check "Recreate: a second ReplicaSet takes the 2 pods" \
        wait_for "2 busybox:1.36" "k get rs -l app=rec -o jsonpath='{range .items[?(@.spec.replicas>0)]}{.status.replicas} {.spec.template.spec.containers[0].image}{end}'"
check_equal "Recreate: the old ReplicaSet is at 0, none of its pods is left" "0 0" \
        "$(k get rs "$r1" -o jsonpath='{.spec.replicas}') $(k get pods -l pod-template-hash="${r1#rec-}" -o name | wc -l)"

# --- Tables
check_equal "get deploy: NAME READY UP-TO-DATE AVAILABLE AGE" "NAME READY UP-TO-DATE AVAILABLE AGE web 0/4 4 0" \
        "$(k get deploy web | tr -s ' \n' ' ' | sed -E 's/ $//; s/ [0-9]+[smh][0-9]*s?$//')"
check_equal "get rs -o wide: NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR" \
        "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR web-$h 4 4 0 busybox busybox app=web,pod-template-hash=$h" \
        "$(k get rs -l app=web -o wide | tr -s ' \n' ' ' | sed -E 's/ [0-9]+[smh][0-9]*s? / /; s/ $//')"
check_output "describe deploy reads the strategy and replicas" \
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge" \
        sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe deploy web | grep RollingUpdateStrategy"

# --- DaemonSets (the API alone: no node, so nothing is desired)
ds() { printf '{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"%s"},"spec":{"selector":{"matchLabels":{"app":"d"}},%s"template":{"metadata":{"labels":{"app":"%s"}},"spec":{"nodeSelector":{"disk":"ssd","zone":"a"},"containers":[{"name":"c","image":"busybox"}]}}}}' "$1" "$2" "${3:-d}"; }
ds d1 '' >"$W/ds.json"
check "create a DaemonSet (kubectl 1.32, protobuf)" kv 1.32 create -f "$W/ds.json"
check_equal "defaults: RollingUpdate, maxUnavailable 1, maxSurge 0, revisionHistoryLimit 10, generation 1" \
        'RollingUpdate 1 0 10 1' \
        "$(k get ds d1 -o jsonpath='{.spec.updateStrategy.type} {.spec.updateStrategy.rollingUpdate.maxUnavailable} {.spec.updateStrategy.rollingUpdate.maxSurge} {.spec.revisionHistoryLimit} {.metadata.generation}')"
check_equal "a selector that does not match the template's labels" \
        'DaemonSet.apps "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`' \
        "$(post daemonsets "$(ds bad '' x)")"
check_equal "maxSurge and maxUnavailable both set" \
        'DaemonSet.apps "bad" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero' \
        "$(post daemonsets "$(ds bad '"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":1}},')")"
check_equal "maxSurge and maxUnavailable both 0" \
        'DaemonSet.apps "bad" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0' \
        "$(post daemonsets "$(ds bad '"updateStrategy":{"rollingUpdate":{"maxSurge":"0%","maxUnavailable":0}},')")"
check_equal "an unknown strategy, a negative revisionHistoryLimit" \
        'DaemonSet.apps "bad" is invalid: [spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Always", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete", spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0]' \
        "$(post daemonsets "$(ds bad '"revisionHistoryLimit":-1,"updateStrategy":{"type":"Always"},')")"
check_equal "an empty selector" \
        'DaemonSet.apps "bad" is invalid: spec.selector: Invalid value: &v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset' \
        "$(post daemonsets "$(ds bad '' | jq -c '.spec.selector = {}')")"
check_output "the selector is immutable" 'field is immutable' \
        k patch ds d1 --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"e"}},"template":{"metadata":{"labels":{"app":"e"}}}}}'
check_equal "get ds -o wide: upstream's columns, the node selector as labels" \
        "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS IMAGES SELECTOR d1 0 0 0 0 0 disk=ssd,zone=a c busybox app=d" \
        "$(k get ds d1 -o wide | tr -s ' \n' ' ' | sed -E 's/ [0-9]+[smh][0-9]*s? / /; s/ $//')"
check_equal "ControllerRevision: data is mandatory" \
        'ControllerRevision.apps "bad" is invalid: data: Required value: data is mandatory' \
        "$(post controllerrevisions '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"bad"},"revision":1}')"
uid=$(k get ds d1 -o jsonpath='{.metadata.uid}')
check_equal "a ControllerRevision owned by the DaemonSet is created" 201 \
        "$(api POST /apis/apps/v1/namespaces/default/controllerrevisions -H 'Content-Type: application/json' -o /dev/null -w '%{http_code}' \
                -d '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"cr1","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"d1","uid":"'"$uid"'","controller":true}]},"data":{"spec":{}},"revision":7}')"
check_equal "get controllerrevisions: NAME CONTROLLER REVISION AGE" \
        "NAME CONTROLLER REVISION AGE cr1 daemonset.apps/d1 7" \
        "$(k get controllerrevisions cr1 | tr -s ' \n' ' ' | sed -E 's/ $//; s/ [0-9]+[smh][0-9]*s?$//')"
check_output "its data is immutable" 'data: Invalid value' \
        k patch controllerrevision cr1 --type=merge -p '{"data":{"spec":{"x":1}}}'

# --- Indexed Jobs' validation (batch/v1 1.32)
jobpost() { api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"${2:-bad}\"},\"spec\":{$1\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}" | jq -r .message; }
check_equal "backoffLimitPerIndex and maxFailedIndexes require Indexed" \
        'Job.batch "bad" is invalid: [spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode, spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode]' \
        "$(jobpost '"backoffLimitPerIndex":1,"maxFailedIndexes":1,')"
check_equal "Indexed without completions; maxFailedIndexes without backoffLimitPerIndex" \
        'Job.batch "bad" is invalid: [spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified, spec.completions: Required value: when completion mode is Indexed]' \
        "$(jobpost '"completionMode":"Indexed","parallelism":2,"maxFailedIndexes":1,')"
check_equal "successPolicy: a bad succeededIndexes, a count above completions" \
        'Job.batch "bad" is invalid: [spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3-1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1, spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or equal to 4 (the number of specified completions)]' \
        "$(jobpost '"completionMode":"Indexed","completions":4,"successPolicy":{"rules":[{"succeededIndexes":"3-1"},{"succeededCount":5}]},')"
check_equal "the last index's hostname must be a DNS label" \
        "Job.batch \"$(printf 'j%.0s' $(seq 1 62))\" is invalid: metadata.name: Invalid value: \"$(printf 'j%.0s' $(seq 1 62))\": will not able to create pod with invalid DNS label: $(printf 'j%.0s' $(seq 1 62))-9" \
        "$(jobpost '"completionMode":"Indexed","completions":10,' "$(printf 'j%.0s' $(seq 1 62))")"
jobpost '"completionMode":"Indexed","completions":2,' ok >/dev/null
check_output "an Indexed Job is accepted; completionMode is immutable" \
        'Invalid value: \"NonIndexed\": field is immutable","field":"spec.completionMode"' \
        api PATCH /apis/batch/v1/namespaces/default/jobs/ok -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"completionMode":"NonIndexed"}}'

tap_done
