#!/usr/bin/env bash
# test-statefulset.sh: a StatefulSet end to end, as root, through the real kubectl against
# `flexlet serve`, so pods really run on claims the local-loop provisioner makes: 3 replicas come
# up in order web-0, web-1, web-2 on their claims data-web-N; a scale to 1 and back to 3 makes
# web-1 and web-2 again on the same claims with the data kept; an in-place resize of web-1 is not
# a rollout (same uid, no restart) while the controller provably syncs again, and `kubectl
# describe sts` names it (ResizedPods); a template change
# rolls out from the highest ordinal and stops at the partition, then completes; rollout history;
# `kubectl patch pvc` grows web-0's xfs claim while it runs; `kubectl delete sts`
# keeps the claims (Retain) or deletes them (Delete).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# xfs grows online (ext4, the default class's, only at the pod's next start: test-pv-expand.sh)
k create -f - >/dev/null <<'JSON'
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"loop-xfs"},
 "provisioner":"flexlet.io/local-loop","parameters":{"fsType":"xfs"},
 "allowVolumeExpansion":true,"volumeBindingMode":"WaitForFirstConsumer"}
JSON
# The pod prints its hostname and the token the test left in its volume (if any), then waits;
# it ends at once on SIGTERM (a shell as pid 1 ignores it otherwise).
sts() { # sts NAME REPLICAS WHEN_DELETED
        cat <<JSON
{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"$1"},
 "spec":{"replicas":$2,"serviceName":"$1","selector":{"matchLabels":{"app":"$1"}},
  "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"$3","whenScaled":"Retain"},
  "template":{"metadata":{"labels":{"app":"$1"}},
   "spec":{"terminationGracePeriodSeconds":1,
    "containers":[{"name":"c","image":"busybox","command":["sh","-c",
      "hostname; cat /data/token 2>/dev/null; trap 'exit 0' TERM; while true; do sleep 1; done"],
     "resources":{"requests":{"cpu":"50m","memory":"32Mi"},"limits":{"cpu":"200m","memory":"64Mi"}},
     "volumeMounts":[{"name":"data","mountPath":"/data"}]}]}},
  "volumeClaimTemplates":[{"metadata":{"name":"data"},
   "spec":{"storageClassName":"loop-xfs","accessModes":["ReadWriteOnce"],
    "resources":{"requests":{"storage":"300Mi"}}}}]}}
JSON
}
pods() { k get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.name} {end}' | sed 's/ $//'; }
uid_of() { k get "$1" "$2" -o jsonpath='{.metadata.uid}'; }
revision_of() { k get pod "$1" -o jsonpath='{.metadata.labels.controller-revision-hash}'; }

# --- up in order, on their claims
sts web 3 Retain | k create -f - >/dev/null
# kubectl reads a set with rollingUpdate (defaulted with the type) as a partitioned roll out
check_output "rollout status returns" "partitioned roll out complete: 3 new pods have been updated" \
        k rollout status sts/web --timeout=90s
check_equal "get sts: 3/3 ready" "web 3/3" "$(k get sts web --no-headers | awk '{print $1, $2}')"
# OrderedReady: each pod is made only once the one below is Ready (one read of the pods)
made_after_ready() { # made_after_ready LATER EARLIER: LATER was created no sooner than EARLIER was Ready
        jq -e --arg a "$1" --arg b "$2" '
                (.items[] | select(.metadata.name == $a) | .metadata.creationTimestamp | fromdate) >=
                (.items[] | select(.metadata.name == $b) | .status.conditions[] | select(.type == "Ready") | .lastTransitionTime | fromdate)' >/dev/null
}
podj=$(k get pods -l app=web -o json)
if made_after_ready web-1 web-0 <<<"$podj" && made_after_ready web-2 web-1 <<<"$podj"; then
        ok "web-1 was made after web-0 was Ready, web-2 after web-1"
else
        not_ok "web-1 was made after web-0 was Ready, web-2 after web-1" \
                "$(jq -r '.items[] | "\(.metadata.name) \(.metadata.creationTimestamp) \(.status.conditions[] | select(.type == "Ready") | .lastTransitionTime)"' <<<"$podj")"
