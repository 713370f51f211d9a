#!/usr/bin/env bash
# test-storage.sh: StorageClass, PersistentVolume and PersistentVolumeClaim through the real
# kubectl (1.33, and 1.32 where it differs) against `flexlet apiserver`: discovery and short
# names, the default class local-loop, create/apply/get/describe/patch/edit/wait/watch/delete,
# the DefaultStorageClass admission, S22's 403 and 422 (a claim is bound by writing its status
# through the status subresource, as the PV controller would), and the StorageClass update rules.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

K33() { kv 1.33 "$@"; }
K32() { kv 1.32 "$@"; }
D=$SERVER_DIR

cat >"$D/sc-fixed.yaml" <<'EOF'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fixed
provisioner: flexlet.io/local-loop
parameters:
  fsType: xfs
allowVolumeExpansion: false
EOF
cat >"$D/sc-fast.yaml" <<'EOF'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: flexlet.io/local-loop
parameters:
  fsType: btrfs
reclaimPolicy: Retain
volumeBindingMode: Immediate
allowVolumeExpansion: true
mountOptions: [discard]
EOF
cat >"$D/pvc-data.yaml" <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 3Gi
EOF
cat >"$D/pvc-fixed.yaml" <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: fixed
spec:
  storageClassName: fixed
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
EOF
cat >"$D/pvc-none.yaml" <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: none
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
EOF
cat >"$D/pv.yaml" <<'EOF'
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-data
  annotations:
    pv.kubernetes.io/provisioned-by: flexlet.io/local-loop
spec:
  capacity:
    storage: 2Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  storageClassName: local-loop
  claimRef:
    namespace: default
    name: data
  csi:
    driver: local-loop.flexlet.io
    volumeHandle: pvc-data
    fsType: ext4
    volumeAttributes:
      path: /var/lib/flexlet/volumes/pvc-data.img
EOF

# --- discovery
out=$(K33 api-resources 2>&1)
if grep -qE '^persistentvolumeclaims +pvc +v1 +true +PersistentVolumeClaim' <<<"$out" &&
        grep -qE '^persistentvolumes +pv +v1 +false +PersistentVolume' <<<"$out" &&
        grep -qE '^storageclasses +sc +storage.k8s.io/v1 +false +StorageClass' <<<"$out"; then
        ok "api-resources lists pvc, pv and sc (storage.k8s.io/v1)"
else
        not_ok "api-resources lists pvc, pv and sc (storage.k8s.io/v1)" "$out"
fi

# --- the default class
out=$(K33 get sc 2>&1)
if grep -qE '^NAME +PROVISIONER +RECLAIMPOLICY +VOLUMEBINDINGMODE +ALLOWVOLUMEEXPANSION +AGE$' <<<"$out" &&
        grep -qE '^local-loop \(default\) +flexlet.io/local-loop +Delete +WaitForFirstConsumer +true +[0-9]+s$' <<<"$out"; then
        ok "get sc: local-loop (default), WaitForFirstConsumer, expandable"
else
        not_ok "get sc: local-loop (default), WaitForFirstConsumer, expandable" "$out"
fi
check_equal "the default class is ext4" "ext4" "$(K33 get sc local-loop -o jsonpath='{.parameters.fsType}')"
check_output "kubectl 1.32 reads classes too" "local-loop (default)" K32 get storageclass

# --- classes
check_output "create -f StorageClass" "storageclass.storage.k8s.io/fixed created" K33 create -f "$D/sc-fixed.yaml"
check_output "apply StorageClass" "storageclass.storage.k8s.io/fast created" K33 apply -f "$D/sc-fast.yaml"
check_output "apply again is unchanged" "storageclass.storage.k8s.io/fast unchanged" K33 apply -f "$D/sc-fast.yaml"
check_equal "reclaimPolicy and volumeBindingMode default to Delete and Immediate" "Delete Immediate" \
        "$(K33 get sc fixed -o jsonpath='{.reclaimPolicy} {.volumeBindingMode}')"
out=$(K33 describe sc fast 2>&1)
if grep -qE '^IsDefaultClass: +No' <<<"$out" && grep -qE '^Provisioner: +flexlet.io/local-loop' <<<"$out" &&
        grep -qE '^AllowVolumeExpansion: +True' <<<"$out" && grep -qE '^MountOptions:' <<<"$out" &&
        grep -qE '^ReclaimPolicy: +Retain' <<<"$out"; then
        ok "describe sc"
else
        not_ok "describe sc" "$out"
fi
sed 's/fsType: btrfs/fsType: xfs/; s/reclaimPolicy: Retain/reclaimPolicy: Delete/' "$D/sc-fast.yaml" >"$D/sc-fast2.yaml"
out=$(K33 apply -f "$D/sc-fast2.yaml" 2>&1)
if grep -q 'The StorageClass "fast" is invalid' <<<"$out" &&
        grep -q 'parameters: Forbidden: updates to parameters are forbidden.' <<<"$out" &&
        grep -q 'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.' <<<"$out"; then
        ok "StorageClass parameters and reclaimPolicy are fixed"
