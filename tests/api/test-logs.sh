#!/usr/bin/env bash
# test-logs.sh: `kubectl logs` end to end as upstream does it: kubectl asks `flexlet apiserver`
# for pods/{name}/log, the API server proxies to the kubelet endpoint of the pod's node (found
# from the Node's InternalIP and daemonEndpoints.kubeletEndpoint.Port, over HTTPS with the
# cluster CA and a bearer token), and that endpoint (node/kubelet-server.c) reads the CRI log.
# No node agent runs here: the kubelet endpoint is the test binary test-kubelet-server in its
# `serve` mode, over a tree of container state dirs written by this script, and the Node and
# Pods are registered through the API. Checks the log, -c, --tail, --timestamps, --previous,
# --limit-bytes, --since-time, -f ending when the container exits, the default-container
# annotation, and the error messages kubectl prints.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

KUBELET_BIN=${KUBELET_BIN:-$(dirname "$FLEXLET_BIN")/tests/unit/node/test-kubelet-server}
KUBELET_PID=
SLEEP_PID=

cleanup() {
        [ -n "$KUBELET_PID" ] && kill "$KUBELET_PID" 2>/dev/null && wait "$KUBELET_PID" 2>/dev/null
        [ -n "$SLEEP_PID" ] && kill "$SLEEP_PID" 2>/dev/null && wait "$SLEEP_PID" 2>/dev/null
        server_cleanup
}

server_start_or_exit
trap cleanup EXIT
ok "server starts and answers /readyz"

if [ ! -x "$KUBELET_BIN" ]; then
        not_ok "the kubelet endpoint helper is built" "missing: $KUBELET_BIN (make unit-tests)"
        tap_done
        exit 1
fi

K33() { kv 1.33 "$@"; }
PKI=$SERVER_DIR/data/pki
ROOT=$SERVER_DIR/kubelet
T1=2025-01-01T00:00:00.000000001Z
T2=2025-06-01T12:00:00.500000000Z
T3=2025-06-01T12:00:01.000000000Z

# log REL LINES...: the CRI log of the container run ROOT/default/REL (appends)
log() {
        local rel=$1
        shift
        mkdir -p "$ROOT/default/$rel"
        printf '%s\n' "$@" >>"$ROOT/default/$rel/container.log"
}

# --- the kubelet's view: web/app ran twice, multi has a default container and an init one
log web/app/0 "$T1 stdout F first run" "$T1 stderr F crashed"
log web/app/1 "$T1 stdout F one" "$T2 stderr F two" "$T3 stdout P thr" "$T3 stdout F ee" "$T3 stdout F four"
log multi/a/0 "$T1 stdout F from a"
log multi/b/0 "$T1 stdout F from b"
log multi/init/0 "$T1 stdout F init done"
log two/x/0 "$T1 stdout F from x"
log two/y/0 "$T1 stdout F from y"
log single/c/0 "$T1 stdout F only run"
mkdir -p "$ROOT/default/waiting/c" && echo ContainerCreating >"$ROOT/default/waiting/c/waiting"
mkdir -p "$ROOT/default/pulling/c" && echo ImagePullBackOff >"$ROOT/default/pulling/c/waiting"
# running/c runs as long as this sleep does: its state dir names the process
sleep 600 &
SLEEP_PID=$!
log running/c/0 "$T1 stdout F started"
echo '{}' >"$ROOT/default/running/c/0/spec.json"
echo "{\"pid\":$SLEEP_PID,\"startTime\":$(awk '{print $22}' "/proc/$SLEEP_PID/stat")}" \
        >"$ROOT/default/running/c/0/started.json"

"$KUBELET_BIN" serve "$ROOT" "$PKI/kubelet.token" "$PKI/server.crt" "$PKI/server.key" \
        >"$SERVER_DIR/kubelet.port" 2>"$SERVER_DIR/kubelet.log" &
