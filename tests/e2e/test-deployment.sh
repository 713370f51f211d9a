#!/usr/bin/env bash
# test-deployment.sh: Deployments and ReplicaSets end to end, as root, through the real kubectl
# 1.32 against `flexlet serve`, so pods really run and become Ready: create deployment
# --replicas=3, scale to 5, set image and set resources roll out (rollout status returns),
# rollout history, undo, restart, pause and resume, an in-place resize of a Deployment's pod that
# keeps its name and uid while both controllers provably sync again, and a ReplicaSet adopting
# an orphan pod.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# the pods end at once on SIGTERM (a shell as pid 1 ignores it otherwise)
cmd="trap 'exit 0' TERM; while true; do sleep 1; done"
rs_of() { k get rs -l app=web -o jsonpath="{range .items[?(@.spec.replicas>0)]}{.metadata.name}{end}"; }
ready_pods() { k get pods -l app=web --field-selector=status.phase=Running -o name | wc -l; }

# --- create and scale (kubectl 1.32: protobuf bodies, the scale subresource)
check "create deployment --replicas=3 (kubectl 1.32)" \
        kv 1.32 create deployment web --image=busybox --replicas=3 -- sh -c "$cmd"
check_output "rollout status returns" 'deployment "web" successfully rolled out' \
        kv 1.32 rollout status deploy/web --timeout=60s
check_equal "get deploy: 3/3 ready, 3 up to date, 3 available" "web 3/3 3 3" \
        "$(k get deploy web --no-headers | awk '{print $1, $2, $3, $4}')"
rs1=$(rs_of)
hash1=$(k get rs "$rs1" -o jsonpath='{.metadata.labels.pod-template-hash}')
check_equal "the ReplicaSet is <deployment>-<pod-template-hash>, revision 1" "web-$hash1 1" \
        "$rs1 $(k get rs "$rs1" -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')"