else
        not_ok "StorageClass parameters and reclaimPolicy are fixed" "$out"
fi
check_output "volumeBindingMode is immutable" \
        'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable' \
        K33 patch sc fast -p '{"volumeBindingMode":"WaitForFirstConsumer"}'
check_output "allowVolumeExpansion is mutable" "storageclass.storage.k8s.io/fixed patched" \
        K33 patch sc fixed -p '{"allowVolumeExpansion":false,"mountOptions":["noatime"]}'

# --- claims and the DefaultStorageClass admission
check_output "create a claim" "persistentvolumeclaim/data created" K33 create -f "$D/pvc-data.yaml"
check_equal "a claim without a class gets the default class" "local-loop Filesystem Pending" \
        "$(K33 get pvc data -o jsonpath='{.spec.storageClassName} {.spec.volumeMode} {.status.phase}')"
check_output "apply a claim naming \"\"" "persistentvolumeclaim/none created" K33 apply -f "$D/pvc-none.yaml"
check_equal "storageClassName \"\" keeps no class" "" "$(K33 get pvc none -o jsonpath='{.spec.storageClassName}')"
check_output "apply a claim in another class" "persistentvolumeclaim/fixed created" K33 apply -f "$D/pvc-fixed.yaml"
out=$(K33 get pvc 2>&1)
if grep -qE '^NAME +STATUS +VOLUME +CAPACITY +ACCESS MODES +STORAGECLASS +VOLUMEATTRIBUTESCLASS +AGE$' <<<"$out" &&
        grep -qE '^data +Pending +local-loop +<unset> +[0-9]+s$' <<<"$out" &&
        grep -qE '^fixed +Pending +fixed +<unset> +[0-9]+s$' <<<"$out"; then
        ok "get pvc prints upstream's columns"
else
        not_ok "get pvc prints upstream's columns" "$out"
fi
check_output "get pvc -o wide adds VOLUMEMODE" "VOLUMEMODE" K33 get pvc -o wide
check_output "get pvc -A has the namespace column" "default     data" K33 get pvc -A
out=$(K33 describe pvc data 2>&1)
if grep -qE '^StorageClass: +local-loop' <<<"$out" && grep -qE '^Status: +Pending' <<<"$out" &&
        grep -qE '^Used By: +<none>' <<<"$out"; then
        ok "describe pvc"
else
        not_ok "describe pvc" "$out"
fi
check_output "a claim needs a storage request" 'spec.resources[storage]: Required value' \
        K33 create -f - <<<'{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"bad"},"spec":{"accessModes":["ReadWriteOnce"]}}'

# --- volumes
check_output "create a csi volume" "persistentvolume/pv-data created" K33 create -f "$D/pv.yaml"
out=$(K33 get pv 2>&1)
if grep -qE '^NAME +CAPACITY +ACCESS MODES +RECLAIM POLICY +STATUS +CLAIM +STORAGECLASS +VOLUMEATTRIBUTESCLASS +REASON +AGE$' <<<"$out" &&
        grep -qE '^pv-data +2Gi +RWO +Delete +Pending +default/data +local-loop +<unset> +[0-9]+s$' <<<"$out"; then
        ok "get pv prints upstream's columns"
else
        not_ok "get pv prints upstream's columns" "$out"
fi
out=$(K33 describe pv pv-data 2>&1)
if grep -qE 'Driver: +local-loop.flexlet.io' <<<"$out" && grep -qE 'VolumeHandle: +pvc-data' <<<"$out" &&
        grep -qE '^Claim: +default/data' <<<"$out"; then
        ok "describe pv shows the CSI source"
else
        not_ok "describe pv shows the CSI source" "$out"
fi
sed 's/name: pv-data/name: pv-bad/; s/driver: local-loop.flexlet.io/driver: flexlet.io\/local-loop/' "$D/pv.yaml" >"$D/pv-bad.yaml"
check_output "a CSI driver name is a DNS subdomain" 'spec.csi.driver: Invalid value: "flexlet.io/local-loop"' \
        K33 create -f "$D/pv-bad.yaml"
check_output "only local, hostPath and csi sources are served" 'unknown field "spec.nfs"' \
        K33 create -f - <<<'{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"nfs"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteMany"],"nfs":{"server":"x","path":"/"}}}'
check_output "a volume's source is immutable" 'spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation' \
        K33 patch pv pv-data -p '{"spec":{"csi":{"volumeHandle":"other"}}}'
check_output "volume status through /status" "persistentvolume/pv-data patched" \
        K33 patch pv pv-data --subresource status --type merge -p '{"status":{"phase":"Bound"}}'
