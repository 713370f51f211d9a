#!/usr/bin/env bash
# test-audit.sh: the audit log (docs/audit.md) of `flexlet apiserver` driven by the real kubectl:
# a resize at RequestResponse with its user, verb, objectRef, request and response and both
# stages; Metadata for the rest; a None rule that silences events; omitStages; a watch's
# ResponseStarted; a failed authentication; the Audit-Id header; lumberjack's rotation keeping
# --audit-log-maxbackup files with upstream's names; and the refusals at start (a bad policy,
# a log path without a policy) with upstream's words.
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
rules:
- level: RequestResponse
  resources:
  - group: ""
    resources: ["pods/resize"]
- level: None
  resources:
  - group: ""
    resources: ["events"]
- level: Request
  omitStages: ["RequestReceived"]
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
EOF
log=$SERVER_DIR/audit/audit.log
if ! server_start --audit-policy-file "$tmp/policy.yaml" --audit-log-path "$log" \
        --audit-log-maxsize 1 --audit-log-maxbackup 2; then
        not_ok "server starts with an audit policy and log"
        tap_done
        exit 1
fi
ok "server starts with an audit policy and log"
check_equal "the log is made 0600 in a folder made 0700" "600 700" \
        "$(stat -c %a "$log") $(stat -c %a "$(dirname "$log")")"

# the resize, at RequestResponse
k apply -f "$here/manifests/pod-web.json" >/dev/null
check "kubectl patch --subresource resize" k patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}'
resize() { jq -c "select(.verb == \"patch\" and .objectRef.subresource == \"resize\") | $1" "$log"; }
check_equal "the resize: both stages, one audit ID, RequestResponse" \
        '["RequestReceived","RequestResponse"] ["ResponseComplete","RequestResponse"] 1' \
        "$(resize '[.stage, .level]' | tr '\n' ' ')$(resize .auditID | sort -u | wc -l)"
check_equal "the resize: who, the verb, the objectRef" \
        '"kubernetes-admin" "patch" {"resource":"pods","namespace":"default","name":"web","apiVersion":"v1","subresource":"resize"}' \
        "$(resize 'select(.stage == "ResponseComplete") | .user.username, .verb, .objectRef' | tr '\n' ' ' | sed 's/ $//')"
check_equal "the resize: requestObject is the patch, responseObject the pod as resized" \
        '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}} {"limits":{"cpu":"300m","memory":"128Mi"},"requests":{"cpu":"150m","memory":"64Mi"}}' \
        "$(resize 'select(.stage == "ResponseComplete") | .requestObject, .responseObject.spec.containers[0].resources' | tr '\n' ' ' | sed 's/ $//')"
check_equal "the resize: code, the client's address and user agent, microsecond timestamps" \
        '200 ["127.0.0.1"] true true' \
        "$(resize 'select(.stage == "ResponseComplete") | [.responseStatus.code, .sourceIPs, (.userAgent | startswith("kubectl/")), (.stageTimestamp | test("^[0-9-]{10}T[0-9:]{8}\\.[0-9]{6}Z$"))] | map(tostring) | join(" ")' | jq -r .)"
check_equal "the jq line of docs/audit.md answers who resized web to what" \
        '{"who":"kubernetes-admin","code":200,"to":[{"name":"c1","resources":{"limits":{"cpu":"300m","memory":"128Mi"},"requests":{"cpu":"150m","memory":"64Mi"}}}]}' \
        "$(jq -c 'select(.objectRef.subresource == "resize" and .verb == "patch" and .stage == "ResponseComplete" and .objectRef.name == "web") | {when: .stageTimestamp, who: .user.username, code: .responseStatus.code, to: [.responseObject.spec.containers[] | {name, resources}]} | del(.when)' "$log")"

# the rest at Metadata: no bodies; a failure keeps its Status
k get pod web >/dev/null
k get pod nosuch >/dev/null 2>&1
check_equal "get at Metadata: no request or response object" '"Metadata" false false' \
        "$(jq -c 'select(.verb == "get" and .objectRef.name == "web" and .objectRef.subresource == null and .stage == "ResponseComplete") | .level, has("requestObject"), has("responseObject")' "$log" | tail -3 | tr '\n' ' ' | sed 's/ $//')"
check_equal "a 404 keeps upstream's Status fields in responseStatus" \
        '{"metadata":{},"status":"Failure","message":"pods \"nosuch\" not found","reason":"NotFound","details":{"name":"nosuch","kind":"pods"},"code":404}' \
        "$(jq -c 'select(.objectRef.name == "nosuch" and .stage == "ResponseComplete") | .responseStatus' "$log")"

# a None rule: events are never written
api POST /api/v1/namespaces/default/events -H 'Content-Type: application/json' -o /dev/null -d \
        '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"web","namespace":"default"},"reason":"Test","message":"m"}'
check_equal "the event was created" "Test" "$(k get event e1 -o jsonpath='{.reason}')"
check_equal "a None rule silences events" "0" "$(jq -c 'select(.objectRef.resource == "events")' "$log" | wc -l)"