check_equal "its pods carry the hash and a controller reference to it" "3 3" \
        "$(k get pods -l pod-template-hash="$hash1" -o name | wc -l) $(k get pods -l app=web -o json | jq "[.items[].metadata.ownerReferences[] | select(.controller and .blockOwnerDeletion and .kind == \"ReplicaSet\" and .name == \"$rs1\")] | length")"
check "scale --replicas=5 (kubectl 1.32)" kv 1.32 scale deploy/web --replicas=5
check_output "rollout status after the scale" 'deployment "web" successfully rolled out' \
        kv 1.32 rollout status deploy/web --timeout=60s
until_equal "5 pods run" 5 ready_pods

# --- rollouts
check "set image rolls out" k set image deploy/web busybox=busybox:1.36
check_output "rollout status returns after set image" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=90s
rs2=$(rs_of)
check_equal "a new ReplicaSet holds the 5 pods, the old one is at 0" "5 0" \
        "$([ "$rs2" != "$rs1" ] && k get rs "$rs2" -o jsonpath='{.status.readyReplicas}') $(k get rs "$rs1" -o jsonpath='{.spec.replicas}')"
# the later rollouts, of 2 pods, surge all at once (the arithmetic of smaller steps is
# unit-tested): fewer pod starts keep the test short
check "2 replicas, maxSurge 100%, maxUnavailable 0" k patch deploy web -p '{"spec":{"replicas":2,"strategy":{"rollingUpdate":{"maxSurge":"100%","maxUnavailable":0}}}}'
check "set resources rolls out" k set resources deploy/web -c busybox --requests=cpu=50m,memory=32Mi --limits=cpu=200m,memory=64Mi
check_output "rollout status returns after set resources" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=90s
rs3=$(rs_of)
check_equal "the pods run with the template's resources (revision 3)" "200m 3" \
        "$(k get pods -l pod-template-hash="${rs3#web-}" -o jsonpath='{.items[0].spec.containers[0].resources.limits.cpu}') $(k get deploy web -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')"
check_equal "rollout history lists revisions 1 2 3" "1 2 3" \
        "$(k rollout history deploy/web | awk '$1 ~ /^[0-9]+$/ {print $1}' | xargs)"
check "rollout undo" k rollout undo deploy/web
check_output "rollout status returns after undo" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=90s
check_equal "undo went back to revision 2's template (busybox:1.36, no limits), now revision 4" \
        "$rs2 busybox:1.36 4" \
        "$(rs_of) $(k get deploy web -o jsonpath='{.spec.template.spec.containers[0].image}{.spec.template.spec.containers[0].resources.limits.cpu}') $(k get rs "$rs2" -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')"
check "rollout restart" k rollout restart deploy/web
check_output "rollout status returns after restart" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=90s
rs5=$(rs_of)
check_equal "restart made a new ReplicaSet with the restartedAt annotation" "yes" \
        "$([ "$rs5" != "$rs2" ] && [ -n "$(k get rs "$rs5" -o jsonpath='{.spec.template.metadata.annotations.kubectl\.kubernetes\.io/restartedAt}')" ] && echo yes)"
check "rollout pause" k rollout pause deploy/web
until_equal "paused: Progressing is Unknown DeploymentPaused" "Unknown DeploymentPaused" \
        k get deploy web -o jsonpath='{.status.conditions[?(@.type=="Progressing")].status} {.status.conditions[?(@.type=="Progressing")].reason}'
check "set image while paused" k set image deploy/web busybox=busybox:1.37
check "set resources while paused" k set resources deploy/web -c busybox --requests=cpu=50m,memory=32Mi --limits=cpu=200m,memory=64Mi
sleep 1
check_equal "paused: no new ReplicaSet" "$rs5" "$(rs_of)"
check "rollout resume" k rollout resume deploy/web
check_output "rollout status returns after resume" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=90s
rs6=$(rs_of)

# --- an in-place resize of a Deployment's pod is not a rollout
pod=$(k get pods -l pod-template-hash="${rs6#web-}" -o jsonpath='{.items[0].metadata.name}')
uid=$(k get pod "$pod" -o jsonpath='{.metadata.uid}')
check "resize a Deployment's pod in place" k patch pod "$pod" --subresource resize \
        -p '{"spec":{"containers":[{"name":"busybox","resources":{"requests":{"cpu":"60m"}}}]}}'
until_equal "the resize is applied" "60m" \
        k get pod "$pod" -o jsonpath='{.status.containerStatuses[0].resources.requests.cpu}'
check_output "describe deploy shows the resized pod (an Event ResizedPods)" \
        "Pod $pod runs resized in place: busybox requests.cpu 60m (template 50m)" \
        sh -c "for _ in \$(seq 1 50); do '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe deploy web | grep -q ResizedPods && break; sleep 0.2; done; '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe deploy web"
# Both controllers sync again after the resize, provably: the Deployment controller copies a
# new annotation of the Deployment onto its ReplicaSet, and the ReplicaSet controller makes the
# third pod of a scale to 3. Each pass looks at every pod of the set, the resized one included.
check "annotate the Deployment" k annotate deploy web probe=after-resize
until_equal "the Deployment controller ran (the annotation reached the ReplicaSet)" "after-resize" \
        k get rs "$rs6" -o jsonpath='{.metadata.annotations.probe}'
check "scale to 3" k scale deploy/web --replicas=3
check_output "rollout status after the scale" 'deployment "web" successfully rolled out' \
        k rollout status deploy/web --timeout=60s
check_equal "the ReplicaSet controller ran (3 ready) and the resized pod is the same pod" \
        "3 $rs6 $uid 60m" \
        "$(k get rs "$rs6" -o jsonpath='{.status.readyReplicas}') $(rs_of) $(k get pod "$pod" -o jsonpath='{.metadata.uid} {.spec.containers[0].resources.requests.cpu}')"
check_equal "the template still asks for 50m (nothing compared the pod with it)" "50m" \
        "$(k get deploy web -o jsonpath='{.spec.template.spec.containers[0].resources.requests.cpu}')"

# --- a ReplicaSet adopts a matching orphan
k apply -f - >/dev/null <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"orphan","labels":{"app":"solo"}},
 "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","command":["sh","-c","$cmd"]}]}}
JSON
k wait --for=condition=Ready pod/orphan --timeout=30s >/dev/null 2>&1
k apply -f - >/dev/null <<JSON
{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"solo"},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"solo"}},
  "template":{"metadata":{"labels":{"app":"solo"}},
   "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","command":["sh","-c","$cmd"]}]}}}}
JSON
until_equal "the ReplicaSet is 2/2 ready" "2" k get rs solo -o jsonpath='{.status.readyReplicas}'
check_equal "it adopted the orphan (controller reference) and made one pod" "solo 2" \
        "$(k get pod orphan -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].name}') $(k get pods -l app=solo -o name | wc -l)"

tap_done
