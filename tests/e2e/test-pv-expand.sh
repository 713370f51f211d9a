#!/usr/bin/env bash
# test-pv-expand.sh: a claim grows in place, as root, through kubectl against `flexlet serve`.
# For each fsType, a pod writes 50MiB with a checksum to a 300Mi claim; the claim is patched to
# 900Mi: the expander grows the file and the loop device, the node grows the filesystem (xfs and
# btrfs online while the pod keeps running; ext4, whose online growth this kernel refuses
# without CAP_SYS_RESOURCE, at the pod's next start, FileSystemResizePending meanwhile); the
# checksum holds, df inside shows the new size, no resize condition is left.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
. "$here/../lib/pv.sh"
node_require_root

node_test_start

resize_events() { # resize_events CLAIM POD: who was told FileSystemResizeSuccessful
        local who
        who=$(k get events -o jsonpath='{range .items[?(@.reason=="FileSystemResizeSuccessful")]}{.involvedObject.kind}/{.involvedObject.name}{"\n"}{end}')
        for want in "PersistentVolumeClaim/$1" "Pod/$2"; do
                grep -qx "$want" <<<"$who" && printf '%s ' "$want"
        done
}
pending_condition() {
        k get pvc "$1" -o jsonpath='{.status.conditions[?(@.type=="FileSystemResizePending")].type}'
}

for fs in xfs btrfs ext4; do
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"loop-$fs"},
 "provisioner":"flexlet.io/local-loop","parameters":{"fsType":"$fs"},
 "allowVolumeExpansion":true,"volumeBindingMode":"Immediate"}
JSON
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data-$fs"},
 "spec":{"storageClassName":"loop-$fs","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"300Mi"}}}}
JSON
        pv_writer_pod "w-$fs" "data-$fs" | k create -f - >/dev/null
        check "$fs: the pod runs on its 300Mi claim" k wait --for=condition=Ready "pod/w-$fs" --timeout=90s
        for _ in $(seq 1 100); do [ -n "$(pv_df_kib "w-$fs")" ] && break; sleep 0.2; done
        sleep 1
        sum=$(pv_host_sum "w-$fs")
        before=$(pv_df_kib "w-$fs")
        k patch pvc "data-$fs" -p '{"spec":{"resources":{"requests":{"storage":"900Mi"}}}}' >/dev/null
        if [ "$fs" = ext4 ]; then
                until_equal "$fs: online growth refused: FileSystemResizePending" "FileSystemResizePending" \
                        pending_condition "data-$fs"
                check_equal "$fs: capacity waits for the filesystem" "300Mi" "$(pv_capacity "data-$fs")"
                check "$fs: the pod is deleted" k delete pod "w-$fs" --timeout=30s
                pv_writer_pod "w2-$fs" "data-$fs" | k create -f - >/dev/null
                check "$fs: a new pod starts" k wait --for=condition=Ready "pod/w2-$fs" --timeout=90s
                name="w2-$fs"
        else
                name="w-$fs"
        fi
        until_equal "$fs: the claim reports 900Mi" "900Mi" pv_capacity "data-$fs"
        until_equal "$fs: no resize condition is left" "" pv_resize_conditions "data-$fs"
        if after=$(pv_df_grew "$name" "$before"); then
                ok "$fs: df inside shows the new size ($before KiB -> $after KiB)"
        else
                not_ok "$fs: df inside shows the new size" "$before KiB -> $after KiB"
        fi
        check_equal "$fs: the 50MiB keep their checksum" "$sum" "$(pv_host_sum "$name")"
        if [ "$fs" != ext4 ]; then
                check_equal "$fs: grown while the pod kept running" "0" \
                        "$(k get pod "$name" -o jsonpath='{.status.containerStatuses[0].restartCount}')"
        fi
        # K8S: the kubelet tells both the pod and the claim
        until_equal "$fs: FileSystemResizeSuccessful on the claim and on the pod" \
                "PersistentVolumeClaim/data-$fs Pod/$name " resize_events "data-$fs" "$name"
        check "$fs: delete the pod and the claim" k delete pod "$name" --timeout=30s
        check "$fs: the claim goes" k delete pvc "data-$fs" --timeout=60s
done
# K8S pkg/volume/util/metrics.go: the controller's expansion and the node's filesystem growth,
# mount and unmount, each with its plugin and outcome
metrics=$(k get --raw /metrics)
for op in expand_volume volume_fs_resize volume_mount volume_unmount; do
        series="storage_operation_duration_seconds_count{migrated=\"false\",operation_name=\"$op\",status=\"success\",volume_plugin=\"kubernetes.io/csi:local-loop.flexlet.io\"}"
        count=$(grep -F "$series" <<<"$metrics" | awk '{print $2}')
        if [ -n "$count" ] && [ "$count" -ge 2 ]; then
                ok "/metrics: $op recorded ($count)"
        else
                not_ok "/metrics: $op recorded" "$(grep storage_operation_duration_seconds_count <<<"$metrics")"
        fi
done
if [ "$(losetup -a | grep -c "$SERVER_DIR")" = 0 ]; then
        ok "no loop device is left"
else
        not_ok "no loop device is left" "$(losetup -a)"
fi
tap_done
