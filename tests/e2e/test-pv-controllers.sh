#!/usr/bin/env bash
# test-pv-controllers.sh: the control plane of persistent volumes, as root, through kubectl
# against `flexlet serve`: the local-loop provisioner (a claim of each fsType gets a formatted
# sparse file and a PersistentVolume bound both ways; WaitForFirstConsumer waits for the
# scheduler's volume.kubernetes.io/selected-node, the pod is bound only after its claim, and a
# selected node that does not exist is given back to the scheduler; Delete removes the volume and its file, Retain keeps them) and the volume expander (the
# file and an attached loop device grow, the PV's capacity follows, the claim hands over to the
# node with NodeResizePending; S22's 422 and 403; KEP-1790's recovery from an infeasible size),
# and crash safety: `flexlet serve` killed at the controllers' fault points (docs/storage.md)
# finishes the work after a restart. The node's half (growing the filesystem) is not tested here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
. "$here/../lib/pv.sh"
node_require_root
for tool in mkfs.ext4 mkfs.xfs mkfs.btrfs losetup blkid jq; do
        if ! command -v "$tool" >/dev/null; then
                echo "1..0 # SKIP $tool is not installed"
                exit 0
        fi
done

# Loop devices this test attaches (standing in for the node) go with everything else.
pv_cleanup() {
        local f
        for f in "${SERVER_DIR:-/nonexistent}"/data/volumes/*.img; do
                [ -e "$f" ] || continue
                losetup -j "$f" -O NAME -n 2>/dev/null | xargs -r -n1 losetup -d 2>/dev/null
        done
        node_cleanup
}
SERVER_CLEANUP=pv_cleanup

node_test_start
VOLS=$SERVER_DIR/data/volumes

# wait_for SECONDS COMMAND...: until the command succeeds.
wait_for() {
        local t=$1
        shift
        for _ in $(seq 1 $((t * 5))); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.2
        done
        return 1
}
pvc_field() { k get pvc "$1" -o jsonpath="$2" 2>/dev/null; }
pv_field() { k get pv "$1" -o jsonpath="$2" 2>/dev/null; }
claim_phase_is() { [ "$(pvc_field "$1" '{.status.phase}')" = "$2" ]; }
resize_status_is() { [ "$(pvc_field "$1" '{.status.allocatedResourceStatuses.storage}')" = "$2" ]; }
file_of() { echo "$VOLS/$(pvc_field "$1" '{.spec.volumeName}').img"; }
file_size() { stat -c %s "$1" 2>/dev/null; }
condition() { pvc_field "$1" "{.status.conditions[?(@.type==\"$2\")].$3}"; }
describe_says() { k describe pvc "$1" 2>&1 | grep -q "$2"; }
pv_gone() { ! k get pv "$1" >/dev/null 2>&1; }
pv_phase_is() { [ "$(pv_field "$1" '{.status.phase}')" = "$2" ]; }
events_of() { k get events --field-selector "involvedObject.name=$1" -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' 2>/dev/null; }

class() { # class NAME FSTYPE MODE EXPANDABLE [RECLAIM]
        cat <<EOF | k apply -f - >/dev/null
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: $1}
provisioner: flexlet.io/local-loop
parameters: {fsType: $2}
volumeBindingMode: $3
allowVolumeExpansion: $4
reclaimPolicy: ${5:-Delete}
EOF
}
claim() { # claim NAME CLASS SIZE
        cat <<EOF | k apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1}
spec:
  storageClassName: $2
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: $3}}
EOF
}

# --- provisioning, one claim per fsType
for fs in ext4 xfs btrfs; do
        class "loop-$fs" "$fs" Immediate true
        claim "data-$fs" "loop-$fs" 300Mi
done
for fs in ext4 xfs btrfs; do
        if wait_for 30 claim_phase_is "data-$fs" Bound; then
                ok "$fs: the claim is Bound"
        else
                not_ok "$fs: the claim is Bound" "$(k describe pvc "data-$fs" 2>&1)" "$(tail -5 "$SERVER_DIR/server.log")"
        fi
        uid=$(pvc_field "data-$fs" '{.metadata.uid}')
        pv=pvc-$uid
        check_equal "$fs: the volume is pvc-<claim uid>" "$pv" "$(pvc_field "data-$fs" '{.spec.volumeName}')"
        check_equal "$fs: the file holds $fs" "$fs" "$(blkid -o value -s TYPE "$VOLS/$pv.img")"
        check_equal "$fs: the file is 300Mi, sparse" "314572800 yes" \
                "$(file_size "$VOLS/$pv.img") $([ "$(du -B1 "$VOLS/$pv.img" | cut -f1)" -lt 314572800 ] && echo yes)"
        check_equal "$fs: the volume's source and binding" \
                "local-loop.flexlet.io $pv $fs default/data-$fs/$uid Delete loop-$fs Bound flexlet.io/local-loop external-provisioner.volume.kubernetes.io/finalizer" \
                "$(pv_field "$pv" '{.spec.csi.driver} {.spec.csi.volumeHandle} {.spec.csi.fsType} {.spec.claimRef.namespace}/{.spec.claimRef.name}/{.spec.claimRef.uid} {.spec.persistentVolumeReclaimPolicy} {.spec.storageClassName} {.status.phase} {.metadata.annotations.pv\.kubernetes\.io/provisioned-by} {.metadata.finalizers[0]}')"
        check_equal "$fs: the claim's binding annotations and status" \
                "yes yes flexlet.io/local-loop flexlet.io/local-loop 300Mi ReadWriteOnce" \
                "$(pvc_field "data-$fs" '{.metadata.annotations.pv\.kubernetes\.io/bind-completed} {.metadata.annotations.pv\.kubernetes\.io/bound-by-controller} {.metadata.annotations.volume\.kubernetes\.io/storage-provisioner} {.metadata.annotations.volume\.beta\.kubernetes\.io/storage-provisioner} {.status.capacity.storage} {.status.accessModes[0]}')"
done
out=$(k get pvc data-xfs 2>&1)
if grep -qE '^NAME +STATUS +VOLUME +CAPACITY +ACCESS MODES +STORAGECLASS +VOLUMEATTRIBUTESCLASS +AGE$' <<<"$out" &&
        grep -qE '^data-xfs +Bound +pvc-[0-9a-f-]+ +300Mi +RWO +loop-xfs +<unset> +[0-9]+s$' <<<"$out"; then
        ok "get pvc: Bound, the volume, 300Mi, RWO"
else
        not_ok "get pvc: Bound, the volume, 300Mi, RWO" "$out"
fi
out=$(k get pv "$(pvc_field data-xfs '{.spec.volumeName}')" 2>&1)
if grep -qE '^pvc-[0-9a-f-]+ +300Mi +RWO +Delete +Bound +default/data-xfs +loop-xfs +<unset> +[0-9]+s$' <<<"$out"; then
        ok "get pv: 300Mi, Delete, Bound to default/data-xfs"
else
        not_ok "get pv: 300Mi, Delete, Bound to default/data-xfs" "$out"
fi
ev=$(events_of data-ext4 | sort -u | tr '\n' ' ')
check_equal "provisioning events" "ExternalProvisioning Provisioning ProvisioningSucceeded " "$ev"
check_output "ExternalProvisioning names the provisioner" \
        "Waiting for a volume to be created either by the external provisioner 'flexlet.io/local-loop'" \
        k describe pvc data-ext4

# --- refused before anything is made
cat <<'EOF' | k apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared}
spec:
  storageClassName: loop-ext4
  accessModes: [ReadWriteMany]
  resources: {requests: {storage: 300Mi}}
EOF
if wait_for 20 describe_says shared 'access mode ReadWriteMany is not supported by flexlet.io/local-loop'; then
        ok "ReadWriteMany: ProvisioningFailed, stays Pending"
else
        not_ok "ReadWriteMany: ProvisioningFailed, stays Pending" "$(k describe pvc shared 2>&1)"
fi
check_equal "ReadWriteMany: no volume" "Pending" "$(pvc_field shared '{.status.phase}')"
k delete pvc shared >/dev/null

# --- WaitForFirstConsumer: the default class waits for the scheduler's selected-node
claim late local-loop 300Mi
sleep 3
check_equal "WaitForFirstConsumer: Pending without a pod" "Pending" "$(pvc_field late '{.status.phase}')"
check_output "WaitForFirstConsumer event" "waiting for first consumer to be created before binding" k describe pvc late
cat <<'EOF' | k apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: consumer}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: busybox, command: [sleep, "3600"], volumeMounts: [{name: v, mountPath: /v}]}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: late}}]
EOF
# K8S VolumeBinding PreBind: the pod gets its node only once the claim is bound (volumeName set);
# watched every 0.1 s: a pod seen bound before its claim is a failure
order=unbound
for _ in $(seq 1 300); do
        if [ -n "$(k get pod consumer -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]; then
                if [ -n "$(pvc_field late '{.spec.volumeName}')" ]; then order=after; else order=before; fi
                break
        fi
        sleep 0.1
done
check_equal "WaitForFirstConsumer: the pod is bound after its claim" "after" "$order"
if wait_for 30 claim_phase_is late Bound; then
        ok "WaitForFirstConsumer: Bound once a pod using it is scheduled"
else
        not_ok "WaitForFirstConsumer: Bound once a pod using it is scheduled" "$(k describe pvc late 2>&1)"
fi
check_equal "selected-node is the pod's node, the volume is pinned to it" "test-node test-node test-node" \
        "$(pvc_field late '{.metadata.annotations.volume\.kubernetes\.io/selected-node}') $(k get pod consumer -o jsonpath='{.spec.nodeName}') $(pv_field "$(pvc_field late '{.spec.volumeName}')" '{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')"
k delete pod consumer --wait=false >/dev/null 2>&1

# external-provisioner: a selected node that does not exist is given back (the annotation
# removed, ProvisioningFailed) and nothing is provisioned
cat <<'EOF' | k apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: astray, annotations: {volume.kubernetes.io/selected-node: ghost}}
spec:
  storageClassName: local-loop
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 300Mi}}
EOF
selected_node_gone() { [ -z "$(pvc_field astray '{.metadata.annotations.volume\.kubernetes\.io/selected-node}')" ]; }
if wait_for 20 selected_node_gone && describe_says astray 'node "ghost" not found'; then
        ok "a selected node that does not exist: ProvisioningFailed, selected-node removed"
else
        not_ok "a selected node that does not exist: ProvisioningFailed, selected-node removed" "$(k describe pvc astray 2>&1)"
fi
check_equal "a selected node that does not exist: no volume" "Pending " \
        "$(pvc_field astray '{.status.phase} {.spec.volumeName}')"
k delete pvc astray >/dev/null

# --- expansion: device and volume grow, the node is handed over to
ext4_file=$(file_of data-ext4)
loopdev=$(losetup -f --show "$ext4_file")
k patch pvc data-ext4 -p '{"spec":{"resources":{"requests":{"storage":"900Mi"}}}}' >/dev/null
if wait_for 30 resize_status_is data-ext4 NodeResizePending; then
        ok "grow: NodeResizePending"
else
        not_ok "grow: NodeResizePending" "$(k get pvc data-ext4 -o yaml 2>&1)"
fi
check_equal "grow: the file and the attached loop device are 900Mi" "943718400 943718400" \
        "$(file_size "$ext4_file") $(blockdev --getsize64 "$loopdev")"
check_equal "grow: the volume's capacity" "900Mi" "$(pv_field "$(pvc_field data-ext4 '{.spec.volumeName}')" '{.spec.capacity.storage}')"
check_equal "grow: allocatedResources, capacity still the filesystem's" "900Mi 300Mi" \
        "$(pvc_field data-ext4 '{.status.allocatedResources.storage} {.status.capacity.storage}')"
check_equal "grow: conditions Resizing and FileSystemResizePending" \
        "True|True|Waiting for user to (re-)start a pod to finish file system resize of volume on node." \
        "$(condition data-ext4 Resizing status)|$(condition data-ext4 FileSystemResizePending status)|$(condition data-ext4 FileSystemResizePending message)"
ev=$(events_of data-ext4 | tr '\n' ' ')
if [[ "$ev" == *ExternalExpanding*Resizing*FileSystemResizeRequired* ]]; then
        ok "grow: events ExternalExpanding, Resizing, FileSystemResizeRequired"
else
        not_ok "grow: events ExternalExpanding, Resizing, FileSystemResizeRequired" "$ev"
fi
check_equal "grow: the filesystem is left to the node" "314572800" \
        "$(dumpe2fs -h "$loopdev" 2>/dev/null | awk -F: '/^Block count/{c=$2} /^Block size/{s=$2} END{print c*s}')"
losetup -d "$loopdev"

# --- S22 through kubectl: shrink 422, a class that forbids expansion 403
check_output "shrink below status.capacity: 422" \
        'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity' \
        k patch pvc data-ext4 -p '{"spec":{"resources":{"requests":{"storage":"200Mi"}}}}'
class fixed ext4 Immediate false
claim fixed fixed 300Mi
wait_for 30 claim_phase_is fixed Bound
check_output "a class without allowVolumeExpansion: 403" \
        'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize' \
        k patch pvc fixed -p '{"spec":{"resources":{"requests":{"storage":"600Mi"}}}}'

# --- KEP-1790: an infeasible size, then recovery by lowering the request
k patch pvc data-xfs -p '{"spec":{"resources":{"requests":{"storage":"20Ti"}}}}' >/dev/null
if wait_for 30 resize_status_is data-xfs ControllerResizeInfeasible; then
        ok "20Ti: ControllerResizeInfeasible"
else
        not_ok "20Ti: ControllerResizeInfeasible" "$(k get pvc data-xfs -o yaml 2>&1)"
fi
check_output "20Ti: ControllerResizeError says why" "failed to expand pvc with" condition data-xfs ControllerResizeError message
check_output "20Ti: a VolumeResizeFailed event" "VolumeResizeFailed" events_of data-xfs
check_equal "20Ti: nothing grew" "314572800 300Mi" \
        "$(file_size "$(file_of data-xfs)") $(pv_field "$(pvc_field data-xfs '{.spec.volumeName}')" '{.spec.capacity.storage}')"
k patch pvc data-xfs -p '{"spec":{"resources":{"requests":{"storage":"600Mi"}}}}' >/dev/null
if wait_for 30 resize_status_is data-xfs NodeResizePending; then
        ok "lowered to 600Mi: expanded at once, NodeResizePending"
else
        not_ok "lowered to 600Mi: expanded at once, NodeResizePending" "$(k get pvc data-xfs -o yaml 2>&1)"
fi
check_equal "lowered to 600Mi: allocated, file, volume; the error condition gone" "600Mi 629145600 600Mi " \
        "$(pvc_field data-xfs '{.status.allocatedResources.storage}') $(file_size "$(file_of data-xfs)") $(pv_field "$(pvc_field data-xfs '{.spec.volumeName}')" '{.spec.capacity.storage}') $(condition data-xfs ControllerResizeError status)"

# --- reclaim: Delete removes the volume and the file, Retain keeps them Released
btrfs_pv=$(pvc_field data-btrfs '{.spec.volumeName}')
k delete pvc data-btrfs >/dev/null
if wait_for 30 pv_gone "$btrfs_pv" && [ ! -e "$VOLS/$btrfs_pv.img" ]; then
        ok "Delete: the volume and its file are gone"
else
        not_ok "Delete: the volume and its file are gone" "$(k get pv 2>&1)" "$(ls -la "$VOLS")"
fi
class keep ext4 Immediate true Retain
claim kept keep 300Mi
wait_for 30 claim_phase_is kept Bound
kept_pv=$(pvc_field kept '{.spec.volumeName}')
k delete pvc kept >/dev/null
if wait_for 30 pv_phase_is "$kept_pv" Released; then
        ok "Retain: the volume is Released"
else
        not_ok "Retain: the volume is Released" "$(k get pv "$kept_pv" -o yaml 2>&1)"
fi
check "Retain: the file stays" test -e "$VOLS/$kept_pv.img"
k delete pv "$kept_pv" --wait=false >/dev/null
if wait_for 30 pv_gone "$kept_pv" && [ -e "$VOLS/$kept_pv.img" ]; then
        ok "Retain: deleting the volume drops the finalizer, keeps the file"
else
        not_ok "Retain: deleting the volume drops the finalizer, keeps the file" "$(k get pv "$kept_pv" -o yaml 2>&1)"
fi
rm -f "$VOLS/$kept_pv.img"

# --- crash safety: killed at each fault point, finished after a restart
# crash_at POINT: restarts the server armed with POINT.
crash_at() {
        server_stop
        FLEXLET_FAULT=$1 node_start >/dev/null
}
# inspect: the objects as the dead server left them, through a `flexlet apiserver` whose
# controllers do not run: it runs the provisioner and the expander too (their API work, for
# joined nodes), so it is started leader-elected while the test holds both Leases, as another
# kube-controller-manager and kube-scheduler would (`flexlet serve` on SQLite elects no leader
# and ignores them).
hold_leases() {
        local lease
        for lease in kube-controller-manager kube-scheduler; do
                k apply -f - >/dev/null <<JSON
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
 "metadata":{"name":"$lease","namespace":"kube-system"},
 "spec":{"holderIdentity":"test-pv-controllers","leaseDurationSeconds":86400,
  "acquireTime":"$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)","renewTime":"$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)"}}
JSON
        done
}
inspect() {
        server_stop
        FLEXLET_COMMAND=apiserver server_start --leader-elect >/dev/null
}
hold_leases

# A fresh claim for each expansion point: a claim whose node resize is still pending waits for
# it before growing again (K8S expandAndRecover), and no node finishes it in this test.
claim crash-grow loop-ext4 300Mi
claim crash-pv loop-ext4 300Mi
wait_for 30 claim_phase_is crash-grow Bound
wait_for 30 claim_phase_is crash-pv Bound
grow_pv=$(pvc_field crash-grow '{.spec.volumeName}')
pv_pv=$(pvc_field crash-pv '{.spec.volumeName}')

crash_at volume-expander-grown
k patch pvc crash-grow -p '{"spec":{"resources":{"requests":{"storage":"600Mi"}}}}' >/dev/null
if server_died_at volume-expander-grown; then
        ok "volume-expander-grown: killed after the file grew"
else
        not_ok "volume-expander-grown: killed after the file grew" "$(tail -5 "$SERVER_DIR/server.log")"
fi
inspect
check_equal "volume-expander-grown: at death, the file grown, the volume and the claim not" \
        "629145600 300Mi ControllerResizeInProgress 600Mi" \
        "$(file_size "$VOLS/$grow_pv.img") $(pv_field "$grow_pv" '{.spec.capacity.storage}') $(pvc_field crash-grow '{.status.allocatedResourceStatuses.storage} {.status.allocatedResources.storage}')"
server_stop
node_start >/dev/null
if wait_for 30 resize_status_is crash-grow NodeResizePending &&
        [ "$(pv_field "$grow_pv" '{.spec.capacity.storage}')" = 600Mi ]; then
        ok "volume-expander-grown: finished after the restart"
else
        not_ok "volume-expander-grown: finished after the restart" "$(k get pvc crash-grow -o yaml 2>&1)"
fi

crash_at volume-expander-pv-updated
k patch pvc crash-pv -p '{"spec":{"resources":{"requests":{"storage":"700Mi"}}}}' >/dev/null
if server_died_at volume-expander-pv-updated; then
        ok "volume-expander-pv-updated: killed after the volume's capacity"
else
        not_ok "volume-expander-pv-updated: killed after the volume's capacity" "$(tail -5 "$SERVER_DIR/server.log")"
fi
inspect
check_equal "volume-expander-pv-updated: at death, the volume grown, the claim not handed over" \
        "734003200 700Mi ControllerResizeInProgress" \
        "$(file_size "$VOLS/$pv_pv.img") $(pv_field "$pv_pv" '{.spec.capacity.storage}') $(pvc_field crash-pv '{.status.allocatedResourceStatuses.storage}')"
server_stop
node_start >/dev/null
if wait_for 30 resize_status_is crash-pv NodeResizePending &&
        [ "$(pvc_field crash-pv '{.status.allocatedResources.storage}')" = 700Mi ]; then
        ok "volume-expander-pv-updated: handed over after the restart"
else
        not_ok "volume-expander-pv-updated: handed over after the restart" "$(k get pvc crash-pv -o yaml 2>&1)"
fi

crash_at pv-provisioner-created
claim crashy loop-ext4 300Mi
if server_died_at pv-provisioner-created; then
        ok "pv-provisioner-created: killed after the file, before the volume"
else
        not_ok "pv-provisioner-created: killed after the file, before the volume" "$(tail -5 "$SERVER_DIR/server.log")"
fi
inspect
crashy_pv=pvc-$(pvc_field crashy '{.metadata.uid}')
check_equal "pv-provisioner-created: at death, a formatted file and no volume" "ext4 Pending" \
        "$(blkid -o value -s TYPE "$VOLS/$crashy_pv.img") $(pvc_field crashy '{.status.phase}')$(pv_field "$crashy_pv" '{.metadata.name}')"
server_stop
node_start >/dev/null
if wait_for 30 claim_phase_is crashy Bound && [ "$(pvc_field crashy '{.spec.volumeName}')" = "$crashy_pv" ]; then
        ok "pv-provisioner-created: bound to a volume over the same file after the restart"
else
        not_ok "pv-provisioner-created: bound to a volume over the same file after the restart" "$(k describe pvc crashy 2>&1)" "$(ls -la "$VOLS")"
fi
check_equal "no stray volume files" "$(k get pv -o name | wc -l)" "$(ls "$VOLS" | grep -c '\.img$')"

server_check_log
tap_done