# omitStages: configmaps without RequestReceived; Request level has the body and no response
k create configmap small --from-literal=a=b >/dev/null
check_equal "omitStages: only ResponseComplete for the configmap" '"ResponseComplete" "Request" {"a":"b"} false' \
        "$(jq -c 'select(.objectRef.resource == "configmaps" and .objectRef.name == "small") | .stage, .level, .requestObject.data, has("responseObject")' "$log" | tr '\n' ' ' | sed 's/ $//')"

# a watch: ResponseStarted when it starts, ResponseComplete when it ends
api GET '/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1' -o /dev/null
check_equal "a watch: RequestReceived, ResponseStarted, ResponseComplete" \
        '"RequestReceived" "ResponseStarted" "ResponseComplete"' \
        "$(jq -c 'select(.verb == "watch" and .objectRef.namespace == "default" and .objectRef.resource == "pods") | .stage' "$log" | tr '\n' ' ' | sed 's/ $//')"

# a failed authentication: one ResponseStarted, upstream's message
curl -sk -H 'Authorization: Bearer garbage' -o /dev/null "https://127.0.0.1:$SERVER_PORT/api/v1/namespaces/default/configmaps/failed-authn"
check_equal "a failed authentication: ResponseStarted 401 with the methods tried" \
        '"ResponseStarted" {"metadata":{},"message":"Authentication failed, attempted: bearer","code":401}' \
        "$(jq -c 'select(.requestURI == "/api/v1/namespaces/default/configmaps/failed-authn") | .stage, .responseStatus' "$log" | tr '\n' ' ' | sed 's/ $//')"

# the Audit-Id header names the events of its request; a client's own Audit-ID is kept
id=$(api GET /api/v1/namespaces/default/pods/web -D - -o /dev/null | tr -d '\r' | sed -n 's/^Audit-Id: //Ip')
check_equal "the Audit-Id header names the request's events" "2" \
        "$(jq -c --arg id "$id" 'select(.auditID == $id)' "$log" | wc -l)"
check_equal "a client's Audit-ID is its events' auditID" "2 my-audit-id" \
        "$(api GET /api/v1/namespaces/default/pods/web -H 'Audit-ID: my-audit-id' -o /dev/null && jq -c 'select(.auditID == "my-audit-id")' "$log" | wc -l) $(api GET /version -H 'Audit-ID: my-audit-id' -D - -o /dev/null | tr -d '\r' | sed -n 's/^Audit-Id: //Ip')"

# rotation: events of about 600 KB (a configmap's body at Request level) in a 1 MB file: every
# create after the first rotates, three rotations of which two backups stay
head -c 450000 /dev/zero | base64 -w0 >"$tmp/big"
for i in 1 2 3 4; do
        k create configmap "big$i" --from-file=data="$tmp/big" >/dev/null || echo "create big$i failed"
done
backups=$(ls "$(dirname "$log")" | grep -cE '^audit-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}\.[0-9]{3}\.log$')
check_equal "rotation keeps --audit-log-maxbackup 2 backups named as lumberjack names them" \
        "2 3" "$backups $(ls "$(dirname "$log")" | wc -l)"
check_equal "no file is past the maximum size" "" \
        "$(find "$(dirname "$log")" -type f -size +1024k)"
check_equal "the last configmap's event is in the current file" "1" \
        "$(jq -c 'select(.objectRef.name == "big4")' "$log" | wc -l)"
check "the metrics count events and levels" bash -c \
        "curl -sk -H 'Authorization: Bearer $(cat "$SERVER_DIR/data/pki/admin.token")' https://127.0.0.1:$SERVER_PORT/metrics | grep -E '^apiserver_audit_event_total [1-9]' &&
         curl -sk -H 'Authorization: Bearer $(cat "$SERVER_DIR/data/pki/admin.token")' https://127.0.0.1:$SERVER_PORT/metrics | grep -E '^apiserver_audit_level_total\{level=\"None\"\} [1-9]'"

# refusals at start
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n' >"$tmp/bad.yaml"
check_equal "a policy that does not validate refuses the start with upstream's message" \
        "flexlet apiserver: loading audit policy file: rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\": from file $tmp/bad.yaml" \
        "$("$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data2" --listen 127.0.0.1:1 \
                --audit-policy-file "$tmp/bad.yaml" --audit-log-path "$tmp/a.log" 2>&1)"
printf 'rules: [{level: None}]\n' >"$tmp/nokind.yaml"
check_output "a policy without kind refuses the start" \
        "loading audit policy file: failed decoding: Object 'apiVersion' is missing in" \
        "$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data2" --listen 127.0.0.1:1 \
        --audit-policy-file "$tmp/nokind.yaml" --audit-log-path "$tmp/a.log"
check_output "a log path without a policy refuses the start" \
        "no audit policy file provided, no events will be recorded for log backend" \
        "$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data2" --listen 127.0.0.1:1 \
        --audit-log-path "$tmp/a.log"
check_output "a negative maxbackup refuses the start" \
        "--audit-log-maxbackup -1 can't be a negative number" \
        "$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data2" --listen 127.0.0.1:1 \
        --audit-policy-file "$tmp/policy.yaml" --audit-log-path "$tmp/a.log" --audit-log-maxbackup -1
check_equal "nothing was started or written by a refused start" "no no" \
        "$([ -e "$SERVER_DIR/data2" ] && echo yes || echo no) $([ -e "$tmp/a.log" ] && echo yes || echo no)"

server_check_log
tap_done
