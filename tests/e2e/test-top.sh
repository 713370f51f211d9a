#!/usr/bin/env bash
# test-top.sh: the resource metrics API with the real kubectl, as root (docs/metrics.md): the
# kubelet's /stats/summary through `kubectl get --raw` of the node proxy's numbers as the API
# server reads them, metrics.k8s.io in discovery, `kubectl top node`, `top pod`,
# `top pod --containers` and `top pod -A`; a pod that writes 64 MiB into its Memory emptyDir
# shows the memory in its working set and the volume's usedBytes; a user without the metrics
# rights gets upstream's 403.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"hog","labels":{"app":"hog"}},
 "spec":{"terminationGracePeriodSeconds":1,
  "volumes":[{"name":"shm","emptyDir":{"medium":"Memory","sizeLimit":"128Mi"}},{"name":"disk","emptyDir":{}}],
  "containers":[{"name":"c1","image":"busybox",
                 "command":["sh","-c","while [ ! -e /shm/go ]; do sleep 0.2; done; dd if=/dev/zero of=/shm/fill bs=1M count=64 2>/dev/null; echo filled; sleep 3600"],
                 "volumeMounts":[{"name":"shm","mountPath":"/shm"}],
                 "resources":{"limits":{"memory":"256Mi"}}},
                {"name":"c2","image":"busybox","command":["sh","-c","mkdir -p /disk/a/b; dd if=/dev/zero of=/disk/a/b/f bs=1M count=8 2>/dev/null; sleep 3600"],
                 "volumeMounts":[{"name":"disk","mountPath":"/disk"}]}]}}
JSON
if k wait --for=jsonpath='{.status.phase}'=Running pod/hog --timeout=60s >/dev/null 2>&1; then
        ok "hog is Running"
else
        not_ok "hog is Running" "$(k get pod hog -o yaml)"
fi

# --- discovery: the group in the legacy lists and the aggregated document
check_output "/apis lists metrics.k8s.io" '"metrics.k8s.io/v1beta1"' k get --raw /apis
check_output "/apis/metrics.k8s.io/v1beta1 lists pods" '"kind":"PodMetrics"' \
        k get --raw /apis/metrics.k8s.io/v1beta1

# --- the numbers, once the kubelet has two CPU samples (its first comes at start)
mem_of() { # the working set of pod hog in bytes, as PodMetrics has it (sum of containers)
        k get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/hog 2>/dev/null | jq '
                def bytes: if endswith("Gi") then (.[:-2] | tonumber) * 1073741824
                        elif endswith("Mi") then (.[:-2] | tonumber) * 1048576
                        elif endswith("Ki") then (.[:-2] | tonumber) * 1024
                        elif endswith("k") then (.[:-1] | tonumber) * 1000 else tonumber end;
                [.containers[].usage.memory | bytes] | add' 2>/dev/null
}
for _ in $(seq 1 100); do
        before=$(mem_of)
        [ -n "$before" ] && break
        sleep 0.2
done
if [ -n "$before" ]; then ok "PodMetrics of hog is served ($before bytes)"; else
        not_ok "PodMetrics of hog is served" "$(k get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/hog 2>&1)"; fi
pm=$(k get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/hog 2>&1)
check_output "PodMetrics carries window and timestamp" '"window":"10s"' echo "$pm"
check_output "PodMetrics lists container c2" '"name":"c2"' echo "$pm"
check_output "PodMetrics carries the pod's labels" '"app":"hog"' echo "$pm"

top_node=$(k top node 2>&1)
check_output "kubectl top node shows the node" test-node echo "$top_node"
check_output "kubectl top node has the CPU% column" "CPU(cores)" echo "$top_node"
check_output "kubectl top pod shows hog" "hog" k top pod
check_output "kubectl top pod --containers shows c2" "c2" k top pod hog --containers
check_output "kubectl top pod -A shows hog in default" "default" k top pod -A
check_output "kubectl top pod -l selects by label" "hog" k top pod -l app=hog
check_output "kubectl 1.33: top pod --containers shows c2" "c2" kv 1.33 top pod hog --containers
check_output "kubectl 1.33: top node shows the node" "test-node" kv 1.33 top node
check_output "a pod that does not exist is upstream's NotFound" 'pods "nosuch" not found' \
        k top pod nosuch

