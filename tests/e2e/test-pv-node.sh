#!/usr/bin/env bash
# test-pv-node.sh: claims mounted into pods, as root, through kubectl against `flexlet serve`:
# a pod using a claim of the default class (WaitForFirstConsumer) waits for it to be provisioned
# and bound, then runs with the volume's filesystem at its mountPath; data written there
# outlives the pod and is read back, byte for byte, by the next pod; deleting a pod unmounts and
# detaches the volume and leaves nothing mounted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start

pod() { # pod NAME COMMAND
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","$2; sleep 3600"],
                 "volumeMounts":[{"name":"d","mountPath":"/data"}]}],
  "volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}}
JSON
}

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
 "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"300Mi"}}}}
JSON
pod writer 'dd if=/dev/urandom of=/data/blob bs=1M count=50 2>/dev/null; md5sum /data/blob; df -k /data | tail -1' |
        k create -f - >/dev/null
check "the pod runs once its claim is provisioned and bound" \
        k wait --for=condition=Ready pod/writer --timeout=90s
check_equal "the claim is Bound to a 300Mi volume" "Bound 300Mi" \
        "$(k get pvc data -o jsonpath='{.status.phase} {.status.capacity.storage}')"
sum=""
for _ in $(seq 1 100); do
        sum=$(k logs writer 2>/dev/null | awk '/blob/ {print $1}')
        [ -n "$sum" ] && break
        sleep 0.2
done
check_output "the volume's filesystem is at the mountPath" "/data" k logs writer
uid=$(k get pod writer -o jsonpath='{.metadata.uid}')
check "delete the writer" k delete pod writer --timeout=30s
if ! grep -q "$uid" /proc/self/mountinfo && [ "$(losetup -a | grep -c "$SERVER_DIR")" = 0 ]; then
        ok "the volume is unmounted and its loop device detached"
else
        not_ok "the volume is unmounted and its loop device detached" "$(losetup -a; grep "$uid" /proc/self/mountinfo)"
fi
pod reader 'md5sum /data/blob' | k create -f - >/dev/null
check "a second pod mounts the same claim" k wait --for=condition=Ready pod/reader --timeout=60s
got=""
for _ in $(seq 1 100); do
        got=$(k logs reader 2>/dev/null | awk '/blob/ {print $1}')
        [ -n "$got" ] && break
        sleep 0.2
done
if [ -n "$sum" ] && [ "$got" = "$sum" ]; then
        ok "the data outlived the first pod, byte for byte"
else
        not_ok "the data outlived the first pod, byte for byte" "wrote $sum, read $got"
fi
check_output "/metrics has the claim's volume stats" \
        'kubelet_volume_stats_capacity_bytes{namespace="default",persistentvolumeclaim="data"}' \
        k get --raw /metrics
check "delete the reader and the claim" k delete pod reader --timeout=30s
check "the claim goes" k delete pvc data --timeout=60s
if [ "$(losetup -a | grep -c "$SERVER_DIR")" = 0 ] && ! grep -q "$SERVER_DIR/data/pods" /proc/self/mountinfo; then
        ok "nothing is left mounted or attached"
else
        not_ok "nothing is left mounted or attached" "$(losetup -a)"
fi
tap_done
