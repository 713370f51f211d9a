#!/usr/bin/env bash
# test-protobuf.sh: application/vnd.kubernetes.protobuf on the API's wire and /openapi/v2, with
# the real kubectl 1.32 and 1.33: `create namespace` (client-go's typed clients send protobuf
# bodies), `apply -f` of a `kind: List` and of a multi-document YAML with validation on (a List
# is validated through /openapi/v2, in protobuf), a `get -o yaml` -> `apply -f` round trip; raw
# protobuf GET, LIST, create and watch read with curl and decoded with `protoc --decode_raw`; a
# malformed protobuf body is a 400 Status (in protobuf to a protobuf client); content
# negotiation's 406; the second client, @kubernetes/client-node, when it is installed
# (CLIENT_NODE_DIR, a folder whose node_modules holds it; scripts/install-deps.sh puts it in
# /var/cache/flexlet/client-node).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

if ! command -v protoc >/dev/null; then
        echo "1..0 # SKIP protoc (Debian protobuf-compiler) is not installed"
        exit 0
fi
server_start_or_exit
ok "server starts"

PB=application/vnd.kubernetes.protobuf
K32() { kv 1.32 "$@"; }
K33() { kv 1.33 "$@"; }
# the raw body of a protobuf request, "k8s\0" dropped, as protoc prints it
decode() { tail -c +5 | protoc --decode_raw; }
# field 1 (TypeMeta) of the envelope: "apiVersion kind"
envelope_kind() { tail -c +5 | protoc --decode_raw | awk '/^1 \{/{f=1;next} f&&/^}/{exit} f{gsub(/"/,"",$2); printf "%s ", $2}' | sed 's/ $//'; }
W=$SERVER_DIR/work
mkdir -p "$W"

# --- kubectl: typed clients send protobuf bodies
check_output "1.32: create namespace (protobuf body)" "namespace/pb32 created" K32 create namespace pb32
check_output "1.33: create namespace (protobuf body)" "namespace/pb33 created" K33 create namespace pb33
check_equal "... both are stored as namespaces" "pb32 pb33" \
        "$(api GET /api/v1/namespaces | jq -r '[.items[].metadata.name | select(startswith("pb"))] | sort | join(" ")')"
check_output "1.33: create quota-less duplicate is AlreadyExists (protobuf Status read by kubectl)" \
        'namespaces "pb33" already exists' K33 create namespace pb33

# --- kubectl: a kind: List and a multi-document file, validation on
cat >"$W/list.yaml" <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: list-a
- apiVersion: v1
  kind: Namespace
  metadata:
    name: list-b
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
    namespace: list-a
    labels: {app: web}
  spec:
    containers:
    - name: c
      image: busybox
      ports:
      - containerPort: 80
      resources:
        limits: {cpu: 500m, memory: 64Mi}
EOF
check_output "1.33: apply -f of a kind: List" "pod/web created" K33 apply -f "$W/list.yaml"
check_output "1.32: apply -f of the same List again" "pod/web unchanged" K32 apply -f "$W/list.yaml"
sed 's/      image: busybox/      image: busybox\n      bogus: 1/' "$W/list.yaml" >"$W/list-bad.yaml"
check_output "1.33: an unknown field in a List item fails client-side validation (from /openapi/v2)" \
        'unknown field "bogus"' K33 apply -f "$W/list-bad.yaml"
cat >"$W/multi.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata:
  name: multi
---
apiVersion: v1
kind: Pod
metadata:
  name: m1
  namespace: multi
spec:
  containers:
  - name: c
    image: busybox
EOF
check_output "1.33: apply -f of a multi-document YAML" "pod/m1 created" K33 apply -f "$W/multi.yaml"
K33 get pod web -n list-a -o yaml >"$W/web.yaml" 2>&1
check_output "1.33: get -o yaml -> apply -f round trip" "pod/web configured" K33 apply -f "$W/web.yaml"

# --- /openapi/v2
api GET /openapi/v2 -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf' \
        -o "$W/v2.pb" -D "$W/v2.h"
check_output "/openapi/v2 answers in protobuf" "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" \
        cat "$W/v2.h"
protoc --decode_raw <"$W/v2.pb" >"$W/v2.txt" 2>&1
check_output "/openapi/v2 decodes: the swagger version" '1: "2.0"' cat "$W/v2.txt"
check_output "/openapi/v2 decodes: the Pod definition" '"io.k8s.api.core.v1.Pod"' cat "$W/v2.txt"
check_output "/openapi/v2 decodes: its group-version-kind extension (YAML)" \
        '"x-kubernetes-group-version-kind"' cat "$W/v2.txt"
