#!/usr/bin/env bash
# test-resize.sh: in-place resize end to end, as root, through kubectl against `flexlet serve`
# on a node with allocatable cpu=4, memory=4Gi: container CPU and memory changed in the running
# cgroups with no restart (KEP-1287, upstream scenarios S1, S8-S11, S14, S16, S18 on this
# machine's cgroup v1, and on v2 in tests/vm/run.sh's guest: cpu.weight, cpu.max, memory.max), Memory emptyDir volumes remounted live with every file kept (KEP-6030),
# a combined resize observed from the host in the required order, a deferred resize that
# proceeds once another pod leaves, and an agent restart in the middle (S20).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

start_node() {
        node_start --feature-gates MemoryBackedVolumeResizeCgroupV1=true
}
node_test_start --feature-gates MemoryBackedVolumeResizeCgroupV1=true

wait_running() {
        k wait --for=jsonpath='{.status.phase}'=Running "pod/$1" --timeout=60s >/dev/null 2>&1
}
resize() { # resize POD JSON
        k patch pod "$1" --subresource resize -p "$2" >/dev/null
}
jp() { k get pod "$1" -o jsonpath="$2"; }
# cg_dir POD CONTAINER|"" memory|quota|cpu: the pod's cgroup (or its running container's)
# in the hierarchy of that value
cg_dir() {
        local uid dir root
        uid=$(jp "$1" '{.metadata.uid}')
        if [ "$3" = memory ]; then root=$(cg_root memory); else root=$(cg_root cpu); fi
        dir=$(find "$root" -type d -name "pod$uid" | head -1)
        if [ -n "$2" ]; then
                local id
                id=$(jp "$1" "{.status.containerStatuses[?(@.name==\"$2\")].containerID}")
                dir="$dir/${id#flexlet://}"
        fi
        echo "$dir"
}
# cg_file POD CONTAINER|"" memory|quota|cpu: a limit of the pod's cgroup (or its running
# container's) as the kernel holds it, on either cgroup version (cg_get in tests/lib/node.sh)
cg_file() {
        local dir
        dir=$(cg_dir "$@")
        [ -n "$dir" ] && cg_get "$dir" "$3"
}
no_resize_conditions() {
        jp "$1" '{range .status.conditions[*]}{.type}{" "}{end}' | tr ' ' '\n' | grep -c '^PodResize'
}

# --- S1/S8: cpu and memory up and down, in place
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":2,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"],
   "resources":{"requests":{"cpu":"500m","memory":"128Mi"},"limits":{"cpu":"1","memory":"256Mi"}}}]}}
JSON
wait_running web
cid=$(jp web '{.status.containerStatuses[0].containerID}')
check_equal "the container's cpu.shares (v2: cpu.weight) before" "$(cpu_want 512)" "$(cg_file web c1 cpu)"
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1500m","memory":"128Mi"},"limits":{"cpu":"2","memory":"512Mi"}}}]}}'
until_equal "S1: the container's cpu.shares follow (1500m)" "$(cpu_want 1536)" cg_file web c1 cpu
until_equal "S1: the container's CFS quota follows (2 cpus)" "200000" cg_file web c1 quota
until_equal "the container's memory limit follows (512Mi)" "536870912" cg_file web c1 memory
until_equal "the pod cgroup's memory limit follows" "536870912" cg_file web "" memory
until_equal "status.resources reports the kernel's values" "1500m 2 512Mi" \
        jp web '{.status.containerStatuses[0].resources.requests.cpu} {.status.containerStatuses[0].resources.limits.cpu} {.status.containerStatuses[0].resources.limits.memory}'
check_equal "allocatedResources is the new request" "1500m" "$(jp web '{.status.containerStatuses[0].allocatedResources.cpu}')"
until_equal "no resize condition is left" "0" no_resize_conditions web
check_equal "same container, no restart" "$cid 0" "$(jp web '{.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}')"
events=$(k get events --field-selector involvedObject.name=web -o jsonpath='{range .items[*]}{.reason}{" "}{end}')
for r in ResizeStarted ResizeCompleted; do
        case " $events " in *" $r "*) ok "event $r" ;; *) not_ok "event $r" "$events" ;; esac
done
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"250m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}}}]}}'
until_equal "S8: a decrease reaches the container (cpu.shares 256)" "$(cpu_want 256)" cg_file web c1 cpu
until_equal "S8: and its memory limit (256Mi)" "268435456" cg_file web c1 memory
until_equal "S8: the pod memory limit shrinks after the container's" "268435456" cg_file web "" memory
if [ -n "$CGROUP_V2" ]; then
        # the decrease set memory.high to the new limit first (docs/cgroups.md) and put it back
        check_equal "S8 on v2: memory.high is back at max on the container and the pod" "max max" \
                "$(cat "$(cg_dir web c1 memory)/memory.high") $(cat "$(cg_dir web "" memory)/memory.high")"
