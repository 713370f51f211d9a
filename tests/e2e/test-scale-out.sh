#!/usr/bin/env bash
# test-scale-out.sh: issue 14's acceptance on one machine, as root (docs/scale-out.md,
# "Acceptance"): three etcd members (Debian's), two `flexlet apiserver --store etcd` sharing a
# copy of one pki folder, and three `flexlet node`s joined with the node token and given both
# servers, each in network and mount namespaces of its own on an underlay bridge
# (tests/lib/netns-nodes.sh). On it: pods spread over the three nodes; a resize of cpu, memory
# and a Memory emptyDir on each node; a WaitForFirstConsumer xfs claim provisioned on the third
# node and grown online there, data intact. Then the failures: kill -9 of one apiserver (kubectl
# through the other works, the nodes fail over), of the apiserver whose controllers lead (a
# pending expansion and a Pending pod complete under the new leader), of the etcd leader
# (writes continue), of a node (NotReady within the issue's 50 s, a pod tolerating unreachable
# for 10 s evicted) and its restart (Ready, its running pod re-adopted, not restarted).
# Short lease and grace flags; no timing is asserted but the issue's 50 s bound. Everything is
# removed on exit, even on failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
for tool in etcd etcdctl mkfs.xfs losetup jq curl nsenter unshare; do
        if ! command -v "$tool" >/dev/null; then
                echo "1..0 # SKIP $tool is not installed"
                exit 0
        fi
done

SERVER_DIR=$(mktemp -d /tmp/flexlet-scale.XXXXXX)
. "$here/../lib/etcd-cluster.sh"
. "$here/../lib/netns-nodes.sh"
UL_HOST=10.215.0.1
CLUSTER_CIDR=10.216.0.0/16
APISERVER_HOST=$UL_HOST
declare -A NIP=([a]=10.215.0.11 [b]=10.215.0.12 [c]=10.215.0.13) NNAME=()
for x in a b c; do NNAME[$x]=scale-$x-$$; done

