#!/usr/bin/env bash
# test-storage-protection.sh: StorageObjectInUseProtection through the real kubectl against
# `flexlet apiserver`: new claims and volumes carry kubernetes.io/pvc-protection and
# kubernetes.io/pv-protection; a deleted claim stays Terminating while a scheduled pod uses it
# (pods are bound to a node no agent runs, so they stay Pending; a finished pod still counts, an
# unscheduled one does not, as upstream's pvc-protection-controller decides), and goes with the
# pod; a deleted volume stays Terminating while it is Bound. The phases the PV controller would
# write are written through /status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"

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
gone() { ! k get "$1" "$2" >/dev/null 2>&1; }
claim() { # claim NAME
        k create -f - >/dev/null <<EOF
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"$1"},
 "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}
EOF
}
pod() { # pod NAME CLAIM [NODE]: a pod using CLAIM, bound to NODE (none: unscheduled)
        local node=
        [ -n "${3:-}" ] && node="\"nodeName\":\"$3\","
        k create -f - >/dev/null <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{$node"containers":[{"name":"c","image":"busybox"}],
 "volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"$2"}}]}}
EOF
}
# terminating KIND NAME: the STATUS column of `kubectl get` says Terminating.
terminating() { k get "$1" "$2" --no-headers 2>/dev/null | grep -qE "^$2 (.* )?Terminating "; }
# stays TEST KIND NAME: passes when the object is Terminating, and still is 3 s later.
stays() {
        if wait_for 5 terminating "$2" "$3" && sleep 3 && terminating "$2" "$3"; then
                ok "$1"
        else
                not_ok "$1" "$(k get "$2" "$3" -o yaml 2>&1)"
        fi
}
# goes TEST KIND NAME: passes once the object is gone (within 10 s).
goes() {
        if wait_for 10 gone "$2" "$3"; then ok "$1"; else not_ok "$1" "$(k get "$2" "$3" -o yaml 2>&1)"; fi
}

# --- the admission plugin
claim data
check_equal "a new claim carries kubernetes.io/pvc-protection" '["kubernetes.io/pvc-protection"]' \
        "$(k get pvc data -o jsonpath='{.metadata.finalizers}')"
k create -f - >/dev/null <<'EOF'
{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-a","finalizers":["example.com/keep"]},
 "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/pv-a"}}}
EOF
check_equal "a new volume gets kubernetes.io/pv-protection after its own finalizers" \
        '["example.com/keep","kubernetes.io/pv-protection"]' "$(k get pv pv-a -o jsonpath='{.metadata.finalizers}')"
k create -f - >/dev/null <<'EOF'
{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-b","finalizers":["kubernetes.io/pv-protection"]},
 "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/pv-b"}}}
EOF
check_equal "the finalizer is added only once" '["kubernetes.io/pv-protection"]' \
        "$(k get pv pv-b -o jsonpath='{.metadata.finalizers}')"
out=$(k describe pvc data 2>&1)
if grep -qE '^Finalizers: +\[kubernetes.io/pvc-protection\]' <<<"$out"; then
        ok "describe pvc shows the finalizer"
else
        not_ok "describe pvc shows the finalizer" "$out"
fi
check_equal "server-side dry run shows it too" '["kubernetes.io/pvc-protection"]' \
        "$(k create --dry-run=server -o jsonpath='{.metadata.finalizers}' -f - <<<'{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"dry"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}')"
k patch pvc data --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null 2>&1
if wait_for 10 eval '[ "$(k get pvc data -o jsonpath="{.metadata.finalizers}")" = "[\"kubernetes.io/pvc-protection\"]" ]'; then
        ok "the controller gives the finalizer back to a claim without it"
else
        not_ok "the controller gives the finalizer back to a claim without it" "$(k get pvc data -o yaml 2>&1)"
fi

# --- a claim used by a scheduled pod
pod user data fake-node
check_output "delete the claim without waiting" 'persistentvolumeclaim "data" deleted' \
        k delete pvc data --wait=false
stays "get pvc: the claim stays Terminating while a scheduled pod uses it" pvc data
check_equal "it still carries the finalizer" '["kubernetes.io/pvc-protection"]' \
        "$(k get pvc data -o jsonpath='{.metadata.finalizers}')"
k delete pod user --grace-period=0 --force >/dev/null 2>&1
goes "the pod gone, the claim goes" pvc data

# --- which pods count
claim idle
check_output "a claim no pod uses goes at once (kubectl waits for it)" 'persistentvolumeclaim "idle" deleted' \
        k delete pvc idle --timeout=20s
check "the unused claim is gone" gone pvc idle

claim pending
pod waiting pending
k delete pvc pending --wait=false >/dev/null
goes "an unscheduled pod does not hold its claim (the kubelet would not start it)" pvc pending
k delete pod waiting --grace-period=0 --force >/dev/null 2>&1

claim other
pod neighbour other fake-node
claim mine
k delete pvc mine --wait=false >/dev/null
goes "a pod that uses another claim does not hold this one" pvc mine

claim job
pod finished job fake-node
check_output "the pod's phase goes to Succeeded through /status" "pod/finished patched" \
        k patch pod finished --subresource status --type merge -p '{"status":{"phase":"Succeeded"}}'
k delete pvc job --wait=false >/dev/null
stays "a Succeeded pod still holds its claim (its volumes may not be torn down yet)" pvc job
check_output "deleting the finished pod (no grace period for a terminal pod)" 'pod "finished" deleted' \
        k delete pod finished --timeout=20s
goes "the finished pod gone, its claim goes" pvc job

claim live
pod holder live fake-node
k delete pod holder --wait=false >/dev/null 2>&1
k delete pvc live --wait=false >/dev/null
stays "a pod in its grace period still holds its claim" pvc live
k delete pod holder --grace-period=0 --force >/dev/null 2>&1
goes "force-deleted, the claim goes" pvc live

# --- a bound volume
k create -f - >/dev/null <<'EOF'
{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-bound"},
 "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/pv-bound"},
 "claimRef":{"namespace":"default","name":"gone-claim"}}}
EOF
check_output "the volume's phase goes to Bound through /status" "persistentvolume/pv-bound patched" \
        k patch pv pv-bound --subresource status --type merge -p '{"status":{"phase":"Bound"}}'
check_output "delete the bound volume without waiting" 'persistentvolume "pv-bound" deleted' \
        k delete pv pv-bound --wait=false
stays "get pv: the volume stays Terminating while it is Bound" pv pv-bound
check_output "the PV controller would release it once its claim is gone" "persistentvolume/pv-bound patched" \
        k patch pv pv-bound --subresource status --type merge -p '{"status":{"phase":"Released"}}'
goes "Released, the volume goes" pv pv-bound
check_output "an Available volume goes at once (kubectl waits for it)" 'persistentvolume "pv-b" deleted' \
        k delete pv pv-b --timeout=20s
k delete pv pv-a --wait=false >/dev/null
sleep 3
check_equal "another finalizer still holds a volume after ours is gone" '["example.com/keep"]' \
        "$(k get pv pv-a -o jsonpath='{.metadata.finalizers}')"
k patch pv pv-a --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
check "removing it removes the volume" wait_for 10 gone pv pv-a

server_check_log
tap_done
