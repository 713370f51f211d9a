# pv.sh: helpers of the persistent-volume e2e tests (sourced after tap.sh, server.sh, node.sh):
# a pod that writes 50MiB with a checksum onto a claim and then reports df, the claim's
# capacity and resize conditions, and a server that killed itself at a fault point; the
# expandable WaitForFirstConsumer xfs class and claim, and the writer pinned to a node.

# pv_writer_pod NAME CLAIM: the pod's JSON. It writes /data/blob (50MiB of random bytes) unless
# it exists, syncs, then prints `df -k /data` every 0.5 s.
pv_writer_pod() {
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c",
    "[ -f /data/blob ] || dd if=/dev/urandom of=/data/blob bs=1M count=50 2>/dev/null; sync; while true; do df -k /data | tail -1; sleep 0.5; done"],
                 "volumeMounts":[{"name":"d","mountPath":"/data"}]}],
  "volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"$2"}}]}}
JSON
}
# pv_local_xfs_claim CLAIM SIZE: the YAML of the expandable WaitForFirstConsumer xfs class
# local-xfs and of a claim CLAIM of SIZE in it (a volume made on the node of its first pod).
pv_local_xfs_claim() {
        cat <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-xfs}
provisioner: flexlet.io/local-loop
parameters: {fsType: xfs}
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
reclaimPolicy: Delete
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1}
spec:
  storageClassName: local-xfs
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: $2}}
EOF
}
# pv_writer_pod_on NAME CLAIM NODE: pv_writer_pod pinned to NODE through the scheduler (a node
# selector on its hostname label).
pv_writer_pod_on() {
        pv_writer_pod "$1" "$2" | jq --arg n "$3" '.spec.nodeSelector = {"kubernetes.io/hostname": $n}'
}
# pv_df_kib POD: the size in KiB the pod last saw at /data.
pv_df_kib() { k logs "$1" --tail=1 2>/dev/null | awk '{print $2}'; }
# pv_host_sum POD: the md5 of the pod's /data/blob, read from the host.
pv_host_sum() {
        local uid
        uid=$(k get pod "$1" -o jsonpath='{.metadata.uid}')
        md5sum "$SERVER_DIR/data/pods/$uid/volumes/d/blob" 2>/dev/null | awk '{print $1}'
}
pv_capacity() { k get pvc "$1" -o jsonpath='{.status.capacity.storage}'; }
pv_resize_conditions() {
        k get pvc "$1" -o jsonpath='{range .status.conditions[*]}{.type}{" "}{end}'
}
# pv_df_grew POD BEFORE: waits up to 20 s for the pod's df to exceed BEFORE by 400000 KiB; prints
# the last size seen and succeeds when it did.
pv_df_grew() {
        local after=""
        for _ in $(seq 1 100); do
                after=$(pv_df_kib "$1")
                if [ -n "$after" ] && [ -n "$2" ] && [ "$after" -gt $(($2 + 400000)) ]; then
                        echo "$after"
                        return 0
                fi
                sleep 0.2
        done
        echo "$after"
        return 1
}
# server_died_at POINT: whether the server killed itself at fault point POINT (within 30 s).
server_died_at() {
        for _ in $(seq 1 150); do
                if ! kill -0 "$SERVER_PID" 2>/dev/null; then
                        wait "$SERVER_PID" 2>/dev/null
                        SERVER_PID=
                        grep -q "fault point $1 reached" "$SERVER_DIR/server.log"
                        return
                fi
                sleep 0.2
        done
        return 1
}