scale_cleanup() {
        [ -n "${SCALE_KEEP_LOGS:-}" ] && cp "$SERVER_DIR"/*.log "$SCALE_KEEP_LOGS"/ 2>/dev/null
        etcd_cluster_cleanup
        nn_cleanup
        # loop devices of the claim's file (the mounts went with the node's mount namespace)
        losetup -a 2>/dev/null | awk -F: -v dir="$SERVER_DIR/" 'index($0, dir) {print $1}' |
                xargs -r -n1 losetup -d 2>/dev/null
        awk -v dir="$SERVER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf "$SERVER_DIR"
}
trap scale_cleanup EXIT

# wait_for WHAT SECONDS COMMAND...: polls every 0.5 s until COMMAND succeeds (a deadline, not a
# timing assertion)
wait_for() {
        local what=$1 secs=$2 out=""
        shift 2
        for _ in $(seq 1 $((secs * 2))); do
                out=$("$@" 2>&1) && {
                        ok "$what"
                        return 0
                }
                sleep 0.5
        done
        not_ok "$what" "command: $*" "$out"
        return 1
}

# --- the cluster
nn_underlay "$UL_HOST/24"
etcd_cluster_start "flexlet-scale-$$"
check "three etcd members are healthy" ec endpoint health
LE=(--leader-elect-lease-duration 6s --leader-elect-renew-deadline 4s --leader-elect-retry-period 1s
        --node-monitor-period 2s --node-monitor-grace-period 20s
        --cluster-cidr "$CLUSTER_CIDR" --node-cidr-mask-size 24)
if apiserver_start a "${LE[@]}"; then ok "apiserver A starts on etcd"; else not_ok "apiserver A starts on etcd"; fi
cp -a "$SERVER_DIR/a/pki" "$SERVER_DIR/pki-b"
if apiserver_start b --pki-dir "$SERVER_DIR/pki-b" "${LE[@]}"; then
        ok "apiserver B starts with a copy of A's pki folder"
else
        not_ok "apiserver B starts with a copy of A's pki folder"
fi
SERVERS="${URL[a]},${URL[b]}"
ka() { "$KUBECTL" --kubeconfig "$SERVER_DIR/a/kubeconfig" --cache-dir "$SERVER_DIR/cache-a" "$@"; }
kb() { "$KUBECTL" --kubeconfig "$SERVER_DIR/b/kubeconfig" --cache-dir "$SERVER_DIR/cache-b" "$@"; }
# k: kubectl through whichever apiserver is alive (B first: A is the one killed first)
k() {
        if [ -n "${PID[b]}" ]; then kb "$@"; else ka "$@"; fi
}

for x in a b c; do
        nn_add "$x" "${NIP[$x]}" "$NODE_CGROUP_ROOT-$x"
done
# node_up X: node X joined (the token is read only while it has no certificate)
node_up() {
        nn_run "$1" --server "$SERVERS" --token-file "$SERVER_DIR/a/node-token" \
                --data-dir "$SERVER_DIR/node-$1" --node-name "${NNAME[$1]}" --node-ip "${NIP[$1]}" \
                --cgroup-root "${NN_CG[$1]}" --kubelet-listen "${NIP[$1]}:10250" \
                --cluster-cidr "$CLUSTER_CIDR" --allocatable cpu=2,memory=2Gi \
                --feature-gates MemoryBackedVolumeResizeCgroupV1=true
}
for x in a b c; do node_up "$x"; done
for _ in $(seq 1 300); do
        ka get node "${NNAME[a]}" "${NNAME[b]}" "${NNAME[c]}" >/dev/null 2>&1 && break
        sleep 0.2
done
check_output "the three nodes join and are Ready" "condition met" \
        ka wait --for=condition=Ready "node/${NNAME[a]}" "node/${NNAME[b]}" "node/${NNAME[c]}" --timeout=60s

# --- pods spread over the three nodes (the scheduler, least allocated)
for i in 1 2 3 4 5 6; do
        echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"spread-$i\",\"labels\":{\"app\":\"spread\"}},\"spec\":{\"terminationGracePeriodSeconds\":1,\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sleep\",\"3600\"],\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"32Mi\"}}}]}}"
done | ka create -f - >/dev/null
check_output "six pods run" "condition met" ka wait --for=condition=Ready pod -l app=spread --timeout=90s
check_equal "their spec.nodeName covers the three nodes" \
        "$(printf '%s\n' "${NNAME[@]}" | sort | tr '\n' ' ')" \
        "$(kb get pods -l app=spread -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | tr '\n' ' ')"

# --- a resize of cpu, memory and a Memory emptyDir on each node
for x in a b c; do
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"rz-$x"},
 "spec":{"nodeName":"${NNAME[$x]}","terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
   "command":["sh","-c","echo kept > /data/f; while true; do df -k /data | tail -1; sleep 0.5; done"],
   "resources":{"requests":{"cpu":"200m","memory":"64Mi"},"limits":{"cpu":"500m","memory":"128Mi"}},
   "volumeMounts":[{"name":"data","mountPath":"/data"}]}],
  "volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"32Mi"}}]}}
JSON
done | ka create -f - >/dev/null
check_output "a resizable pod runs on each node" "condition met" \
        ka wait --for=condition=Ready pod/rz-a pod/rz-b pod/rz-c --timeout=60s
# container_cg X POD KIND: the container's cgroup folder of KIND (memory|cpu) on the host
container_cg() {
        local uid id root
        uid=$(k get pod "$2" -o jsonpath='{.metadata.uid}')
        id=$(k get pod "$2" -o jsonpath='{.status.containerStatuses[0].containerID}')
        root=$(NODE_CGROUP_ROOT=${NN_CG[$1]} cg_root "$3")
        echo "$(find "$root" -type d -name "pod$uid" | head -1)/${id#flexlet://}"
}
df_inside() { k logs "$1" --tail=1 | awk '{print $2}'; }
for x in a b c; do
        k patch pod "rz-$x" --subresource resize -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"300m","memory":"96Mi"},"limits":{"cpu":"1","memory":"256Mi"}}}],"volumes":[{"name":"data","emptyDir":{"medium":"Memory","sizeLimit":"64Mi"}}]}}' >/dev/null
done
for x in a b c; do
        until_equal "node $x: the status shows the resize (cpu 1, memory 256Mi, emptyDir 64Mi)" "1 256Mi 64Mi" \
                k get pod "rz-$x" -o jsonpath='{.status.containerStatuses[0].resources.limits.cpu} {.status.containerStatuses[0].resources.limits.memory} {.status.containerStatuses[0].volumeMounts[0].volumeStatus.emptyDir.sizeLimit}'
        check_equal "node $x: the container's cgroup holds them (memory, CFS quota)" "268435456 100000" \
                "$(cg_get "$(container_cg "$x" "rz-$x" memory)" memory) $(cg_get "$(container_cg "$x" "rz-$x" cpu)" quota)"
        until_equal "node $x: the tmpfs grew live (df inside 64Mi)" "65536" df_inside "rz-$x"
        check_equal "node $x: the file kept, no restart" "kept 0" \
                "$(nsenter -t "${NN_PID[$x]}" -m cat "$SERVER_DIR/node-$x/pods/$(k get pod "rz-$x" -o jsonpath='{.metadata.uid}')/volumes/data/f") $(k get pod "rz-$x" -o jsonpath='{.status.containerStatuses[0].restartCount}')"
done

# --- a WaitForFirstConsumer xfs claim on the third node
. "$here/../lib/pv.sh"
pv_local_xfs_claim data 300Mi | ka apply -f - >/dev/null
pv_writer_pod_on w data "${NNAME[c]}" | ka create -f - >/dev/null
check_output "a pod pinned to the third node runs on the claim" "condition met" \
        ka wait --for=condition=Ready pod/w --timeout=90s
pv=$(k get pvc data -o jsonpath='{.spec.volumeName}')
ND=$SERVER_DIR/node-c
in_c() { nsenter -t "${NN_PID[c]}" -m "$@"; }
check_equal "the volume is provisioned on the third node (its affinity, its file there, xfs)" \
        "${NNAME[c]} xfs 314572800" \
        "$(k get pv "$pv" -o jsonpath='{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}') $(blkid -o value -s TYPE "$ND/volumes/$pv.img") $(stat -c %s "$ND/volumes/$pv.img")"
wuid=$(k get pod w -o jsonpath='{.metadata.uid}')
blob=$ND/pods/$wuid/volumes/d/blob
sum=""
for _ in $(seq 1 100); do
        [ "$(in_c stat -c %s "$blob" 2>/dev/null)" = 52428800 ] &&
                sum=$(in_c md5sum "$blob" 2>/dev/null | awk '{print $1}') && [ -n "$sum" ] && break
        sleep 0.2
done
for _ in $(seq 1 100); do [ -n "$(pv_df_kib w)" ] && break; sleep 0.2; done
before=$(pv_df_kib w)
k patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"500Mi"}}}}' >/dev/null
until_equal "the claim grows online there: 500Mi" "500Mi" pv_capacity data
check_equal "its file grew on the third node; the data is intact; no restart" "524288000 $sum 0" \
        "$(stat -c %s "$ND/volumes/$pv.img") $(in_c md5sum "$blob" | awk '{print $1}') $(k get pod w -o jsonpath='{.status.containerStatuses[0].restartCount}')"

# --- kill -9 one apiserver: kubectl through the other, the nodes fail over
renewed() { # X SINCE: node X's Lease was renewed after SINCE (RFC 3339)
        local t
        t=$(k get lease -n kube-node-lease "${NNAME[$1]}" -o jsonpath='{.spec.renewTime}') &&
                [ "$(date -d "$t" +%s.%N)" \> "$2" ]
}
kill -9 "${PID[a]}"
wait "${PID[a]}" 2>/dev/null
PID[a]=
t_kill=$(date +%s.%N)
check "after kill -9 of apiserver A, kubectl through B creates a config map" \
        kb create configmap after-a --from-literal=v=1
for x in a b c; do
        wait_for "node $x fails over to B: its Lease keeps renewing" 60 renewed "$x" "$t_kill"
done
check_output "and the nodes stay Ready" "condition met" \
        kb wait --for=condition=Ready "node/${NNAME[a]}" "node/${NNAME[b]}" "node/${NNAME[c]}" --timeout=30s
if apiserver_start a "${LE[@]}"; then ok "apiserver A restarts"; else not_ok "apiserver A restarts"; fi

# --- kill -9 the apiserver whose controllers lead: a pending expansion and a Pending pod
identity() { sed -n 's/.*leader election as \([^ ]*\) .*/\1/p' "$SERVER_DIR/$1.log" | tail -1; }
holder() { k get lease -n kube-system "$1" -o 'jsonpath={.spec.holderIdentity}'; }
# right after A's restart the Lease may still name A's previous run until it expires and one of
# the two running servers takes it: a deadline loop for a holder that is one of them
held_by_one() { local h; h=$(holder kube-controller-manager) && [ -n "$h" ] &&
        { [ "$h" = "$(identity a)" ] || [ "$h" = "$(identity b)" ]; } && echo "$h"; }
wait_for "the controller manager Lease names one of them" 60 held_by_one
leader=a other=b
[ "$(holder kube-controller-manager)" = "$(identity b)" ] && leader=b other=a
echo "# the controllers lead on $leader; the scheduler on $([ "$(holder kube-scheduler)" = "$(identity a)" ] && echo a || echo b)"
kill -9 "${PID[$leader]}"
wait "${PID[$leader]}" 2>/dev/null
PID[$leader]=
ks() { if [ "$other" = a ]; then ka "$@"; else kb "$@"; fi; }
ks patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"700Mi"}}}}' >/dev/null
echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"late"},"spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}]}}' |
        ks create -f - >/dev/null
