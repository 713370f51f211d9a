#!/usr/bin/env bash
# test-daemonset-history.sh: a DaemonSet's ControllerRevision name collision, through the real
# kubectl against `flexlet apiserver` (no node: the DaemonSet wants no pod, its history is still
# made): when `<ds>-<hash>` is taken by a revision of other data, the controller raises
# status.collisionCount once and records its template under the new hash, leaving the other
# revision alone (K8S: pkg/controller/daemon snapshot, pkg/controller/history).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

# until_equal WHAT WANT COMMAND...: COMMAND every 0.2 s, up to 30 s, until it prints WANT
until_equal() {
        local what=$1 want=$2 got=""
        shift 2
        for _ in $(seq 1 150); do
                got=$("$@" 2>/dev/null)
                [ "$got" = "$want" ] && break
                sleep 0.2
        done
        check_equal "$what" "$want" "$got"
}

ds() {
        k create -f - <<'JSON'
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},
 "spec":{"selector":{"matchLabels":{"app":"agent"}},
  "template":{"metadata":{"labels":{"app":"agent"}},
   "spec":{"containers":[{"name":"c","image":"busybox"}]}}}}
JSON
}
# the names of the revisions the DaemonSet agent controls
owned_revisions() {
        k get controllerrevisions -o json |
                jq -r --arg uid "$(k get ds agent -o jsonpath='{.metadata.uid}')" \
                        '[.items[] | select(.metadata.ownerReferences[]?.uid == $uid) | .metadata.name] | join(" ")'
}
owned_count() {
        owned_revisions | wc -w
}

check "create the DaemonSet" ds
until_equal "its template is recorded in one revision" "1" owned_count
first=$(owned_revisions)
check_equal "the revision is named <ds>-<hash>, the hash also its label" "$first" \
        "agent-$(k get controllerrevision "$first" -o jsonpath='{.metadata.labels.controller-revision-hash}')"
check_equal "no collision so far" "" "$(k get ds agent -o jsonpath='{.status.collisionCount}')"

# The same template hashes to the same name again: delete the set (keeping the revision, then
# deleting it), and take the name with a revision of other data.
check "delete the DaemonSet, orphaning its revision" k delete ds agent --cascade=orphan
check "delete the orphaned revision" k delete controllerrevision "$first"
check "take the name with a revision of other data" k create -f - <<JSON
{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"$first"},
 "data":{"spec":{"template":{"\$patch":"replace","metadata":{"labels":{"app":"other"}}}}},"revision":1}
JSON
check "create the DaemonSet again, same template" ds
until_equal "the collision raises status.collisionCount to 1" "1" \
        k get ds agent -o jsonpath='{.status.collisionCount}'
until_equal "its template is recorded under another name" "1" owned_count
second=$(owned_revisions)
check_equal "the new revision: another <ds>-<hash>, the label its hash, the template's data" \
        "yes agent-$(k get controllerrevision "$second" -o jsonpath='{.metadata.labels.controller-revision-hash}') agent" \
        "$([ "$second" != "$first" ] && echo yes) $second $(k get controllerrevision "$second" -o jsonpath='{.data.spec.template.metadata.labels.app}')"
check_equal "the other revision is left as it was (data, no owner)" "other " \
        "$(k get controllerrevision "$first" -o jsonpath='{.data.spec.template.metadata.labels.app} {.metadata.ownerReferences}')"
# The next syncs hash with collisionCount 1 and find their own revision: no further raise.
check "change minReadySeconds (a new generation)" k patch ds agent --type=merge -p '{"spec":{"minReadySeconds":1}}'
until_equal "the controller observed it" "2" k get ds agent -o jsonpath='{.status.observedGeneration}'
check_equal "collisionCount stays 1, one revision" "1 $second" \
        "$(k get ds agent -o jsonpath='{.status.collisionCount}') $(owned_revisions)"
check "delete the DaemonSet" k delete ds agent
check "delete the other revision" k delete controllerrevision "$first"
server_check_log

tap_done