check_equal "/openapi/v2 in JSON has the same definitions" "true" \
        "$(api GET /openapi/v2 -H 'Accept: application/json' | jq '.definitions["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"][0].kind == "Pod"')"
etag=$(sed -n 's/^[Ee][Tt]ag: *//p' "$W/v2.h" | tr -d '\r')
check_equal "/openapi/v2 again with If-None-Match of its ETag is 304" 304 \
        "$(api GET /openapi/v2 -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf' \
                -H "If-None-Match: $etag" -o /dev/null -w '%{http_code}')"
check_equal "... and with another tag 200" 200 \
        "$(api GET /openapi/v2 -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf' \
                -H 'If-None-Match: "0"' -o /dev/null -w '%{http_code}')"
check_equal "/openapi/v2 with an unacceptable Accept is 406" 406 \
        "$(api GET /openapi/v2 -H 'Accept: text/html' -o /dev/null -w '%{http_code}')"

# --- raw protobuf reads
api GET /api/v1/namespaces/list-a/pods/web -H "Accept: $PB" -o "$W/pod.pb" -D "$W/pod.h"
check_output "GET of a pod in protobuf: Content-Type" "Content-Type: $PB" cat "$W/pod.h"
check_equal "... the k8s\\0 magic" "6b387300" "$(head -c 4 "$W/pod.pb" | od -An -tx1 | tr -d ' \n')"
check_equal "... the envelope's TypeMeta" "v1 Pod" "$(envelope_kind <"$W/pod.pb")"
decode <"$W/pod.pb" >"$W/pod.txt" 2>&1
check_output "... decodes with protoc: the name" '1: "web"' cat "$W/pod.txt"
check_output "... decodes with protoc: the image" '"busybox"' cat "$W/pod.txt"
check_equal "a PUT of that protobuf body (an update through the JSON path) is 200" 200 \
        "$(api PUT /api/v1/namespaces/list-a/pods/web -H "Content-Type: $PB" --data-binary @"$W/pod.pb" -o /dev/null -w '%{http_code}')"
api GET /api/v1/namespaces/list-a/pods -H "Accept: $PB, application/json" -o "$W/list.pb"
check_equal "LIST in protobuf: the envelope's TypeMeta" "v1 PodList" "$(envelope_kind <"$W/list.pb")"
check_output "... decodes with protoc" '"web"' decode <"$W/list.pb"
check_equal "Accept with q-values: JSON preferred is JSON" "PodList" \
        "$(api GET /api/v1/namespaces/list-a/pods -H "Accept: $PB;q=0.5, application/json" | jq -r .kind)"
check_equal "a Table is never protobuf: kubectl get's Accept is a JSON Table" "Table" \
        "$(api GET /api/v1/namespaces/list-a/pods -H "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json" | jq -r .kind)"
check_equal "an unacceptable Accept is a 406 Status" "406 NotAcceptable" \
        "$(api GET /api/v1/namespaces/list-a/pods -H 'Accept: text/html' | jq -r '"\(.code) \(.reason)"')"
api GET /api/v1/namespaces/list-a/pods/nope -H "Accept: $PB" -o "$W/nf.pb" -D "$W/nf.h"
check_equal "a 404 to a protobuf client is a protobuf Status" "v1 Status" "$(envelope_kind <"$W/nf.pb")"
check_output "... with upstream's message" 'pods \"nope\" not found' decode <"$W/nf.pb"

# --- raw protobuf writes: the body kubectl create namespace sends, and broken ones
# k8s\0, Unknown{typeMeta{apiVersion "v1", kind "Namespace"}, raw: Namespace{metadata{name "raw-ns"}}}
printf 'k8s\000\012\017\012\002v1\022\011Namespace\022\012\012\010\012\006raw-ns' >"$W/ns.pb"
check_equal "a hand-made protobuf Namespace is created (201)" 201 \
        "$(api POST /api/v1/namespaces -H "Content-Type: $PB" --data-binary @"$W/ns.pb" -o /dev/null -w '%{http_code}')"
check_equal "... and reads back in JSON" "raw-ns Active" \
        "$(api GET /api/v1/namespaces/raw-ns | jq -r '"\(.metadata.name) \(.status.phase)"')"
