#!/usr/bin/env bash
# test-many-pods.sh: 100 busybox pods created together (issue 16) all become Running with their
# events recorded, `flexlet serve` exits promptly on SIGTERM while it runs them, and, started
# again, it deletes them all cleanly: no pod object, folder, cgroup or mount left. Status and
# events go out on the node agent's status sender (docs/node.md), off its sync thread.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

N=${MANY_PODS:-100}
FLAGS=(--allocatable "cpu=64,memory=64Gi,pods=$((N + 10))")
node_test_start "${FLAGS[@]}"
check_output "the node is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

{
        echo '{"apiVersion":"v1","kind":"List","items":['
        for i in $(seq 1 "$N"); do
                [ "$i" -gt 1 ] && echo ,
                cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"many-$i","labels":{"app":"many"}},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sleep","3600"],
                 "resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]}}
JSON
        done
        echo ']}'
} >"$SERVER_DIR/pods.json"
check "create $N pods at once" k create -f "$SERVER_DIR/pods.json"

# running: how many of the pods are Running with every container ready
running() {
        k get pods -l app=many -o jsonpath='{range .items[*]}{.status.phase}/{.status.containerStatuses[0].ready}{"\n"}{end}' 2>/dev/null |
                grep -c '^Running/true$'
}
until_equal "all $N pods become Running and ready" "$N" running

# the events the sender posted: one Started per pod's container
started() {
        k get events --field-selector reason=Started -o jsonpath='{range .items[*]}{.involvedObject.name}{"\n"}{end}' 2>/dev/null |
                grep -c '^many-'
}
until_equal "each pod has its Started event" "$N" started

# SIGTERM with the pods running: the agent stops without finishing a pass over every pod, and
# the status sender's flush is bounded (docs/node.md); 30 s is only the test's patience
kill -TERM "$SERVER_PID"
exited=
for _ in $(seq 1 300); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
                exited=1
                break
        fi
        sleep 0.1
done
if [ -n "$exited" ]; then
        ok "serve with $N pods exits on SIGTERM"
else
        not_ok "serve with $N pods exits on SIGTERM" "still running after 30 s"
fi
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
check_equal "the pods' containers outlive the agent" "$N" \
        "$(find "$SERVER_DIR/data/pods" -mindepth 1 -maxdepth 1 -type d | wc -l)"

if node_start "${FLAGS[@]}"; then
        ok "serve starts again over the running pods"
else
        not_ok "serve starts again over the running pods"
        tap_done
        exit 1
fi
until_equal "after the restart all $N pods are still Running and ready" "$N" running

check "delete all $N pods" k delete pods -l app=many --wait=true --timeout=100s
check_equal "no pod object is left" "0" "$(k get pods -l app=many -o name 2>/dev/null | wc -l)"
left() {
        find "$SERVER_DIR/data/pods" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l
}
until_equal "no pod folder is left" "0" left
if [ -z "$(find $(cg_dirs) -mindepth 1 -type d -name 'pod*' 2>/dev/null)" ] &&
        ! grep -q "$SERVER_DIR/data/pods/" /proc/self/mountinfo; then
        ok "no pod cgroup or mount is left"
else
        not_ok "no pod cgroup or mount is left" "$(find $(cg_dirs) -mindepth 1 -type d -name 'pod*' | head -5; grep "$SERVER_DIR/data/pods/" /proc/self/mountinfo | head -5)"
fi

tap_done
