#!/usr/bin/env bash
# test-resize-crash.sh: crash safety of an in-place resize, as root, through kubectl. For every
# named fault point of the node agent (docs/resize.md), `flexlet serve` is started with
# FLEXLET_FAULT=<point>, a combined resize (container memory with a Memory emptyDir holding
# files) is sent, the process kills itself with SIGKILL at that point, and a fresh
# `flexlet serve` must converge: the host state at the moment of death never shows a step taken
# out of the required order, the end state is the resize asked for, no file is lost, the
# container is the same.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
MEMCG=$(cg_root memory)
GATES="MemoryBackedVolumeResizeCgroupV1=true"

node_test_start --feature-gates "$GATES"

jp() { k get pod "$1" -o jsonpath="$2"; }
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"combo"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
   "command":["sh","-c","for i in 1 2 3 4; do dd if=/dev/urandom of=/data/f$i bs=1M count=10 2>/dev/null; done; sleep 3600; echo done"],
   "resources":{"requests":{"memory":"256Mi"},"limits":{"memory":"256Mi"}},
   "volumeMounts":[{"name":"data","mountPath":"/data"}]}],
  "volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Running pod/combo --timeout=60s >/dev/null
uid=$(jp combo '{.metadata.uid}')
cid=$(jp combo '{.status.containerStatuses[0].containerID}')
vol="$SERVER_DIR/data/pods/$uid/volumes/data"
for _ in $(seq 1 100); do [ "$(ls "$vol" | wc -l)" = 4 ] && break; sleep 0.1; done
sleep 0.5
sums=$(cd "$vol" && md5sum f*)

# slot_payload FILE: the newest record of a slot file (src/base/slot-file.h: two slots, each a
# 32-byte header of magic, sequence number, length and checksum, then the payload)
slot_payload() {
        local half s0 l0 s1 l1
        half=$(($(stat -c %s "$1") / 2))
        read -r s0 l0 < <(od -An -t u8 -j 8 -N 16 "$1")
        read -r s1 l1 < <(od -An -t u8 -j $((half + 8)) -N 16 "$1")
        if [ "$s1" -gt "$s0" ]; then
                tail -c +$((half + 33)) "$1" | head -c "$l1"
        else
                tail -c +33 "$1" | head -c "$l0"
        fi
}
pod_dir="$SERVER_DIR/data/pods/$uid"
small_allocation=$(slot_payload "$pod_dir/allocated.slots")

# state: "<pod memory limit> <container memory limit> <tmpfs size>", all in bytes
state() {
        local pod ctr
        pod=$(find "$MEMCG" -type d -name "pod$uid" | head -1)
        ctr="$pod/${cid#flexlet://}"
        echo "$(cg_get "$pod" memory) $(cg_get "$ctr" memory) $(df -B1 --output=size "$vol" | tail -1 | tr -d ' ')"
}
SMALL="268435456 268435456 134217728"
BIG="536870912 536870912 402653184"
small_spec='{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"256Mi"},"limits":{"memory":"256Mi"}}}],"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}}]}}'
big_spec='{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"512Mi"},"limits":{"memory":"512Mi"}}}],"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"384Mi"}}]}}'

# in_order STATE DIRECTION: whether a host state is a prefix of the required order
in_order() {
        local p c v
        read -r p c v <<<"$1"
        [ "$c" -le "$p" ] || return 1 # a container never above its pod
        if [ "$2" = up ]; then
                # the volume grows last: only once the container has grown
                [ "$v" -le 134217728 ] || [ "$c" -ge 536870912 ]
        else
                # the volume shrinks first: the container shrinks only after it
                [ "$c" -ge 536870912 ] || [ "$v" -le 134217728 ]
        fi
}

direction=up
for point in resize-allocated resize-step-1 resize-step-2 resize-step-3 resize-status; do
        server_stop
        FLEXLET_FAULT=$point node_start --feature-gates "$GATES" >/dev/null
        if [ "$direction" = up ]; then spec=$big_spec want=$BIG; else spec=$small_spec want=$SMALL; fi
        k patch pod combo --subresource resize -p "$spec" >/dev/null
        died=0
        for _ in $(seq 1 150); do
                if ! kill -0 "$SERVER_PID" 2>/dev/null; then died=1; break; fi
                sleep 0.2
        done
        if [ "$died" = 1 ] && grep -q "fault point $point reached" "$SERVER_DIR/server.log"; then
                ok "$point ($direction): the agent dies there"
        else
                not_ok "$point ($direction): the agent dies there" "$(tail -5 "$SERVER_DIR/server.log")"
        fi
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
        at_death=$(state)
        if in_order "$at_death" "$direction"; then
                ok "$point ($direction): nothing applied out of order ($at_death)"
        else
                not_ok "$point ($direction): nothing applied out of order" "$at_death"
        fi
        node_start --feature-gates "$GATES" >/dev/null
        got=""
        for _ in $(seq 1 150); do
                got=$(state)
                conds=$(jp combo '{range .status.conditions[*]}{.type}{" "}{end}')
                [ "$got" = "$want" ] && [ "${conds#*PodResize}" = "$conds" ] && break
                sleep 0.2
        done
        check_equal "$point ($direction): a restarted agent converges" "$want" "$got"
        check_equal "$point ($direction): the resize is reported done" "" \
                "$(jp combo '{.status.conditions[?(@.type=="PodResizeInProgress")].type}')"
        check_equal "$point ($direction): no file lost" "$sums" "$(cd "$vol" && md5sum f*)"
        check_equal "$point ($direction): the same container, never restarted" "$cid 0" \
                "$(jp combo '{.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}')"
        if [ "$direction" = up ]; then direction=down; else direction=up; fi
done

# A data folder written before the slot files holds allocated.json and actuated.json: the
# allocation the restarted agent starts from (given the small one while the spec asks for the
# big, the agent admits the big as a resize: one more ResizeStarted; none had it ignored the
# file) and what the kernel was told, each moved into its slot file.
started() {
        k get events --field-selector involvedObject.name=combo,reason=ResizeStarted \
                -o jsonpath='{range .items[*]}{.count}{" "}{end}' | awk '{for (i = 1; i <= NF; i++) n += $i} END {print n + 0}'
}
before=$(started)
server_stop
actuated=$(slot_payload "$pod_dir/actuated.slots")
rm "$pod_dir/allocated.slots" "$pod_dir/actuated.slots"
printf '%s' "$small_allocation" >"$pod_dir/allocated.json"
printf '%s' "$actuated" >"$pod_dir/actuated.json"
node_start --feature-gates "$GATES" >/dev/null
until_equal "legacy allocated.json: read as the allocation (the big one admitted again)" \
        "$((before + 1))" started
check_equal "legacy allocated.json: moved into allocated.slots" "allocated.slots" \
        "$(cd "$pod_dir" && ls allocated.*)"
check_equal "legacy actuated.json: moved into actuated.slots" "actuated.slots $actuated" \
        "$(cd "$pod_dir" && echo $(ls actuated.*)) $(slot_payload "$pod_dir/actuated.slots")"
check_equal "legacy allocated.json: the host keeps the big resize" "$BIG" "$(state)"
check_equal "legacy allocated.json: no file lost" "$sums" "$(cd "$vol" && md5sum f*)"

check "delete the pod" k delete pod combo --timeout=60s
tap_done
