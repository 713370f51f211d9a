#!/usr/bin/env bash
# test-pv-crash.sh: `flexlet serve` SIGKILLed between growing a claim's device and growing its
# filesystem, as root, through kubectl. A pod holding 50MiB with a checksum runs on a 300Mi xfs
# claim; the claim is patched to 900Mi with the server armed to kill itself at one fault point:
# after the expander grew the file and loop device (volume-expander-grown), after it set the
# volume's capacity (volume-expander-pv-updated), after the node grew the filesystem but before
# it told the claim (node-volume-grown). Restarted without the fault, the expansion completes:
# the claim reports 900Mi with no resize condition, df inside shows it, the checksum holds, and
# the pod's container is the same one, never restarted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
. "$here/../lib/pv.sh"
node_require_root

node_test_start

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"loop-xfs"},
 "provisioner":"flexlet.io/local-loop","parameters":{"fsType":"xfs"},
 "allowVolumeExpansion":true,"volumeBindingMode":"Immediate"}
JSON

n=0
for point in volume-expander-grown volume-expander-pv-updated node-volume-grown; do
        n=$((n + 1))
        claim="data-$n"
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"$claim"},
 "spec":{"storageClassName":"loop-xfs","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"300Mi"}}}}
JSON
        pv_writer_pod "w-$n" "$claim" | k create -f - >/dev/null
        check "$point: the pod runs on its 300Mi claim" k wait --for=condition=Ready "pod/w-$n" --timeout=90s
        for _ in $(seq 1 100); do [ -n "$(pv_df_kib "w-$n")" ] && break; sleep 0.2; done
        sleep 1
        sum=$(pv_host_sum "w-$n")
        before=$(pv_df_kib "w-$n")
        cid=$(k get pod "w-$n" -o jsonpath='{.status.containerStatuses[0].containerID}')

        server_stop
        FLEXLET_FAULT=$point node_start >/dev/null
        k patch pvc "$claim" -p '{"spec":{"resources":{"requests":{"storage":"900Mi"}}}}' >/dev/null
        if server_died_at "$point"; then
                ok "$point: SIGKILLed there"
        else
                not_ok "$point: SIGKILLed there" "$(tail -5 "$SERVER_DIR/server.log")"
                server_stop
        fi
        node_start >/dev/null
        until_equal "$point: after the restart the claim reports 900Mi" "900Mi" pv_capacity "$claim"
        until_equal "$point: no resize condition is left" "" pv_resize_conditions "$claim"
        if after=$(pv_df_grew "w-$n" "$before"); then
                ok "$point: df inside shows the new size ($before KiB -> $after KiB)"
        else
                not_ok "$point: df inside shows the new size" "$before KiB -> $after KiB"
        fi
        check_equal "$point: the 50MiB keep their checksum" "$sum" "$(pv_host_sum "w-$n")"
        check_equal "$point: the same container, never restarted" "$cid 0" \
                "$(k get pod "w-$n" -o jsonpath='{.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}')"
        check "$point: delete the pod and the claim" k delete pod "w-$n" --timeout=30s
        check "$point: the claim goes" k delete pvc "$claim" --timeout=60s
done
if [ "$(losetup -a | grep -c "$SERVER_DIR")" = 0 ]; then
        ok "no loop device is left"
else
        not_ok "no loop device is left" "$(losetup -a)"
fi
tap_done