wait_for "the survivor takes the controller manager Lease" 60 \
        sh -c "[ \"\$(KUBECONFIG=$SERVER_DIR/$other/kubeconfig $KUBECTL get lease -n kube-system kube-controller-manager -o 'jsonpath={.spec.holderIdentity}')\" = '$(identity "$other")' ]"
k() { ks "$@"; }
until_equal "the pending expansion completes under the new leader: 700Mi" "700Mi" pv_capacity data
check_equal "grown on the third node, the data intact" "734003200 $sum" \
        "$(stat -c %s "$ND/volumes/$pv.img") $(in_c md5sum "$blob" | awk '{print $1}')"
check_output "the Pending pod is scheduled and runs" "condition met" \
        ks wait --for=condition=Ready pod/late --timeout=60s

# --- kill -9 the etcd leader: writes continue
el=$(etcd_leader)
kill -9 "${ETCD_PIDS[$el]}"
wait "${ETCD_PIDS[$el]}" 2>/dev/null
ETCD_PIDS[$el]=
wait_for "after kill -9 of the etcd leader, writes go through" 30 ks create configmap after-etcd
fails=0
for i in 1 2 3 4 5; do
        if ! err=$(ks create configmap "more-$i" 2>&1 >/dev/null); then
                fails=$((fails + 1))
                echo "# create more-$i: $err"
        fi