# --- the numbers move: 64 MiB into the Memory emptyDir is charged to the pod as shmem
k exec hog -c c1 -- touch /shm/go >/dev/null 2>&1
for _ in $(seq 1 100); do
        k logs hog -c c1 2>/dev/null | grep -q filled && break
        sleep 0.2
done
after=
for _ in $(seq 1 50); do
        after=$(mem_of)
        [ -n "$after" ] && [ "$after" -ge $((before + 48 * 1048576)) ] && break
        sleep 0.2
done
if [ -n "$after" ] && [ "$after" -ge $((before + 48 * 1048576)) ]; then
        ok "the pod's memory rose by most of the 64 MiB ($before -> $after)"
else
        not_ok "the pod's memory rose by most of the 64 MiB" "before=$before after=$after"
fi

# --- the kubelet's Summary, as the API server reads it
uid=$(k get pod hog -o jsonpath='{.metadata.uid}')
port=$(k get node test-node -o jsonpath='{.status.daemonEndpoints.kubeletEndpoint.Port}')
# the API server's own kubelet credential: the token every kubelet endpoint takes
summary=$(curl -sk -H "Authorization: Bearer $(cat "$SERVER_DIR/data/pki/kubelet.token")" \
        "https://127.0.0.1:$port/stats/summary" 2>&1)
check_equal "the kubelet refuses /stats/summary without its credential" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/stats/summary")"
used=$(echo "$summary" | jq --arg uid "$uid" \
        '.pods[] | select(.podRef.uid == $uid) | .volume[] | select(.name == "shm") | .usedBytes' 2>/dev/null)
if [ -n "$used" ] && [ "$used" -ge $((64 * 1048576)) ]; then
        ok "the Memory emptyDir's usedBytes is the 64 MiB (statfs: $used)"
else
        not_ok "the Memory emptyDir's usedBytes is the 64 MiB" "$summary"
fi
disk=$(echo "$summary" | jq --arg uid "$uid" \
        '.pods[] | select(.podRef.uid == $uid) | .volume[] | select(.name == "disk") | "\(.usedBytes) \(.inodesUsed)"' -r 2>/dev/null)
if [ -n "$disk" ] && [ "${disk% *}" -ge $((8 * 1048576)) ] && [ "${disk#* }" -ge 4 ]; then
        ok "the disk emptyDir's usedBytes and inodesUsed are what du counts ($disk)"
else
        not_ok "the disk emptyDir's usedBytes and inodesUsed are what du counts" "$disk"
fi
check_output "the Summary has the node's usageNanoCores" '"usageNanoCores"' echo "$summary"
check_output "the Summary has the node's fs" '"capacityBytes"' echo "$summary"

# --- authorization: the metrics are view's (system:aggregated-metrics-reader); a service
# account with no role gets upstream's 403
k create serviceaccount nobody >/dev/null
tok=$(k create token nobody)
cp "$KUBECONFIG" "$SERVER_DIR/nobody.kubeconfig"
# kubectl config only edits the file (never through tests/vm's relay, which runs no local verb)
KUBECONFIG=$SERVER_DIR/nobody.kubeconfig "$KUBECTL" config set-credentials nobody --token="$tok" >/dev/null
KUBECONFIG=$SERVER_DIR/nobody.kubeconfig "$KUBECTL" config set-context --current --user=nobody >/dev/null
check_output "a user without the right gets 403 on pods.metrics.k8s.io" \
        'User "system:serviceaccount:default:nobody" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "default"' \
        env KUBECONFIG="$SERVER_DIR/nobody.kubeconfig" "$KUBECTL" --cache-dir "$SERVER_DIR/cache-nobody" top pod
k create rolebinding nobody-view --clusterrole=view --serviceaccount=default:nobody >/dev/null
check_output "bound to view, it may read the pod metrics" "hog" \
        env KUBECONFIG="$SERVER_DIR/nobody.kubeconfig" "$KUBECTL" --cache-dir "$SERVER_DIR/cache-nobody" top pod

server_check_log
tap_done