check_equal "... a dry run of the same body is 201 and stores nothing" "201 404" \
        "$(api POST "/api/v1/namespaces?dryRun=All" -H "Content-Type: $PB" --data-binary @<(sed 's/raw-ns/dry-ns/' "$W/ns.pb") -o /dev/null -w '%{http_code}') $(api GET /api/v1/namespaces/dry-ns -o /dev/null -w '%{http_code}')"
printf 'k8s\001garbage' >"$W/bad.pb"
check_equal "a body without the k8s\\0 magic is a 400 Status" "400 BadRequest" \
        "$(api POST /api/v1/namespaces -H "Content-Type: $PB" --data-binary @"$W/bad.pb" | jq -r '"\(.code) \(.reason)"')"
check_output "... with upstream's message" "the object provided is unrecognized (must be of type Namespace)" \
        api POST /api/v1/namespaces -H "Content-Type: $PB" --data-binary @"$W/bad.pb"
printf 'k8s\000\012\017\012\002v1\022\011Namespace\022\003\012\001\377' >"$W/trunc.pb"
check_output "a truncated object is a 400 naming the kind" 'Namespace in version \"v1\" cannot be handled as a Namespace' \
        api POST /api/v1/namespaces -H "Content-Type: $PB" --data-binary @"$W/trunc.pb"
api POST /api/v1/namespaces -H "Content-Type: $PB" -H "Accept: $PB" --data-binary @"$W/bad.pb" -o "$W/bad-resp.pb"
check_equal "... and a protobuf client gets the 400 as a protobuf Status" "v1 Status" "$(envelope_kind <"$W/bad-resp.pb")"
check_output "a pod body to the namespaces collection is refused as in JSON" "cannot be handled as a Namespace" \
        api POST /api/v1/namespaces -H "Content-Type: $PB" --data-binary @"$W/pod.pb"
check_output "an unknown Content-Type's 415 lists protobuf" \
        "accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf" \
        api POST /api/v1/namespaces -H "Content-Type: text/plain" -d x

# --- protobuf watch
api GET "/api/v1/namespaces/list-a/pods?watch=true&timeoutSeconds=1" -H "Accept: $PB;stream=watch" \
        -o "$W/watch.pb" -D "$W/watch.h"
check_output "a watch in protobuf: Content-Type" "Content-Type: $PB;stream=watch" cat "$W/watch.h"
# the first frame: 4-byte big-endian length, then a metav1.WatchEvent (no envelope) whose
# object.raw is an enveloped Pod
len=$((16#$(head -c 4 "$W/watch.pb" | od -An -tx1 | tr -d ' \n')))
check_equal "... the first frame's length covers the rest of the body (one ADDED event)" \
        "$(($(stat -c %s "$W/watch.pb") - 4))" "$len"
tail -c +5 "$W/watch.pb" | head -c "$len" >"$W/event.pb"
check_output "... the frame is a WatchEvent of type ADDED" '1: "ADDED"' protoc --decode_raw <"$W/event.pb"
# protoc prints the enveloped object inside as an escaped string ("k8s\0" is no message)
check_output "... holding the enveloped pod" '"k8s\000\n\t\n\002v1\022\003Pod' protoc --decode_raw <"$W/event.pb"
check_output "... named web" '\003web' protoc --decode_raw <"$W/event.pb"

# --- the second client
CLIENT_NODE_DIR=${CLIENT_NODE_DIR:-/var/cache/flexlet/client-node}
if [ -n "${CLIENT_NODE_DIR:-}" ] && [ -d "$CLIENT_NODE_DIR/node_modules/@kubernetes/client-node" ]; then
        out=$(cd "$CLIENT_NODE_DIR" && KUBECONFIG=$KUBECONFIG node -e '
const k8s = require("@kubernetes/client-node");
const kc = new k8s.KubeConfig(); kc.loadFromDefault();
const api = kc.makeApiClient(k8s.CoreV1Api);
(async () => {
  await api.createNamespace({ body: { metadata: { name: "from-node" } } });
  const l = await api.listNamespacedPod({ namespace: "list-a" });
  console.log(l.items.map(p => p.metadata.name).join(","));
})().catch(e => { console.log("error", e.body || e.message); process.exit(1); });' 2>&1)
        check_equal "@kubernetes/client-node creates a namespace and lists pods (JSON)" "web" "$out"
else
        ok "# SKIP @kubernetes/client-node is not installed (scripts/install-deps.sh, or set CLIENT_NODE_DIR)"
fi

server_check_log
tap_done