done
check_equal "and keep going (5 creates)" 0 "$fails"

# --- kill -9 a node: NotReady within 50 s, a pod tolerating unreachable for 10 s evicted
cat <<JSON | ks create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"tol"},
 "spec":{"nodeName":"${NNAME[b]}","terminationGracePeriodSeconds":1,
  "tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":10}],
  "containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}]}}
JSON
ks wait --for=condition=Ready pod/tol --timeout=60s >/dev/null
started() { ks get pod rz-b -o jsonpath='{.status.containerStatuses[0].state.running.startedAt} {.status.containerStatuses[0].restartCount}'; }
start_before=$(started)
# main_pid: the container's shell (its loop's df and sleep come and go)
main_pid() {
        local p
        for p in $(cat "$(container_cg b rz-b memory)/cgroup.procs"); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sh ] && echo "$p"
        done
}
pid_before=$(main_pid)
nn_kill b
wait_for "node B is NotReady within 50 s of its kill -9" 50 \
        sh -c "[ \"\$(KUBECONFIG=$SERVER_DIR/$other/kubeconfig $KUBECTL get node ${NNAME[b]} -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status}')\" = Unknown ]"
check_output "with the unreachable NoExecute taint" "node.kubernetes.io/unreachable:NoExecute" \
        ks get node "${NNAME[b]}" -o 'jsonpath={range .spec.taints[*]}{.key}:{.effect} {end}'
evicted() { # deleted, or being deleted (its node is gone and cannot confirm)
        ! ks get pod tol >/dev/null 2>&1 || [ -n "$(ks get pod tol -o jsonpath='{.metadata.deletionTimestamp}')" ]
}
wait_for "the pod tolerating unreachable for 10 s is evicted" 60 evicted
check_equal "a pod with the default 300 s toleration stays" "" \
        "$(ks get pod rz-b -o jsonpath='{.metadata.deletionTimestamp}')"

# --- restart the node: Ready, its running pod re-adopted
node_up b
check_output "the restarted node is Ready again" "condition met" \
        ks wait --for=condition=Ready "node/${NNAME[b]}" --timeout=60s
wait_for "and untainted" 30 sh -c "[ -z \"\$(KUBECONFIG=$SERVER_DIR/$other/kubeconfig $KUBECTL get node ${NNAME[b]} -o 'jsonpath={.spec.taints}')\" ]"
# (right after the restart the status may briefly lack the container: a deadline loop)
re_adopted() { echo "$(started) $(main_pid)"; }
until_equal "its running pod is re-adopted: the same process, the same start time, no restart" \
        "$start_before $pid_before" re_adopted
wait_for "the evicted pod's deletion completes on the node" 60 sh -c "! KUBECONFIG=$SERVER_DIR/$other/kubeconfig $KUBECTL get pod tol >/dev/null 2>&1"

if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault" "$SERVER_DIR"/node-*.log "$SERVER_DIR"/[ab].log; then
        not_ok "no sanitizer report or crash in any log" "$(grep -hE -A12 "ERROR|runtime error" "$SERVER_DIR"/node-*.log "$SERVER_DIR"/[ab].log | head -40)"
else
        ok "no sanitizer report or crash in any log"
fi
tap_done