fi
check_equal "still the same container" "$cid 0" "$(jp web '{.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}')"

# --- S10/S11: infeasible
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"5"},"limits":{"cpu":"5"}}}]}}'
until_equal "S11: more cpu than the node has is Infeasible" \
        "Infeasible Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000" \
        jp web '{.status.conditions[?(@.type=="PodResizePending")].reason} {.status.conditions[?(@.type=="PodResizePending")].message}'
check_equal "the allocation stays" "250m" "$(jp web '{.status.containerStatuses[0].allocatedResources.cpu}')"
check_equal "the deprecated status.resize says so" "Infeasible" "$(jp web '{.status.resize}')"
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"250m","memory":"4500Mi"},"limits":{"cpu":"500m","memory":"4500Mi"}}}]}}'
until_equal "S10: more memory than the node has is Infeasible" \
        "Infeasible Node didn't have enough capacity: memory, requested: 4718592000, capacity: 4294967296" \
        jp web '{.status.conditions[?(@.type=="PodResizePending")].reason} {.status.conditions[?(@.type=="PodResizePending")].message}'
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"250m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}}}]}}'
until_equal "back to the allocation: no condition left" "0" no_resize_conditions web

# --- S9: deferred until another pod leaves
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"],
   "resources":{"requests":{"cpu":"3","memory":"1Gi"}}}]}}
JSON
wait_running big
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1500m","memory":"128Mi"},"limits":{"cpu":"2","memory":"256Mi"}}}]}}'
until_equal "S9: a resize that does not fit now is Deferred" "Deferred" \
        jp web '{.status.conditions[?(@.type=="PodResizePending")].reason}'
check_output "with the predicate's message" "Node didn't have enough resource: cpu" \
        jp web '{.status.conditions[?(@.type=="PodResizePending")].message}'
check "the other pod leaves" k delete pod big --timeout=30s
until_equal "the deferred resize proceeds on its own" "1500m" jp web '{.status.containerStatuses[0].allocatedResources.cpu}'
until_equal "and reaches the cgroup" "$(cpu_want 1536)" cg_file web c1 cpu

# --- S14: a memory limit below usage is an Error, retried; patching back clears it
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"hungry"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","x=$(head -c 40000000 /dev/zero | tr '\\0' a); echo ${#x}; sleep 3600; echo ${#x}"],
   "resources":{"requests":{"memory":"128Mi"},"limits":{"memory":"128Mi"}}}]}}
JSON
wait_running hungry
until_equal "the container holds 40 MB" "40000000" k logs hungry
resize hungry '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"20Mi"},"limits":{"memory":"20Mi"}}}]}}'
until_equal "S14: PodResizeInProgress reason Error" "Error" \
        jp hungry '{.status.conditions[?(@.type=="PodResizeInProgress")].reason}'
msg=$(jp hungry '{.status.conditions[?(@.type=="PodResizeInProgress")].message}')
if echo "$msg" | grep -Eq 'memory limit \([0-9]+\) below current usage'; then
        ok "S14: the message is upstream's pattern"
else
        not_ok "S14: the message is upstream's pattern" "$msg"
fi
check_equal "S14: the kernel keeps the previous limit" "134217728" "$(cg_file hungry c1 memory)"
resize hungry '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"128Mi"},"limits":{"memory":"128Mi"}}}]}}'
until_equal "S14: patching back clears the condition" "0" no_resize_conditions hungry

# --- S16: RestartContainer restarts just that container, with the new limits
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"restarter"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"],
   "resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"},{"resourceName":"memory","restartPolicy":"NotRequired"}],
   "resources":{"requests":{"cpu":"100m","memory":"100Mi"},"limits":{"cpu":"100m","memory":"100Mi"}}}]}}
JSON
wait_running restarter
resize restarter '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m","memory":"200Mi"},"limits":{"cpu":"200m","memory":"200Mi"}}}]}}'
until_equal "S16: the container restarts once" "1" jp restarter '{.status.containerStatuses[0].restartCount}'
until_equal "S16: running again" "true" jp restarter '{.status.containerStatuses[0].ready}'
check_equal "S16: with the new cpu quota" "20000" "$(cg_file restarter c1 quota)"
check_equal "S16: and memory limit" "209715200" "$(cg_file restarter c1 memory)"
check_output "S16: the kill says why" "resize requires restart" \
        k get events --field-selector involvedObject.name=restarter,reason=Killing -o jsonpath='{.items[*].message}'

