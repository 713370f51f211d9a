#!/usr/bin/env bash
# test-kubectl.sh: the API server's acceptance, driven by the real kubectl (1.33 and 1.32)
# against `flexlet serve` on a free loopback port: discovery, create/apply/get/watch/describe,
# label and the three patch types, the resize subresource with upstream's messages, conflicts,
# deletion, and bad input.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
M=$here/manifests

server_start_or_exit
ok "server starts and answers /readyz"

K33() { kv 1.33 "$@"; }
K32() { kv 1.32 "$@"; }

# --- discovery and version
check_output "version shows the server version" "Server Version: v1.33.0" K33 version
out=$(K33 api-resources 2>&1)
if grep -qE '^pods +po +v1 +true +Pod' <<<"$out" && grep -qE '^namespaces +ns +v1 +false +Namespace' <<<"$out" &&
        grep -qE '^nodes +no +v1 +false +Node' <<<"$out" && grep -qE '^events +ev +v1 +true +Event' <<<"$out"; then
        ok "api-resources lists pods, namespaces, nodes, events"
else
        not_ok "api-resources lists pods, namespaces, nodes, events" "$out"
fi
check_output "default namespace exists at start" "default" K33 get ns default -o name

# --- create and get
check_output "create -f pod.json" "pod/web created" K33 create -f "$M/pod-web.json"
check_output "create again is AlreadyExists" 'Error from server (AlreadyExists): error when creating' K33 create -f "$M/pod-web.json"
out=$(K33 get pods 2>&1)
if grep -qE '^NAME +READY +STATUS +RESTARTS +AGE' <<<"$out" && grep -qE '^web +0/1 +Pending +0 +[0-9]+s' <<<"$out"; then
        ok "get pods prints READY STATUS RESTARTS AGE"
else
        not_ok "get pods prints READY STATUS RESTARTS AGE" "$out"
fi
check_output "get pods -A has the namespace column" "default     web" K33 get pods -A
check_output "get pods -o wide shows the wide columns" "NOMINATED NODE" K33 get pods -o wide
check_output "get pod -o name" "pod/web" K33 get pod web -o name
check_output "explain finds a kind in the OpenAPI v3 document" "requests" K33 explain pod.spec.containers.resources
check_output "explain with the v2 document" "containers" K33 explain pod.spec --output=plaintext-openapiv2
check_equal "get -o json has defaults (restartPolicy, qosClass)" "Always Burstable" \
        "$(K33 get pod web -o json | jq -r '"\(.spec.restartPolicy) \(.status.qosClass)"')"
check_output "get -o yaml" "name: web" K33 get pod web -o yaml
check_equal "uid and creationTimestamp are set" "true" \
        "$(K33 get pod web -o json | jq -r '(.metadata.uid | length) == 36 and (.metadata.creationTimestamp | test("Z$"))')"
check_output "get a missing pod is NotFound" 'Error from server (NotFound): pods "nope" not found' K33 get pod nope
check_output "create in a missing namespace" 'namespaces "nowhere" not found' K33 create -n nowhere -f "$M/pod-web.json"

# --- selectors
check_output "set-based selector: in" "pod/web" K33 get pods -l 'app in (web,db)' -o name
check_output "set-based selector: notin" "No resources found" K33 get pods -l 'app notin (web)'
check_output "selector: exists and !=" "pod/web" K33 get pods -l 'tier,app!=db' -o name
check_output "field selector metadata.name" "pod/web" K33 get pods --field-selector metadata.name=web -o name
check_output "unsupported field selector" 'field label not supported: spec.foo' K33 get pods --field-selector spec.foo=x

# --- apply (client-side), then server-side
check_output "apply creates" "pod/app created" K33 apply -f "$M/pod-apply.yaml"
sed 's/app: applied/app: applied2/' "$M/pod-apply.yaml" >"$SERVER_DIR/pod-apply2.yaml"
check_output "apply configures" "pod/app configured" K33 apply -f "$SERVER_DIR/pod-apply2.yaml"
check_output "apply again is unchanged" "pod/app unchanged" K33 apply -f "$SERVER_DIR/pod-apply2.yaml"
check_equal "apply changed the label" "applied2" "$(K33 get pod app -o jsonpath='{.metadata.labels.app}')"
sed 's/name: app$/name: ssa/' "$M/pod-apply.yaml" >"$SERVER_DIR/pod-ssa.yaml"
check_output "apply --server-side creates" "pod/ssa serverside-applied" K33 apply --server-side -f "$SERVER_DIR/pod-ssa.yaml"
sed 's/app: applied/app: ssa2/' "$SERVER_DIR/pod-ssa.yaml" >"$SERVER_DIR/pod-ssa2.yaml"
check_output "apply --server-side updates" "pod/ssa serverside-applied" K33 apply --server-side -f "$SERVER_DIR/pod-ssa2.yaml"
check_equal "server-side apply merged the label" "ssa2" "$(K33 get pod ssa -o jsonpath='{.metadata.labels.app}')"