check_equal "the phase moved with its transition time" "Bound true" \
        "$(K33 get pv pv-data -o json | jq -r '"\(.status.phase) \(.status.lastPhaseTransitionTime != null)"')"

# --- S22: expansion admission and validation
check_output "an unbound claim's request is immutable (upstream checks it before admission)" \
        'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' \
        K33 patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"4Gi"}}}}'
check_output "bind the claim through /status" "persistentvolumeclaim/data patched" \
        K33 patch pvc data --subresource status --type merge \
        -p '{"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"2Gi"}}}'
check_output "volumeName is set once" "persistentvolumeclaim/data patched" \
        K33 patch pvc data -p '{"spec":{"volumeName":"pv-data"}}'
check_output "S22: lowered to status.capacity is 422" \
        'The PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity' \
        K33 patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'
check_output "S22: lowered but above status.capacity is accepted (KEP-1790)" "persistentvolumeclaim/data patched" \
        K33 patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"2500Mi"}}}}'
check_output "a bound claim in an expandable class grows" "persistentvolumeclaim/data patched" \
        K33 patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"4Gi"}}}}'
printf '#!/bin/sh\nsed -i "s/storage: 4Gi/storage: 5Gi/" "$1"\n' >"$D/editor.sh"
chmod +x "$D/editor.sh"
export EDITOR="$D/editor.sh"
check_output "edit grows it again" "persistentvolumeclaim/data edited" K33 edit pvc data
unset EDITOR
check_equal "the request is 5Gi" "5Gi" "$(K33 get pvc data -o jsonpath='{.spec.resources.requests.storage}')"
K32 patch pvc fixed --subresource status --type merge \
        -p '{"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}}' >/dev/null 2>&1
check_output "S22: a class without allowVolumeExpansion is 403 (kubectl 1.32)" \
        'Error from server (Forbidden): persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize' \
        K32 patch pvc fixed -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'
check_output "S22: a class without allowVolumeExpansion is 403 (kubectl 1.33)" \
        'Error from server (Forbidden): persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize' \
        K33 patch pvc fixed -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}'
check_output "a bound claim's access modes stay" 'spec: Forbidden: spec is immutable after creation' \
        K33 patch pvc data -p '{"spec":{"accessModes":["ReadWriteMany"]}}'
out=$(K33 get pvc data 2>&1)
if grep -qE '^data +Bound +pv-data +2Gi +RWO +local-loop +<unset> +[0-9]+[smhd][0-9smhd]*$' <<<"$out"; then
        ok "a bound claim shows its volume, capacity and access modes"
else
        not_ok "a bound claim shows its volume, capacity and access modes" "$out"
fi
check_output "wait on the capacity (how scripts wait for an expansion)" "persistentvolumeclaim/data condition met" \
        K33 wait --timeout=10s --for=jsonpath='{.status.capacity.storage}'=2Gi pvc/data
check_output "the resize status and conditions are accepted through /status" "persistentvolumeclaim/data patched" \
        K33 patch pvc data --subresource status --type merge \
        -p '{"status":{"allocatedResources":{"storage":"5Gi"},"allocatedResourceStatuses":{"storage":"ControllerResizeInProgress"},"conditions":[{"type":"Resizing","status":"True"}]}}'
check_output "an unknown resize status is refused" 'status.allocatedResourceStatus: Unsupported value: "storage"' \
        K33 patch pvc data --subresource status --type merge -p '{"status":{"allocatedResourceStatuses":{"storage":"Shrinking"}}}'

# --- watch
K33 get pvc -w --output-watch-events >"$D/watch.out" 2>&1 &
watch_pid=$!
sleep 1.5
K33 label pvc data watched=yes >/dev/null 2>&1
sleep 1.5
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
if grep -qE '^ADDED +data' "$D/watch.out" && grep -qE '^MODIFIED +data +Bound' "$D/watch.out"; then
        ok "get pvc -w sees the change"
else
        not_ok "get pvc -w sees the change" "$(cat "$D/watch.out")"
fi

# --- server-side apply and deletion
check_output "apply --server-side a claim" "persistentvolumeclaim/ssa serverside-applied" \
        K33 apply --server-side -f - <<<'{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"ssa","namespace":"default"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}'
check_output "delete a claim" 'persistentvolumeclaim "ssa" deleted' K33 delete pvc ssa
# K8S: pv-data is Bound, so kubernetes.io/pv-protection keeps it (Terminating) until it is not:
# kubectl must not wait for it (test-storage-protection.sh follows a protected deletion through)
check_output "delete a volume" 'persistentvolume "pv-data" deleted' K33 delete pv pv-data --wait=false
check_output "delete a class" 'storageclass.storage.k8s.io "fast" deleted' K33 delete sc fast
check_output "a deleted class is gone" 'Error from server (NotFound)' K33 get sc fast

server_check_log
tap_done