# --- KEP-6030: a tmpfs with 80Mi of files goes 100Mi -> 200Mi -> 100Mi, 50Mi is refused
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"vol"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
   "command":["sh","-c","for i in 1 2 3 4 5 6 7 8; do dd if=/dev/urandom of=/data/f$i bs=1M count=10 2>/dev/null; done; md5sum /data/f* > /tmp/sums; while true; do df -k /data | tail -1; sleep 0.5; done"],
   "resources":{"requests":{"memory":"64Mi"},"limits":{"memory":"1Gi"}},
   "volumeMounts":[{"name":"data","mountPath":"/data"}]}],
  "volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"100Mi"}}]}}
JSON
wait_running vol
vuid=$(jp vol '{.metadata.uid}')
vdir="$SERVER_DIR/data/pods/$vuid/volumes/data"
until_equal "80Mi of files written" "8" sh -c "ls '$vdir' | wc -l"
sleep 1
sums=$(cd "$vdir" && md5sum f*)
df_inside() { k logs vol --tail=1 | awk '{print $2}'; }
until_equal "df inside: 100Mi" "102400" df_inside
resize vol '{"spec":{"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"200Mi"}}]}}'
until_equal "grown live: df inside 200Mi" "204800" df_inside
until_equal "the status reports the live size" "200Mi" jp vol '{.status.containerStatuses[0].volumeMounts[0].volumeStatus.emptyDir.sizeLimit}'
resize vol '{"spec":{"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"100Mi"}}]}}'
until_equal "shrunk live: df inside 100Mi" "102400" df_inside
check_equal "every file kept, byte for byte" "$sums" "$(cd "$vdir" && md5sum f*)"
check_equal "no restart" "0" "$(jp vol '{.status.containerStatuses[0].restartCount}')"
resize vol '{"spec":{"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"50Mi"}}]}}'
until_equal "below usage: PodResizeInProgress Error" "Error" \
        jp vol '{.status.conditions[?(@.type=="PodResizeInProgress")].reason}'
check_output "the message names the volume and the bytes in use" "bytes in use" \
        jp vol '{.status.conditions[?(@.type=="PodResizeInProgress")].message}'
check_equal "the files stay" "$sums" "$(cd "$vdir" && md5sum f*)"
rm -f "$vdir"/f5 "$vdir"/f6 "$vdir"/f7 "$vdir"/f8
until_equal "after files are deleted, the retry succeeds: df inside 50Mi" "51200" df_inside
until_equal "and the condition goes" "0" no_resize_conditions vol
# K8S KEP-6030's signal: the remounts in storage_operation_duration_seconds, the refused one too
fs_resizes() {
        k get --raw /metrics | grep -F 'storage_operation_duration_seconds_count{migrated="false",operation_name="volume_fs_resize",status="'"$1"'",volume_plugin="kubernetes.io/empty-dir"}' | awk '{print ($2 >= 1) ? "yes" : "no"}'
}
check_equal "/metrics: empty-dir volume_fs_resize successes recorded" "yes" "$(fs_resizes success)"
check_equal "/metrics: the refused shrink recorded as fail-unknown" "yes" "$(fs_resizes fail-unknown)"

# --- combined: container memory 256Mi -> 512Mi with the volume 128Mi -> 384Mi, and back,
#     observed from the host in the required order
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"combo"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"],
   "resources":{"requests":{"memory":"256Mi"},"limits":{"memory":"256Mi"}},
   "volumeMounts":[{"name":"data","mountPath":"/data"}]}],
  "volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}}]}}
JSON
wait_running combo
cuid=$(jp combo '{.metadata.uid}')
cvol="$SERVER_DIR/data/pods/$cuid/volumes/data"
watch_order() { # samples (pod limit, container limit, tmpfs size) until all three reach $1 $2 $3
        local pod ctr vol last="" out=""
        for _ in $(seq 1 300); do
                pod=$(cg_file combo "" memory)
                ctr=$(cg_file combo c1 memory)
                vol=$(df -B1 --output=size "$cvol" | tail -1 | tr -d ' ')
                if [ "$pod $ctr $vol" != "$last" ]; then
                        out="$out|$pod $ctr $vol"
                        last="$pod $ctr $vol"
                fi
                [ "$last" = "$1 $2 $3" ] && break
                sleep 0.02
        done
        echo "$out"
}
resize combo '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"512Mi"},"limits":{"memory":"512Mi"}}}],"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"384Mi"}}]}}'
seen=$(watch_order 536870912 536870912 402653184)
# growth: the pod limit first, the container next, the volume last (states may be sampled
# together, never out of order)
ok_order=1
prev_pod=0 prev_ctr=0 prev_vol=0
IFS='|' read -ra states <<<"${seen#|}"
for st in "${states[@]}"; do
        read -r p c v <<<"$st"
        # the container never exceeds the pod; the volume grows only after the container
        [ "$c" -le "$p" ] || ok_order=0
        if [ "$v" -gt 134217728 ] && [ "$c" -lt 536870912 ]; then ok_order=0; fi