# --- watch sees a later change
K33 get pods -w --output-watch-events >"$SERVER_DIR/watch.out" 2>&1 &
watch_pid=$!
sleep 1.5
K33 label pod web watched=yes >/dev/null 2>&1
sleep 1.5
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
if grep -qE '^ADDED +web' "$SERVER_DIR/watch.out" && grep -qE '^MODIFIED +web' "$SERVER_DIR/watch.out"; then
        ok "get pods -w sees the initial state and a later change"
else
        not_ok "get pods -w sees the initial state and a later change" "$(cat "$SERVER_DIR/watch.out")"
fi

# --- label and the three patch types
check_output "label" "pod/web labeled" K33 label pod web color=blue
check_equal "label stored" "blue" "$(K33 get pod web -o jsonpath='{.metadata.labels.color}')"
check_output "label removal" "pod/web unlabeled" K33 label pod web color-
check_output "strategic merge patch" "pod/web patched" K33 patch pod web -p '{"metadata":{"annotations":{"a":"1"}}}'
check_output "merge patch" "pod/web patched" K33 patch pod web --type merge -p '{"metadata":{"annotations":{"b":"2"}}}'
check_output "json patch" "pod/web patched" K33 patch pod web --type json -p '[{"op":"add","path":"/metadata/annotations/c","value":"3"}]'
check_equal "all three patches landed" "1 2 3" "$(K33 get pod web -o json | jq -r '"\(.metadata.annotations.a) \(.metadata.annotations.b) \(.metadata.annotations.c)"')"
check_output "image update through SMP" "pod/web patched" K33 patch pod web -p '{"spec":{"containers":[{"name":"c1","image":"busybox:1.36"}]}}'
check_output "pod updates may not change other fields" 'pod updates may not change fields other than' \
        K33 patch pod web -p '{"spec":{"containers":[{"name":"c1","workingDir":"/tmp"}]}}'
check_output "json patch test failure is an error" 'testing value /metadata/name failed: test failed' \
        K33 patch pod web --type json -p '[{"op":"test","path":"/metadata/name","value":"other"}]'

# --- resize subresource
gen0=$(K33 get pod web -o jsonpath='{.metadata.generation}')
check_output "resize patch" "pod/web patched" K33 patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}'
check_equal "resize stored the new cpu" "150m 300m" "$(K33 get pod web -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.cpu}')"
check_equal "resize bumped metadata.generation" "$((gen0 + 1))" "$(K33 get pod web -o jsonpath='{.metadata.generation}')"
check_output "the same resize again is a no-op" "pod/web patched (no change)" K33 patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}'
check_equal "no-op left the generation alone" "$((gen0 + 1))" "$(K33 get pod web -o jsonpath='{.metadata.generation}')"
check_output "resize ignores non-resource changes" "pod/web patched (no change)" K33 patch pod web --subresource resize \
        -p '{"metadata":{"labels":{"x":"y"}}}'
check_output "resize may not remove limits (S3)" 'spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed' \
        K33 patch pod web --subresource resize --type json -p '[{"op":"remove","path":"/spec/containers/0/resources/limits"}]'
# the patched pod is defaulted as upstream's decoder does: requests come back from the limits,
# which would make the pod Guaranteed
check_output "resize removing requests refills them from limits" 'Pod QOS Class may not change as a result of resizing' \
        K33 patch pod web --subresource resize --type json -p '[{"op":"remove","path":"/spec/containers/0/resources/requests"}]'
check_output "resize: only cpu and memory (S4)" 'spec: Forbidden: only cpu and memory resources are mutable' \
        K33 patch pod web --subresource resize -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}'
check_output "resize may not rename a container" 'spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize' \
        K33 patch pod web --subresource resize --type json -p '[{"op":"replace","path":"/spec/containers/0/name","value":"c2"}]'
# a strategic merge keyed by a new name adds a container: it is defaulted (as a decoded object
# is) and refused for what it is, not for the defaults it lacks
out=$(K33 patch pod web --subresource resize -p '{"spec":{"containers":[{"name":"c2","resources":{"limits":{"cpu":"200m"}}}]}}' 2>&1)
if [[ "$out" == *"spec.containers: Forbidden: containers may not be added or removed on resize"* &&
        "$out" != *terminationMessagePolicy* ]]; then
        ok "resize may not add a container, which is defaulted before validation"
else
        not_ok "resize may not add a container, which is defaulted before validation" "got: $out"