KUBELET_PID=$!
for _ in $(seq 1 100); do
        [ -s "$SERVER_DIR/kubelet.port" ] && break
        sleep 0.05
done
KUBELET_PORT=$(cat "$SERVER_DIR/kubelet.port")
if [ -z "$KUBELET_PORT" ]; then
        not_ok "the kubelet endpoint starts" "$(cat "$SERVER_DIR/kubelet.log")"
        tap_done
        exit 1
fi
ok "the kubelet endpoint starts (port $KUBELET_PORT)"

# node NAME PORT: a Node whose kubelet answers on 127.0.0.1:PORT
node() {
        api POST /api/v1/nodes -H 'Content-Type: application/json' -o /dev/null -w '%{http_code}' -d "{
          \"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"$1\"},
          \"status\":{\"addresses\":[{\"type\":\"Hostname\",\"address\":\"$1\"},{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"}],
                      \"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":$2}}}}"
}
check_equal "register the node" "201" "$(node kn1 "$KUBELET_PORT")"
closed_port=$(free_port)
check_equal "register a node whose kubelet is down" "201" "$(node down "$closed_port")"

# pod NAME NODE CONTAINERS [INIT] [ANNOTATIONS]
pod() {
        local name=$1 node=$2 containers=$3 init=${4:-} ann=${5:-"{}"} c list="" ilist=""
        for c in $containers; do list+="${list:+,}{\"name\":\"$c\",\"image\":\"busybox\"}"; done
        for c in $init; do ilist+="${ilist:+,}{\"name\":\"$c\",\"image\":\"busybox\"}"; done
        k apply -f - >/dev/null <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$name","annotations":$ann},
 "spec":{${node:+\"nodeName\":\"$node\",}"containers":[$list]${ilist:+,\"initContainers\":[$ilist]}}}
EOF
}
pod web kn1 app
pod multi kn1 "a b" init '{"kubectl.kubernetes.io/default-container":"b"}'
pod two kn1 "x y"
pod single kn1 c
pod waiting kn1 c
pod pulling kn1 c
pod running kn1 c
pod gone-container kn1 missing
pod pending "" c
pod orphan ghost c
pod unreachable down c
check_equal "pods bound to the node" "kn1" "$(k get pod web -o jsonpath='{.spec.nodeName}')"

# --- the log and its options
check_equal "logs" $'one\ntwo\nthree\nfour' "$(k logs web)"
check_equal "logs -c" $'one\ntwo\nthree\nfour' "$(k logs web -c app)"
check_equal "logs --tail counts records" $'ee\nfour' "$(k logs web --tail=2)"
check_equal "logs --tail=0" "" "$(k logs web --tail=0)"
check_equal "logs --timestamps" "$T1 one
$T2 two
$T3 three
$T3 four" "$(k logs web --timestamps)"
check_equal "logs --limit-bytes" $'one\ntw' "$(k logs web --limit-bytes=6)"
check_equal "logs --since-time" $'three\nfour' "$(k logs web --since-time=2025-06-01T12:00:01Z)"
check_equal "logs --since (all older)" "" "$(k logs web --since=1h)"
check_equal "logs --previous" $'first run\ncrashed' "$(k logs web --previous)"
check_equal "logs -p --tail" "crashed" "$(k logs web -p --tail=1)"
check_equal "kubectl 1.33 logs" $'ee\nfour' "$(K33 logs web --tail=2)"
check_equal "logs pod/NAME" "only run" "$(k logs pod/single)"

# --- which container
check_equal "the default-container annotation picks b" "from b" "$(k logs multi 2>/dev/null)"
check_equal "an init container by name" "init done" "$(k logs multi -c init)"
out=$(k logs two 2>"$SERVER_DIR/stderr")
check_equal "without annotation kubectl takes the first container" "from x" "$out"
check_output "and says so" 'Defaulted container "x" out of: x, y' cat "$SERVER_DIR/stderr"
check_output "an unknown container (kubectl's check)" "container nope is not valid for pod two" k logs two -c nope
check_output "the server's own check of a container name" \
        'Error from server (BadRequest): container nope is not valid for pod two' \
        k get --raw "/api/v1/namespaces/default/pods/two/log?container=nope"
check_output "the server asks for a container name" \
        'a container name must be specified for pod multi, choose one of: [init a b]' \
        k get --raw "/api/v1/namespaces/default/pods/multi/log"
check_output "invalid options are 422 PodLogOptions" \
        'PodLogOptions "web" is invalid: tailLines: Invalid value: -5: must be greater than or equal to 0' \
        k get --raw "/api/v1/namespaces/default/pods/web/log?tailLines=-5"

# --- the kubelet's refusals, as kubectl prints them
check_output "waiting to start" \
        'Error from server (BadRequest): container "c" in pod "waiting" is waiting to start: ContainerCreating' \
        k logs waiting
check_output "image pull back-off" \
        'container "c" in pod "pulling" is waiting to start: trying and failing to pull image' \
        k logs pulling
check_output "no previous run" \
        'Error from server (BadRequest): previous terminated container "c" in pod "single" not found' \
        k logs single --previous
check_output "a container the kubelet does not know" \
        'Error from server (NotFound): the server could not find the requested resource ( pods/log gone-container)' \
        k logs gone-container
check_output "a pod on a node that is not registered" 'Error from server (NotFound): nodes "ghost" not found' \
        k logs orphan
check_output "a kubelet that does not answer" "dial tcp 127.0.0.1:$closed_port: connect: connection refused" \
        k logs unreachable
out=$(k logs pending 2>&1)
rc=$?
check_equal "a pod without a node has no log yet (empty, success)" "0:" "$rc:$out"
check_output "a missing pod" '(NotFound): pods "nope" not found' k logs nope

# --- follow: lines as they come, the end when the container exits
k logs -f running --timestamps >"$SERVER_DIR/follow.out" 2>&1 &
follow_pid=$!
sleep 1.5
log running/c/0 "$T2 stdout F later"
sleep 1
if kill -0 "$follow_pid" 2>/dev/null; then
        ok "logs -f keeps following while the container runs"
else
        not_ok "logs -f keeps following while the container runs" "$(cat "$SERVER_DIR/follow.out")"
fi
log running/c/0 "$T3 stderr F last words"
echo '{"exitCode":0}' >"$ROOT/default/running/c/0/exit.json"
for _ in $(seq 1 100); do
        kill -0 "$follow_pid" 2>/dev/null || break
        sleep 0.1
done
if kill -0 "$follow_pid" 2>/dev/null; then
        kill "$follow_pid"
        not_ok "logs -f ends when the container exits" "$(cat "$SERVER_DIR/follow.out")"
else
        wait "$follow_pid"
        check_equal "logs -f ends when the container exits, exit status 0" 0 $?
fi
check_equal "logs -f printed everything, in order" "$T1 started
$T2 later
$T3 last words" "$(cat "$SERVER_DIR/follow.out")"

# follow, then the client goes away: the server and the kubelet let go of it
rm -f "$ROOT/default/running/c/0/exit.json"
timeout 2 kubectl --cache-dir "$SERVER_DIR/cache" logs -f running >/dev/null 2>&1
check_equal "the API server still answers after a follow was abandoned" $'started\nlater\nlast words' \
        "$(k logs running)"

kill "$KUBELET_PID" 2>/dev/null
wait "$KUBELET_PID" 2>/dev/null
KUBELET_PID=
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$SERVER_DIR/kubelet.log"; then
        not_ok "the kubelet endpoint exits cleanly" "$(head -40 "$SERVER_DIR/kubelet.log")"
else
        ok "the kubelet endpoint exits cleanly"
fi
server_check_log
tap_done