done
if [ "$ok_order" = 1 ] && [ "${states[-1]}" = "536870912 536870912 402653184" ]; then
        ok "growth in the required order: pod limit, container limit, then volume"
else
        not_ok "growth in the required order: pod limit, container limit, then volume" "$seen"
fi
resize combo '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"256Mi"},"limits":{"memory":"256Mi"}}}],"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}}]}}'
seen=$(watch_order 268435456 268435456 134217728)
ok_order=1
IFS='|' read -ra states <<<"${seen#|}"
for st in "${states[@]}"; do
        read -r p c v <<<"$st"
        [ "$c" -le "$p" ] || ok_order=0
        # the volume shrinks before the container does
        if [ "$c" -lt 536870912 ] && [ "$v" -gt 134217728 ]; then ok_order=0; fi
done
if [ "$ok_order" = 1 ] && [ "${states[-1]}" = "268435456 268435456 134217728" ]; then
        ok "shrink in the required order: volume, container limit, then pod limit"
else
        not_ok "shrink in the required order: volume, container limit, then pod limit" "$seen"
fi

# --- S20: the agent dies after the allocation is accepted; the restart carries on
cid=$(jp web '{.status.containerStatuses[0].containerID}')
resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1","memory":"128Mi"},"limits":{"cpu":"2","memory":"256Mi"}}}]}}'
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
start_node >/dev/null
until_equal "S20: after a restart the resize completes" "$(cpu_want 1024)" cg_file web c1 cpu
check_equal "S20: allocated as accepted" "1" "$(jp web '{.status.containerStatuses[0].allocatedResources.cpu}')"
check_equal "S20: the same container" "$cid" "$(jp web '{.status.containerStatuses[0].containerID}')"

# --- an accepted allocation that cannot be made durable: nothing of it is applied, the failure
# is logged once (K8S: "Failed to handle pod resize"), and the resize goes on once it can be
# written (the record made immutable: even root's writes to it fail)
alloc="$SERVER_DIR/data/pods/$(jp web '{.metadata.uid}')/allocated.slots"
if chattr +i "$alloc" 2>/dev/null; then
        trap 'chattr -i "$alloc" 2>/dev/null; node_cleanup' EXIT
        resize web '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1500m","memory":"128Mi"},"limits":{"cpu":"2","memory":"256Mi"}}}]}}'
        until_equal "the failed allocation write is logged" "1" \
                sh -c "grep -c 'pod default/web: Failed to handle pod resize: write .*allocated.slots' '$SERVER_DIR/server.log'"
        sleep 3 # three steps of the resync at least
        check_equal "logged once, not at every step" "1" \
                "$(grep -c 'pod default/web: Failed to handle pod resize' "$SERVER_DIR/server.log")"
        check_equal "nothing of it is allocated or applied" "1 $(cpu_want 1024)" \
                "$(jp web '{.status.containerStatuses[0].allocatedResources.cpu}') $(cg_file web c1 cpu)"
        chattr -i "$alloc"
        trap node_cleanup EXIT
        until_equal "writable again: the resize completes" "$(cpu_want 1536)" cg_file web c1 cpu
        check_equal "and is allocated" "1500m" "$(jp web '{.status.containerStatuses[0].allocatedResources.cpu}')"
else
        ok "a failed allocation write is logged once and retried # SKIP the record cannot be made immutable here (chattr +i)"
fi

# --- cleanup through the API: nothing left
check "delete every pod" k delete pods --all --timeout=60s
if [ -z "$(find $(cg_dirs) -type d -name 'pod*' 2>/dev/null)" ] &&
        ! grep -q "$SERVER_DIR/data/pods" /proc/self/mountinfo; then
        ok "no pod cgroup or mount is left"
else
        not_ok "no pod cgroup or mount is left" "$(grep "$SERVER_DIR" /proc/self/mountinfo)"
fi

tap_done