fi
check_equal "the controller's create events came in ordinal order" \
        "create Claim data-web-0 Pod web-0 in StatefulSet web success|create Pod web-0 in StatefulSet web successful|create Claim data-web-1 Pod web-1 in StatefulSet web success|create Pod web-1 in StatefulSet web successful|create Claim data-web-2 Pod web-2 in StatefulSet web success|create Pod web-2 in StatefulSet web successful" \
        "$(k get events --field-selector involvedObject.name=web,reason=SuccessfulCreate --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.message}|{end}' | sed 's/|$//')"
check_equal "each pod runs on its Bound claim data-web-N and is named by its hostname" \
        "Bound Bound Bound web-0 web-1 web-2" \
        "$(k get pvc data-web-0 data-web-1 data-web-2 -o jsonpath='{range .items[*]}{.status.phase} {end}')$(k logs -l app=web --tail=-1 | sort | xargs)"

# --- scale to 1 and back: the same claims, the data kept
token=token-$RANDOM$RANDOM
claim2=$(uid_of pvc data-web-2)
echo "$token" >"$SERVER_DIR/data/pods/$(uid_of pod web-2)/volumes/data/token"
check "scale to 1" k scale sts web --replicas=1
until_equal "web-2 then web-1 go, web-0 stays" "web-0" pods
check_equal "the highest ordinal went first; the claims stay (Retain)" \
        "delete Pod web-2 in StatefulSet web successful|delete Pod web-1 in StatefulSet web successful 3" \
        "$(k get events --field-selector involvedObject.name=web,reason=SuccessfulDelete --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | awk '!seen[$0]++' | paste -sd '|') $(k get pvc -l app=web -o name | wc -l)"
check "scale back to 3" k scale sts web --replicas=3
check_output "rollout status returns after the scale up" "partitioned roll out complete: 3 new pods have been updated" \
        k rollout status sts/web --timeout=90s
check_equal "web-2 is back on the same claim, and reads the token written before the scale-down" \
        "$claim2 $token" "$(uid_of pvc data-web-2) $(k logs web-2 | sed -n 2p)"

# --- an in-place resize of web-1 is not a rollout
uid1=$(uid_of pod web-1)
rev1=$(revision_of web-1)
check "resize web-1 in place" k patch pod web-1 --subresource resize \
        -p '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"60m"}}}]}}'
until_equal "the resize is applied" "60m" \
        k get pod web-1 -o jsonpath='{.status.containerStatuses[0].resources.requests.cpu}'
# The controller provably syncs after the resize: a spec change it must observe
check "change minReadySeconds (a new generation)" k patch sts web --type=merge -p '{"spec":{"minReadySeconds":1}}'
until_equal "the controller observed it" "$(k get sts web -o jsonpath='{.metadata.generation}')" \
        k get sts web -o jsonpath='{.status.observedGeneration}'
check_equal "web-1 is the same pod at the same revision, not restarted, still 60m" \
        "$uid1 $rev1 0 60m 3" \
        "$(k get pod web-1 -o jsonpath='{.metadata.uid} {.metadata.labels.controller-revision-hash} {.status.containerStatuses[0].restartCount} {.spec.containers[0].resources.requests.cpu}') $(k get sts web -o jsonpath='{.status.updatedReplicas}')"
check_output "describe sts shows the resized pod (an Event ResizedPods)" \
        "Pod web-1 runs resized in place: c requests.cpu 60m (template 50m)" \
        sh -c "for _ in \$(seq 1 50); do '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe sts web | grep -q ResizedPods && break; sleep 0.2; done; '$KUBECTL' --cache-dir '$SERVER_DIR/cache' describe sts web"

# --- a template change rolls out from the highest ordinal, down to the partition
uid0=$(uid_of pod web-0)
check "partition 1 and a template change" k patch sts web --type=merge \
        -p '{"spec":{"minReadySeconds":0,"updateStrategy":{"rollingUpdate":{"partition":1}},"template":{"metadata":{"annotations":{"probe":"v2"}}}}}'