fi
check_output "create a guaranteed pod with init, sidecar and memory volume" "pod/gpod created" K33 create -f "$M/pod-guaranteed.yaml"
check_output "resize may not change QoS (S2)" 'Pod QOS Class may not change as a result of resizing' \
        K33 patch pod gpod --subresource resize -p '{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}'
check_output "non-sidecar init containers are immutable (S5)" 'resources for non-sidecar init containers are immutable' \
        K33 patch pod gpod --subresource resize -p '{"spec":{"initContainers":[{"name":"init","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"200m"}}}]}}'
check_output "a sidecar can be resized (S5)" "pod/gpod patched" \
        K33 patch pod gpod --subresource resize -p '{"spec":{"initContainers":[{"name":"sidecar","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"200m"}}}]}}'
check_output "guaranteed pod keeps QoS when both move" "pod/gpod patched" \
        K33 patch pod gpod --subresource resize -p '{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}'
check_output "KEP-6030: memory emptyDir sizeLimit resizes through /resize" "pod/gpod patched" \
        K33 patch pod gpod --subresource resize -p '{"spec":{"volumes":[{"name":"shm","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}}]}}'
check_equal "KEP-6030: sizeLimit stored" "128Mi" "$(K33 get pod gpod -o jsonpath='{.spec.volumes[0].emptyDir.sizeLimit}')"
check_output "resources are immutable through a plain update" 'pod updates may not change fields other than' \
        K33 patch pod gpod -p '{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"3"},"limits":{"cpu":"3"}}}]}}'

# --- optimistic concurrency
K33 get pod web -o json >"$SERVER_DIR/web-stale.json"
K33 label pod web bump=1 >/dev/null
check_output "replace with a stale resourceVersion is a Conflict" 'Error from server (Conflict)' K33 replace -f "$SERVER_DIR/web-stale.json"
check_output "the conflict names the object" 'Operation cannot be fulfilled on pods "web": the object has been modified' K33 replace -f "$SERVER_DIR/web-stale.json"

# --- events and describe
uid=$(K33 get pod web -o jsonpath='{.metadata.uid}')
cat >"$SERVER_DIR/event.json" <<JSON
{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1"},
 "involvedObject":{"apiVersion":"v1","kind":"Pod","name":"web","namespace":"default","uid":"$uid"},
 "reason":"Scheduled","message":"Successfully assigned default/web to test-node","type":"Normal",
 "source":{"component":"default-scheduler"},"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z","count":1}
JSON
check_output "create an event" "event/web.1 created" K33 create -f "$SERVER_DIR/event.json"
out=$(K33 describe pod web 2>&1)
if grep -q "^Events:" <<<"$out" && grep -qE 'Normal +Scheduled .*default-scheduler +Successfully assigned default/web to test-node' <<<"$out"; then
        ok "describe pod shows its events"
else
        not_ok "describe pod shows its events" "$out"
fi
check_output "get events has upstream's columns" "LAST SEEN" K33 get events

# --- kubectl 1.32
check_output "1.32: get pods" "web" K32 get pods
check_output "1.32: apply" "pod/app" K32 apply -f "$SERVER_DIR/pod-apply2.yaml"
check_output "1.32: resize patch" "pod/web patched" K32 patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"120m"}}}]}}'
check_output "1.32: resize error message" 'resource limits cannot be removed' \
        K32 patch pod web --subresource resize --type json -p '[{"op":"remove","path":"/spec/containers/0/resources/limits"}]'

# --- bad input
check_output "strict field validation rejects unknown fields" 'unknown field "spec.foo"' \
        K33 apply -f <(jq '.metadata.name="strict" | .spec.foo=1' "$M/pod-web.json")
check_output "invalid quantity" "quantities must match the regular expression" \
        K33 apply -f <(jq '.metadata.name="badq" | .spec.containers[0].resources.limits.cpu="1x"' "$M/pod-web.json")
check_output "requests above limits" "must be less than or equal to cpu limit" \
        K33 apply -f <(jq '.metadata.name="badlim" | .spec.containers[0].resources.requests.cpu="2"' "$M/pod-web.json")
check_output "invalid name" "a lowercase RFC 1123 subdomain" \
        K33 apply -f <(jq '.metadata.name="Bad_Name"' "$M/pod-web.json")
check_output "protobuf body (create namespace) is decoded" "namespace/proto created" K33 create namespace proto
check_equal "malformed JSON is a 400 Status" "400 BadRequest" \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' -d '{"kind":' | jq -r '"\(.code) \(.reason)"')"
check_equal "request without a token is 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$SERVER_PORT/api/v1/pods")"
check_equal "health endpoints need no token" "200" \
        "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$SERVER_PORT/healthz")"
