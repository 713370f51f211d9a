#!/usr/bin/env bash
# test-terminal-pods.sh: a pod that has ended (Succeeded or Failed) gives back what it held on
# the node, as the kubelet does (SyncTerminatedPod): its sandbox process, its network namespace
# and address, its volumes' mounts and its cgroups go, while its status and its containers' logs
# stay until the pod is deleted. An agent killed and started again does not set such a pod up
# again. As root, through kubectl.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
k wait --for=condition=Ready node/test-node --timeout=30s >/dev/null 2>&1

# ended_pod NAME EXIT: a pod that writes to its log and to a Memory emptyDir, then exits
ended_pod() {
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":2,
  "containers":[{"name":"c","image":"busybox",
                 "command":["sh","-c","echo out-$1; echo err-$1 >&2; echo x > /cache/f; sleep 1; exit $2"],
                 "volumeMounts":[{"name":"cache","mountPath":"/cache"}]}],
  "volumes":[{"name":"cache","emptyDir":{"medium":"Memory","sizeLimit":"16Mi"}}]}}
JSON
}

pod_uid() { k get pod "$1" -o jsonpath='{.metadata.uid}'; }
# what of the pod is still held on the host: "cgroup", "mounts", "sandbox", space separated
held() {
        local uid=$1 what=""
        # shellcheck disable=SC2046
        [ -n "$(find $(cg_dirs) -type d -name "pod$uid" 2>/dev/null)" ] && what="$what cgroup"
        awk -v dir="$SERVER_DIR/data/pods/$uid/" 'index($5, dir) == 1' /proc/self/mountinfo | grep -q . &&
                what="$what mounts"
        pgrep -f "$uid/sandbox" >/dev/null && what="$what sandbox"
        echo "${what:-none}"
}

ended_pod done 0
ended_pod failed 3
k wait --for=jsonpath='{.status.phase}'=Succeeded pod/done --timeout=60s >/dev/null 2>&1
k wait --for=jsonpath='{.status.phase}'=Failed pod/failed --timeout=60s >/dev/null 2>&1
done_uid=$(pod_uid done)
failed_uid=$(pod_uid failed)
check_equal "the pods ended" "Succeeded Failed" \
        "$(k get pod done -o jsonpath='{.status.phase}') $(k get pod failed -o jsonpath='{.status.phase}')"
until_equal "a Succeeded pod's sandbox, mounts and cgroups are released" "none" held "$done_uid"
until_equal "a Failed pod's sandbox, mounts and cgroups are released" "none" held "$failed_uid"
check_equal "its log stays readable" "out-done err-done" "$(k logs done | tr '\n' ' ' | sed 's/ $//')"
check_equal "the exit code stays in its status" "3 Error" \
        "$(k get pod failed -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}')"
check_equal "the sandbox is reported gone (PodReadyToStartContainers False), the pod IP kept" \
        "False yes" \
        "$(k get pod done -o jsonpath='{.status.conditions[?(@.type=="PodReadyToStartContainers")].status}') $([ -n "$(k get pod done -o jsonpath='{.status.podIP}')" ] && echo yes || echo no)"
if [ -f "$SERVER_DIR/data/pods/$done_uid/pod.json" ] && [ -d "$SERVER_DIR/data/pods/$done_uid/containers" ]; then
        ok "its records stay on the node"
else
        not_ok "its records stay on the node" "$(ls -R "$SERVER_DIR/data/pods/$done_uid" 2>&1 | head)"
fi

# --- an agent started again does not set up an ended pod again
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
node_start >/dev/null
k wait --for=condition=Ready node/test-node --timeout=30s >/dev/null 2>&1
# a pod created after the restart runs: the agent has stepped every pod by then
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"later"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Running pod/later --timeout=60s >/dev/null 2>&1
sleep 1
check_equal "after a restart the ended pods hold nothing again" "none none" \
        "$(held "$done_uid") $(held "$failed_uid")"
check_equal "and keep their phase and log" "Succeeded Failed out-failed" \
        "$(k get pod done -o jsonpath='{.status.phase}') $(k get pod failed -o jsonpath='{.status.phase}') $(k logs failed | head -1)"

# --- deleting an ended pod removes its records (K8S: a pod that has ended is deleted at once,
# without a grace period; the agent removes what is left of it on its next pass)
check "delete the ended pods" k delete pod done failed later --timeout=30s
folders_left() { ls "$SERVER_DIR/data/pods" | grep -c -e "$done_uid" -e "$failed_uid"; }
until_equal "their folders are gone" "0" folders_left
server_check_log
tap_done
