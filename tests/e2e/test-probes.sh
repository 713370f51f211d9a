#!/usr/bin/env bash
# test-probes.sh: the kubelet's container probes, as root, through kubectl: readiness (httpGet)
# driving the container's ready flag and the pod's Ready condition, liveness (tcpSocket)
# killing and restarting a container with upstream's events, startup probes gating the others
# and restarting a container that never starts, gRPC health checks against a real HTTP/2 server
# (Node's http2 module, on the host network), exec probes run inside the container, and an
# in-place resize while liveness keeps restarting the container; the prober_probe_total and
# prober_probe_duration_seconds series, gone with their pod.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

grpc_pid=
probes_cleanup() {
        [ -n "$grpc_pid" ] && kill "$grpc_pid" 2>/dev/null
        node_cleanup
}
SERVER_CLEANUP=probes_cleanup
node_test_start
k wait --for=condition=Ready node/test-node --timeout=30s >/dev/null 2>&1

# pod NAME COMMAND PROBES_JSON [SPEC_EXTRA_JSON]: one busybox container with those probes
pod() {
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1${4:+,$4},
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","$2"],
                 "ports":[{"name":"web","containerPort":8080}]$3}]}}
JSON
}
jp() { k get pod "$1" -o jsonpath="$2" 2>/dev/null; }
events() { k get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>/dev/null; }
has_event() { events "$1" | grep -qF -- "$2" && echo yes || echo no; }

# --- readiness: httpGet on a named port; not ready until the page exists
pod ready 'mkdir -p /www; httpd -p 8080 -h /www; sleep 4; echo ok > /www/ready; sleep 3600' \
        ',"readinessProbe":{"httpGet":{"path":"/ready","port":"web"},"periodSeconds":1}'
k wait --for=jsonpath='{.status.phase}'=Running pod/ready --timeout=60s >/dev/null 2>&1
check_equal "a running container whose readiness probe fails is not ready" "false False" \
        "$(jp ready '{.status.containerStatuses[0].ready} {.status.conditions[?(@.type=="Ready")].status}')"
until_equal "the readiness failures are Unhealthy events with the kubelet's words" yes \
        has_event ready "Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 404"
until_equal "once the probe succeeds the container and the pod are Ready" "true True" \
        jp ready '{.status.containerStatuses[0].ready} {.status.conditions[?(@.type=="Ready")].status}'

# --- liveness: tcpSocket; the server goes away, the container is killed and restarted
pod alive 'httpd -f -p 9000 & sleep 3; kill $!; sleep 3600' \
        ',"livenessProbe":{"tcpSocket":{"port":9000},"periodSeconds":1,"failureThreshold":2}'
k wait --for=jsonpath='{.status.phase}'=Running pod/alive --timeout=60s >/dev/null 2>&1
ip=$(jp alive '{.status.podIP}')
until_equal "a failed liveness probe restarts the container" 1 jp alive '{.status.containerStatuses[0].restartCount}'
check_equal "with the Unhealthy event of the kubelet's words" yes \
        "$(has_event alive "Unhealthy: Liveness probe failed: dial tcp $ip:9000: connect: connection refused")"
check_equal "and its Killing event" yes \
        "$(has_event alive "Killing: Container c failed liveness probe, will be restarted")"

# --- the kubelet's prober metrics: attempts by result, successes timed, a deleted pod's series gone
# probe_count POD TYPE RESULT: prober_probe_total of the pod's container c, 0 when absent
probe_count() {
        k get --raw /metrics 2>/dev/null | awk -v want="container=\"c\",namespace=\"default\",pod=\"$1\"," \
                -v type="probe_type=\"$2\",result=\"$3\"}" \
                'index($0, "prober_probe_total{" want) == 1 && index($0, type) { n = $2 } END { print n + 0 }'
}
check "prober_probe_total counts the readiness probe's successes" \
        test "$(probe_count ready Readiness successful)" -ge 1
check "and its failures before the page existed" test "$(probe_count ready Readiness failed)" -ge 1
check "and the liveness probe's failures" test "$(probe_count alive Liveness failed)" -ge 2
check_equal "successful probes are timed in prober_probe_duration_seconds" yes \
        "$(k get --raw /metrics | grep -q '^prober_probe_duration_seconds_count{container="c",namespace="default",pod="ready",probe_type="Readiness"} [1-9]' && echo yes || echo no)"
k delete pod ready --timeout=60s >/dev/null 2>&1
until_equal "a deleted pod's probe series are gone" 0 probe_count ready Readiness successful

# --- startup: gates readiness until it succeeds; one that never succeeds restarts the container
pod slow 'sleep 6; httpd -f -p 8080 -h /' \
        ',"startupProbe":{"tcpSocket":{"port":8080},"periodSeconds":1,"failureThreshold":30},"readinessProbe":{"tcpSocket":{"port":8080},"periodSeconds":1}'
pod never 'sleep 3600' \
        ',"startupProbe":{"tcpSocket":{"port":8080},"periodSeconds":1,"failureThreshold":2}'
k wait --for=jsonpath='{.status.phase}'=Running pod/slow --timeout=60s >/dev/null 2>&1
check_equal "before its startup probe succeeds a container is neither started nor ready" "false false" \
        "$(jp slow '{.status.containerStatuses[0].started} {.status.containerStatuses[0].ready}')"