head -c 3200000 /dev/zero | tr '\0' 'a' >"$SERVER_DIR/big.txt"
check_equal "body over 3 MiB is 413" "413" \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' --data-binary @"$SERVER_DIR/big.txt" -o /dev/null -w '%{http_code}')"
check_output "unknown resource type" "the server doesn't have a resource type" K33 get widgets
check_equal "unsupported patch type is 415" "415" \
        "$(api PATCH /api/v1/namespaces/default/pods/web -H 'Content-Type: text/plain' -d '{}' -o /dev/null -w '%{http_code}')"

# --- dry run, namespaces, replace, sorting
check_output "create --dry-run=server validates and stores nothing" "pod/dry created (server dry run)" \
        K33 create --dry-run=server -f <(jq '.metadata.name="dry"' "$M/pod-web.json")
check_output "the dry-run pod was not stored" 'pods "dry" not found' K33 get pod dry
check_output "create a namespace from a manifest" "namespace/team created" \
        K33 create -f <(echo '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}')
check_equal "a new namespace is Active" "Active" "$(K33 get ns team -o jsonpath='{.status.phase}')"
check_output "create a pod in it" "pod/web created" K33 create -n team -f "$M/pod-web.json"
# K8S: a deleted namespace is Terminating while the namespace controller empties it; a pod
# held by a finalizer holds the namespace too
check_output "a pod held by a finalizer" "pod/held created" K33 create -n team -f <(jq '.metadata.name="held" | .metadata.finalizers=["example.com/hold"]' "$M/pod-web.json")
check_output "deleting the namespace returns at once with --wait=false" 'namespace "team" deleted' K33 delete ns team --wait=false
check_equal "the namespace is Terminating" "Terminating" "$(K33 get ns team -o jsonpath='{.status.phase}')"
check_output "nothing new is created in it" 'Error from server (Forbidden): error when creating "STDIN": pods "late" is forbidden: unable to create new content in namespace team because it is being terminated' \
        K33 create -n team -f - <<<"$(jq '.metadata.name="late"' "$M/pod-web.json")"
check_output "a second delete is a conflict" 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.' \
        K33 delete ns team --wait=false
check_output "the finalizer released" "pod/held patched" K33 patch -n team pod held --type=merge -p '{"metadata":{"finalizers":null}}'
check "the namespace goes once it is empty" K33 wait --for=delete ns/team --timeout=30s
check_equal "its pods went with it" "404 404" "$(api GET /api/v1/namespaces/team/pods/web -o /dev/null -w '%{http_code}') $(api GET /api/v1/namespaces/team -o /dev/null -w '%{http_code}')"
for ns in kube-system kube-public kube-node-lease; do
        check_output "$ns may not be deleted" "namespaces \"$ns\" is forbidden: this namespace may not be deleted" K33 delete ns "$ns"
done
K33 get pod web -o json | jq '.metadata.labels.replaced="yes"' >"$SERVER_DIR/web-fresh.json"
check_output "replace with the current resourceVersion" "pod/web replaced" K33 replace -f "$SERVER_DIR/web-fresh.json"
names=$(K33 get pods --sort-by=.metadata.name -o name)
check_equal "sort-by name" "$(sort <<<"$names")" "$names"

# --- YAML bodies (other clients than kubectl send them)
yaml_pod='apiVersion: v1
kind: Pod
metadata:
  name: yamlpod
  labels: {app: yaml}
spec:
  containers:
  - name: c
    image: busybox
    resources:
      requests: {cpu: 100m}
'
check_equal "create with an application/yaml body" "201" \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/yaml' --data-binary "$yaml_pod" -o /dev/null -w '%{http_code}')"
check_equal "the YAML pod is stored as sent" "yaml 100m" \
        "$(K33 get pod yamlpod -o jsonpath='{.metadata.labels.app} {.spec.containers[0].resources.requests.cpu}')"
check_equal "server-side apply with a YAML body" "200" \
        "$(api PATCH '/api/v1/namespaces/default/pods/yamlpod?fieldManager=curl' -H 'Content-Type: application/apply-patch+yaml' \
                --data-binary "${yaml_pod/app: yaml/app: yaml2}" -o /dev/null -w '%{http_code}')"
check_equal "the apply merged the YAML label" "yaml2" "$(K33 get pod yamlpod -o jsonpath='{.metadata.labels.app}')"
check_output "bad YAML is a 400 with the parser's words" "yaml: line" \
        api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/yaml' --data-binary $'a: b\n c: d: e'

# --- delete and wait
check_output "delete" 'pod "app" deleted' K33 delete pod app
K33 delete pod ssa --wait=false >/dev/null 2>&1
check "wait --for=delete" K33 wait --for=delete pod/ssa --timeout=10s
check_output "deleted pod is gone" 'pods "app" not found' K33 get pod app
check_output "default namespace may not be deleted" 'namespaces "default" is forbidden: this namespace may not be deleted' K33 delete ns default

server_check_log
tap_done