check_output "rollout status: the partitioned roll out completes" "partitioned roll out complete: 2 new pods have been updated" \
        k rollout status sts/web --timeout=90s
new=$(k get sts web -o jsonpath='{.status.updateRevision}')
podj=$(k get pods -l app=web -o json)
check_equal "web-2 and web-1 are at the new revision, web-0 (below the partition) untouched" \
        "$new $new $rev1 $uid0" \
        "$(jq -r '[.items[] | {(.metadata.name): .}] | add | "\(.["web-2"].metadata.labels["controller-revision-hash"]) \(.["web-1"].metadata.labels["controller-revision-hash"]) \(.["web-0"].metadata.labels["controller-revision-hash"]) \(.["web-0"].metadata.uid)"' <<<"$podj")"
if made_after_ready web-1 web-2 <<<"$podj"; then
        ok "web-2 was replaced first, web-1 after web-2 was Ready again"
else
        not_ok "web-2 was replaced first, web-1 after web-2 was Ready again"
fi
check "partition 0" k patch sts web --type=merge -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}'
check_output "rollout status: web-0 follows" "partitioned roll out complete: 3 new pods have been updated" \
        k rollout status sts/web --timeout=90s
until_equal "status: 3 current and updated, currentRevision is the update revision, web-0 at it" "3 3 $new $new" \
        sh -c "echo \$('$KUBECTL' --cache-dir '$SERVER_DIR/cache' get sts web -o jsonpath='{.status.currentReplicas} {.status.updatedReplicas} {.status.currentRevision}') \$('$KUBECTL' --cache-dir '$SERVER_DIR/cache' get pod web-0 -o jsonpath='{.metadata.labels.controller-revision-hash}')"
check_equal "rollout history lists revisions 1 2" "1 2" \
        "$(k rollout history sts/web | awk '$1 ~ /^[0-9]+$/ {print $1}' | xargs)"

# --- web-0's claim grows while it runs
uid0=$(uid_of pod web-0)
mnt=$SERVER_DIR/data/pods/$uid0/volumes/data
before=$(df -k --output=size "$mnt" | tail -1)
check "patch pvc data-web-0 to 900Mi" k patch pvc data-web-0 -p '{"spec":{"resources":{"requests":{"storage":"900Mi"}}}}'
until_equal "the claim reports 900Mi" "900Mi" k get pvc data-web-0 -o jsonpath='{.status.capacity.storage}'
after=$(df -k --output=size "$mnt" | tail -1)
if [ "$after" -gt $((before + 400000)) ]; then
        ok "the mounted filesystem grew ($before KiB -> $after KiB)"
else
        not_ok "the mounted filesystem grew" "$before KiB -> $after KiB"
fi
check_equal "web-0 kept running: same uid, restartCount 0, Ready" "$uid0 0 True" \
        "$(k get pod web-0 -o jsonpath='{.metadata.uid} {.status.containerStatuses[0].restartCount} {.status.conditions[?(@.type=="Ready")].status}')"

# --- delete: Retain keeps the claims, Delete removes them
check "delete sts web" k delete sts web --wait=true --timeout=60s
until_equal "its pods go" "" pods
check_equal "its claims stay (whenDeleted Retain), owned by nobody" "3 0" \
        "$(k get pvc -l app=web -o name | wc -l) $(k get pvc -l app=web -o json | jq '[.items[].metadata.ownerReferences // [] | .[]] | length')"
sts db 1 Delete | k create -f - >/dev/null
check_output "a set with whenDeleted Delete comes up" "partitioned roll out complete: 1 new pods have been updated" \
        k rollout status sts/db --timeout=90s
check_equal "its claim is controlled by the set" "StatefulSet db true" \
        "$(k get pvc data-db-0 -o jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}')"
check "delete sts db" k delete sts db
until_equal "its pod and its claim go" "0 0" \
        sh -c "echo \$('$KUBECTL' --cache-dir '$SERVER_DIR/cache' get pods -l app=db -o name | wc -l) \$('$KUBECTL' --cache-dir '$SERVER_DIR/cache' get pvc -l app=db -o name | wc -l)"

tap_done
