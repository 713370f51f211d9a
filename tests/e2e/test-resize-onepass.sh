#!/usr/bin/env bash
# test-resize-onepass.sh: a resize of a running container's cpu and memory limits, and one of a
# Memory emptyDir's sizeLimit, each reach the API in one status write, as root against `flexlet
# serve`: the first status change the pod's watch shows after the new spec already has the
# new allocatedResources, the resources read back from the kernel (or the volume's new size) and
# no PodResizeInProgress (docs/resize.md, "Done"). The agent's status writes are what is
# counted, not their timing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
command -v jq >/dev/null || {
        echo "1..0 # SKIP jq missing"
        exit 0
}

node_test_start --feature-gates MemoryBackedVolumeResizeCgroupV1=true
WATCH_PID=""
stop_watch() {
        [ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null && wait "$WATCH_PID" 2>/dev/null
        WATCH_PID=""
}
trap 'stop_watch; node_cleanup' EXIT

jp() { k get pod "$1" -o jsonpath="$2"; }

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"one"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"],
   "resources":{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{"cpu":"200m","memory":"64Mi"}},
   "volumeMounts":[{"name":"scratch","mountPath":"/scratch"}]}],
  "volumes":[{"name":"scratch","emptyDir":{"medium":"Memory","sizeLimit":"16Mi"}}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Running pod/one --timeout=60s >/dev/null 2>&1
# the pod at rest: no status write of its start still on its way
until_equal "the pod runs with its limits read back" "200m 64Mi" \
        jp one '{.status.containerStatuses[0].resources.limits.cpu} {.status.containerStatuses[0].resources.limits.memory}'

# first_status_after FILE JQ_SPEC_TEST JQ_STATUS: the status (as JQ_STATUS prints it) of the
# first watch event after the first one whose spec passes JQ_SPEC_TEST and whose status differs
# from that event's, i.e. the agent's first status write after it saw the new spec
first_status_after() {
        jq -rs "
                (map(.object)) as \$o
                | (first(range(0; \$o | length) | select(\$o[.] | $2))) as \$i
                | first(\$o[\$i + 1:][] | select(.status != \$o[\$i].status)) | $3" "$1" 2>&1
}

# resize_watched NAME PATCH JQ WANT: the resize sent with the pod watched from before it until
# the watch's last event shows WANT (JQ of the pod); the stream in $SERVER_DIR/NAME.watch
resize_watched() {
        local name=$1 patch=$2 q=$3 want=$4 file="$SERVER_DIR/$1.watch"
        k get pod one -w -o json --output-watch-events >"$file" 2>/dev/null &
        WATCH_PID=$!
        # the watch's first event is the pod as it is: wait for it before the PATCH
        until_equal "$name: the watch is open" "ADDED" sh -c "jq -rs 'first | .type' '$file' 2>/dev/null"
        k patch pod one --subresource resize -p "$patch" >/dev/null
        until_equal "$name: the watch sees the resize done" "$want" \
                sh -c "jq -rs 'last | .object | $q' '$file' 2>/dev/null"
        stop_watch
}
LIMITS='[.status.containerStatuses[0].resources.limits.cpu, .status.containerStatuses[0].resources.limits.memory, .status.containerStatuses[0].allocatedResources.memory] | join(" ")'
VOLUME='.status.containerStatuses[0].volumeMounts[] | select(.name == "scratch") | .volumeStatus.emptyDir.sizeLimit'
CONDS='[.status.conditions[]? | select(.type | startswith("PodResize")) | .type] | if length == 0 then "none" else join(",") end'

resize_watched limits \
        '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"100m","memory":"48Mi"},"limits":{"cpu":"300m","memory":"96Mi"}}}]}}' \
        "$LIMITS" "300m 96Mi 48Mi"
check_equal "limits: the first status write after the new spec has the new allocation, the kernel's new limits and no PodResize condition" \
        "300m 96Mi 48Mi none" \
        "$(first_status_after "$SERVER_DIR/limits.watch" '.spec.containers[0].resources.limits.cpu == "300m"' \
                "(($LIMITS) + \" \" + ($CONDS))")"

resize_watched volume \
        '{"spec":{"volumes":[{"name":"scratch","emptyDir":{"medium":"Memory","sizeLimit":"32Mi"}}]}}' \
        "$VOLUME" "32Mi"
check_equal "volume: the first status write after the new spec has the volume's new size and no PodResize condition" \
        "32Mi none" \
        "$(first_status_after "$SERVER_DIR/volume.watch" '.spec.volumes[0].emptyDir.sizeLimit == "32Mi"' \
                "(($VOLUME) + \" \" + ($CONDS))")"

k delete pod one --wait=false >/dev/null 2>&1
tap_done
