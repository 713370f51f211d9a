#!/usr/bin/env bash
# test-node-volumes.sh: node-local volumes on the node that owns them (docs/storage.md, "Volumes
# on their node"), as root: `flexlet serve` and a second node joined with `flexlet node` (as
# test-node-join.sh does), each with its own data dir and cgroup root. A WaitForFirstConsumer
# xfs claim used by a pod pinned to the second node is provisioned there (the volume pinned to
# it, its backing file made by that node in its data dir, not the server's, and recorded in the
# volume), the other node can neither read nor change that volume, the claim grows online there
# with the data intact and the container never restarted, and deleting the claim removes the
# file there and then the volume.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
. "$here/../lib/pv.sh"
node_require_root
for tool in mkfs.xfs losetup jq curl; do
        if ! command -v "$tool" >/dev/null; then
                echo "1..0 # SKIP $tool is not installed"
                exit 0
        fi
done

N2=nodevol-$$
CG2=$NODE_CGROUP_ROOT-n2
BR2=flx2-$$ # the second node's pod bridge, removed on exit
N2_PID=
nv_cleanup() {
        local d
        if [ -n "$N2_PID" ]; then
                kill -9 "$N2_PID" 2>/dev/null
                wait "$N2_PID" 2>/dev/null
        fi
        for _ in 1 2 3 4 5; do
                for d in /sys/fs/cgroup/*/"$CG2" /sys/fs/cgroup/"$CG2"; do
                        [ -d "$d" ] || continue
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                sleep 0.2
                for d in /sys/fs/cgroup/*/"$CG2" /sys/fs/cgroup/"$CG2"; do
                        [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                done
                ls -d /sys/fs/cgroup/*/"$CG2" /sys/fs/cgroup/"$CG2" >/dev/null 2>&1 || break
        done
        ip link del "$BR2" 2>/dev/null
        node_cleanup # mounts and loop devices under SERVER_DIR, the second node's included
}
SERVER_CLEANUP=nv_cleanup

node_test_start
ND=$SERVER_DIR/node2
"$FLEXLET_BIN" node --server "https://127.0.0.1:$SERVER_PORT" --token-file "$SERVER_DIR/data/node-token" \
        --data-dir "$ND" --node-name "$N2" --cgroup-root "$CG2" --pod-bridge "$BR2" \
        --kubelet-listen "0.0.0.0:$(free_port)" --allocatable cpu=2,memory=2Gi >>"$SERVER_DIR/node2.log" 2>&1 &
N2_PID=$!
for _ in $(seq 1 300); do k get node "$N2" >/dev/null 2>&1 && break; sleep 0.2; done
check_output "the second node joins and is Ready" "condition met" \
        k wait --for=condition=Ready "node/$N2" --timeout=60s

pv_local_xfs_claim data 300Mi | k apply -f - >/dev/null
# the writer pod (pv.sh), pinned to the second node through the scheduler
pv_writer_pod_on w data "$N2" | k create -f - >/dev/null
check_output "the pod pinned to the second node runs on its claim" "condition met" \
        k wait --for=condition=Ready pod/w --timeout=60s
pv=$(k get pvc data -o jsonpath='{.spec.volumeName}')
check_equal "the claim's selected node, the pod's node and the volume's node are the second node" \
        "$N2 $N2 $N2" \
        "$(k get pvc data -o jsonpath='{.metadata.annotations.volume\.kubernetes\.io/selected-node}') $(k get pod w -o jsonpath='{.spec.nodeName}') $(k get pv "$pv" -o jsonpath='{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')"
check_equal "the backing file is the second node's, formatted xfs, 300Mi; the server's data dir has none" \
        "xfs 314572800 absent" \
        "$(blkid -o value -s TYPE "$ND/volumes/$pv.img") $(stat -c %s "$ND/volumes/$pv.img") $([ -e "$SERVER_DIR/data/volumes/$pv.img" ] && echo present || echo absent)"
check_equal "the volume records the node that made its file" "$N2" \
        "$(k get pv "$pv" -o jsonpath='{.metadata.annotations.local-loop\.flexlet\.io/provisioned-on}')"

# the first node's own identity (serve's node agent) against the second node's volume
as_node() { # DIR METHOD PATH [BODY]: the HTTP code, as the node whose pki is DIR/pki
        curl -s -o /dev/null -w '%{http_code}' --cacert "$SERVER_DIR/data/pki/ca.crt" \
                --cert "$1/pki/node.crt" --key "$1/pki/node.key" \
                -X "$2" -H 'Content-Type: application/merge-patch+json' ${4:+--data "$4"} \
                "https://127.0.0.1:$SERVER_PORT$3"
}
check_equal "another node can neither read nor change the volume (403); its own node reads it" \
        "403 403 200" \
        "$(as_node "$SERVER_DIR/data" GET "/api/v1/persistentvolumes/$pv") $(as_node "$SERVER_DIR/data" PATCH "/api/v1/persistentvolumes/$pv" '{"metadata":{"finalizers":null}}') $(as_node "$ND" GET "/api/v1/persistentvolumes/$pv")"
check_equal "its own node may not change anything else of it (403)" "403" \
        "$(as_node "$ND" PATCH "/api/v1/persistentvolumes/$pv" '{"spec":{"capacity":{"storage":"1Gi"}}}')"

# online growth there
for _ in $(seq 1 100); do [ -n "$(pv_df_kib w)" ] && break; sleep 0.2; done
before=$(pv_df_kib w)
wuid=$(k get pod w -o jsonpath='{.metadata.uid}')
sum=""
for _ in $(seq 1 100); do
        sum=$(md5sum "$ND/pods/$wuid/volumes/d/blob" 2>/dev/null | awk '{print $1}')
        [ -n "$sum" ] && [ "$(stat -c %s "$ND/pods/$wuid/volumes/d/blob" 2>/dev/null)" = 52428800 ] && break
        sleep 0.2
done
k patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"700Mi"}}}}' >/dev/null
until_equal "the claim reports 700Mi once the node grew it" "700Mi" pv_capacity data
if after=$(pv_df_grew w "$before"); then
        ok "the pod sees the filesystem grow online ($before -> $after KiB)"
else
        not_ok "the pod sees the filesystem grow online" "before=$before after=$after"
fi
check_equal "the file grew on the second node; the data is intact; the container never restarted" \
        "734003200 $sum 0" \
        "$(stat -c %s "$ND/volumes/$pv.img") $(md5sum "$ND/pods/$wuid/volumes/d/blob" | awk '{print $1}') $(k get pod w -o jsonpath='{.status.containerStatuses[0].restartCount}')"
check_equal "no resize condition or status left" "|" \
        "$(pv_resize_conditions data)|$(k get pvc data -o jsonpath='{.status.allocatedResourceStatuses.storage}')"

# deletion there
k delete pod w --timeout=60s >/dev/null
k delete pvc data --timeout=60s >/dev/null
pv_gone() { ! k get pv "$pv" >/dev/null 2>&1; }
for _ in $(seq 1 150); do pv_gone && break; sleep 0.2; done
if pv_gone && [ ! -e "$ND/volumes/$pv.img" ]; then
        ok "deleting the claim removes the file on the second node, then the volume"
else
        not_ok "deleting the claim removes the file on the second node, then the volume" \
                "$(k get pv "$pv" -o yaml 2>&1)" "$(ls -la "$ND/volumes")" "$(tail -5 "$SERVER_DIR/node2.log")"
fi
check_equal "no loop device left on the file" "" "$(losetup -j "$ND/volumes/$pv.img" 2>/dev/null)"

server_check_log
tap_done