until_equal "after it succeeds, started and (readiness passing) ready" "true true" \
        jp slow '{.status.containerStatuses[0].started} {.status.containerStatuses[0].ready}'
until_equal "a startup probe that keeps failing restarts the container" yes \
        has_event never "Killing: Container c failed startup probe, will be restarted"

# --- gRPC health checks against a real HTTP/2 server on the node
if command -v node >/dev/null 2>&1; then
        grpc_port=$(free_port)
        node -e '
const http2 = require("http2");
http2.createServer().on("stream", (stream) => {
  const parts = [];
  stream.on("data", (c) => parts.push(c));
  stream.on("end", () => {
    const msg = Buffer.concat(parts).subarray(5);
    const service = msg.length > 2 && msg[0] === 0x0a ? msg.subarray(2, 2 + msg[1]).toString() : "";
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(Buffer.from([0, 0, 0, 0, 2, 0x08, service === "down" ? 2 : 1]));
  });
}).listen(Number(process.argv[1]), "0.0.0.0");' "$grpc_port" &
        grpc_pid=$!
        pod grpc-up 'sleep 3600' ",\"readinessProbe\":{\"grpc\":{\"port\":$grpc_port},\"periodSeconds\":1}" '"hostNetwork":true'
        pod grpc-down 'sleep 3600' ",\"readinessProbe\":{\"grpc\":{\"port\":$grpc_port,\"service\":\"down\"},\"periodSeconds\":1}" '"hostNetwork":true'
        until_equal "a gRPC health check answering SERVING makes the container ready" true \
                jp grpc-up '{.status.containerStatuses[0].ready}'
        until_equal "one answering NOT_SERVING does not, with upstream's words" yes \
                has_event grpc-down "Unhealthy: Readiness probe failed: service unhealthy (responded with \"NOT_SERVING\")"
        check_equal "and the container stays unready" false "$(jp grpc-down '{.status.containerStatuses[0].ready}')"
else
        ok "gRPC health checks # SKIP node (Node.js) is not installed"
fi

# --- exec probes: the command runs in the container; its exit code decides, its output is why
pod execprobe 'sleep 4; touch /tmp/ready; sleep 3600' \
        ',"readinessProbe":{"exec":{"command":["cat","/tmp/ready"]},"periodSeconds":1}'
pod execlive 'sleep 3600' \
        ',"livenessProbe":{"exec":{"command":["sh","-c","echo sick; exit 1"]},"periodSeconds":1,"failureThreshold":2}'
until_equal "an exec readiness probe failing says the command's output" yes \
        has_event execprobe "Unhealthy: Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory"
until_equal "and once the command succeeds the container is ready" true \
        jp execprobe '{.status.containerStatuses[0].ready}'
until_equal "an exec liveness probe exiting 1 restarts the container" yes \
        has_event execlive "Killing: Container c failed liveness probe, will be restarted"
check_equal "with its output in the Unhealthy event" yes \
        "$(has_event execlive "Unhealthy: Liveness probe failed: sick")"

# --- a resize while liveness restarts the container: its server lives 4 s a run, so the probe
# kills and restarts it again and again (with the crash-loop back-off); the resize, sent as the
# first failures come, completes, and every run after it gets the new limits
pod flap 'httpd -f -p 9001 & sleep 4; kill $!; sleep 3600' \
        ',"livenessProbe":{"tcpSocket":{"port":9001},"periodSeconds":1,"failureThreshold":2},"resources":{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}'
k wait --for=jsonpath='{.status.phase}'=Running pod/flap --timeout=60s >/dev/null 2>&1
sleep 4
check "a resize of the limits is accepted while the probe fails" \
        k patch pod flap --subresource resize -p '{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"300m","memory":"96Mi"}}}]}}'
restarted() { [ "$(jp flap '{.status.containerStatuses[0].restartCount}')" -ge 1 ] && echo yes; }
until_equal "the liveness probe restarts the container" yes restarted
until_equal "the resize completes: the status shows the new limits and no resize condition" "300m 96Mi " \
        jp flap '{.status.containerStatuses[0].resources.limits.cpu} {.status.containerStatuses[0].resources.limits.memory} {.status.conditions[?(@.type=="PodResizePending")].type}{.status.conditions[?(@.type=="PodResizeInProgress")].type}'
# the running run's container cgroup, as the kernel holds it (empty while it is restarting)
flap_cgroup() {
        local uid id mem cpu
        uid=$(jp flap '{.metadata.uid}')
        id=$(jp flap '{.status.containerStatuses[0].containerID}')
        [ "$(jp flap '{.status.containerStatuses[0].state.running.startedAt}')" ] || return
        mem=$(find "$(cg_root memory)" -type d -name "pod$uid" | head -1)
        cpu=$(find "$(cg_root cpu)" -type d -name "pod$uid" | head -1)
        echo "$(cg_get "$mem/${id#flexlet://}" memory) $(cg_get "$cpu/${id#flexlet://}" quota)"
}
until_equal "a run after it has the new limits in its cgroup (96Mi, 300m)" "100663296 30000" flap_cgroup
more_restarts() { [ "$(jp flap '{.status.containerStatuses[0].restartCount}')" -ge 2 ] && echo yes; }
until_equal "and the probe keeps restarting it" yes more_restarts

check "delete the pods" k delete pod --all --timeout=60s
server_check_log
tap_done
