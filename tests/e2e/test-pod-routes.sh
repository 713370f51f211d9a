#!/usr/bin/env bash
# test-pod-routes.sh: the pod network across nodes (docs/networking.md, "Across nodes"), as root,
# on one machine: `flexlet apiserver` on the host and two `flexlet node`s, each in a network
# namespace of its own joined by a veth to a bridge on the host ("the underlay", 10.213.0.0/24;
# the API server listens at the host's 10.213.0.1), each node's InternalIP its underlay address
# (--node-ip). The node IPAM controller gives the Nodes distinct podCIDRs out of --cluster-cidr;
# a pod on node A reaches a pod on node B by pod IP, and back, through the routes each node keeps;
# deleting Node B takes its route off node A. Everything (namespaces, veths, bridges, processes,
# cgroups, the data dir) is removed at the end, even on failure.
#
# The namespaces, the underlay and the node processes are tests/lib/netns-nodes.sh's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
. "$here/../lib/netns-nodes.sh"
node_require_root

UL_HOST=10.213.0.1
CLUSTER_CIDR=10.214.0.0/16
IP_A=10.213.0.11 IP_B=10.213.0.12
NODE_A=routes-a-$$ NODE_B=routes-b-$$

routes_cleanup() {
        [ -n "${ROUTES_KEEP_LOGS:-}" ] && cp "$SERVER_DIR"/*.log "$ROUTES_KEEP_LOGS"/ 2>/dev/null
        nn_cleanup
        node_cleanup
}
SERVER_CLEANUP=routes_cleanup
trap routes_cleanup EXIT

# --- the underlay: a bridge on the host, a namespace per node with a veth into it
nn_underlay "$UL_HOST/24"
nn_add a "$IP_A" "$NODE_CGROUP_ROOT-a"
nn_add b "$IP_B" "$NODE_CGROUP_ROOT-b"
NS_A=${NN_NS[a]} NS_B=${NN_NS[b]}

# --- the API server on the host, at its underlay address
SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
SERVER_PORT=$(free_port)
"$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data" --listen "$UL_HOST:$SERVER_PORT" \
        --cluster-cidr "$CLUSTER_CIDR" --node-cidr-mask-size 24 >>"$SERVER_DIR/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
        curl -skf "https://$UL_HOST:$SERVER_PORT/readyz" >/dev/null 2>&1 && break
        sleep 0.1
done
export KUBECONFIG=$SERVER_DIR/data/kubeconfig
check_output "flexlet apiserver serves on the underlay, reached from node B's namespace" "ok" \
        ip netns exec "$NS_B" curl -sk "https://$UL_HOST:$SERVER_PORT/readyz"

# node_run a|b: flexlet node in its namespaces (its log: $SERVER_DIR/node-X.log)
node_run() {
        local n=$1 ip=$IP_A name=$NODE_A
        [ "$n" = b ] && ip=$IP_B name=$NODE_B
        nn_run "$n" --server "https://$UL_HOST:$SERVER_PORT" \
                --token-file "$SERVER_DIR/data/node-token" --data-dir "$SERVER_DIR/node-$n" \
                --node-name "$name" --node-ip "$ip" --cgroup-root "${NN_CG[$n]}" \
                --kubelet-listen "$ip:$(free_port)" --cluster-cidr "$CLUSTER_CIDR" \
                --allocatable cpu=2,memory=2Gi
}
node_run a
node_run b
for _ in $(seq 1 300); do
        k get node "$NODE_A" "$NODE_B" >/dev/null 2>&1 && break
        sleep 0.2
done
check_output "both nodes join and are Ready" "condition met" \
        k wait --for=condition=Ready "node/$NODE_A" "node/$NODE_B" --timeout=60s
cidr_a=$(k get node "$NODE_A" -o jsonpath='{.spec.podCIDR}')
cidr_b=$(k get node "$NODE_B" -o jsonpath='{.spec.podCIDR}')
check_equal "the controller gives them distinct /24s of the cluster CIDR" "2 distinct" \
        "$(printf '%s\n%s\n' "$cidr_a" "$cidr_b" | grep -E '^10\.214\.[0-9]+\.0/24$' | sort -u | wc -l) distinct"
check_equal "spec.podCIDRs holds the podCIDR" "$cidr_a" "$(k get node "$NODE_A" -o jsonpath='{.spec.podCIDRs[0]}')"
check_output "a Node's podCIDR cannot change once set" \
        'node updates may not change podCIDR except from "" to valid' \
        k patch node "$NODE_A" -p '{"spec":{"podCIDR":"10.214.200.0/24","podCIDRs":["10.214.200.0/24"]}}'
until_equal "node A routes node B's podCIDR via node B's underlay address" \
        "$cidr_b via $IP_B" sh -c "ip -n $NS_A -4 route show proto 0x66 | awk '{print \$1, \$2, \$3}'"
until_equal "node B routes node A's podCIDR via node A's underlay address" \
        "$cidr_a via $IP_A" sh -c "ip -n $NS_B -4 route show proto 0x66 | awk '{print \$1, \$2, \$3}'"
check_equal "the host's own routes are untouched" "" "$(ip -4 route show proto 0x66)"
check_equal "forwarding on node A: on for the bridge and the uplink only" "1 1 0" \
        "$(ip netns exec "$NS_A" sh -c "cat /proc/sys/net/ipv4/conf/\$(ls /sys/class/net | grep '^flx-')/forwarding /proc/sys/net/ipv4/conf/eth0/forwarding /proc/sys/net/ipv4/conf/lo/forwarding" | tr '\n' ' ' | sed 's/ $//')"

# --- a web pod on each node, and a client on each reaching the other's by pod IP
web() {
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"nodeName":"$2","terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","mkdir /www; echo $1 > /www/index.html; exec httpd -f -p 8080 -h /www"]}]}}
JSON
}
web web-a "$NODE_A" | k create -f - >/dev/null
web web-b "$NODE_B" | k create -f - >/dev/null
check_output "a web pod runs on each node" "condition met" \
        k wait --for=condition=Ready pod/web-a pod/web-b --timeout=60s
ip_wa=$(k get pod web-a -o jsonpath='{.status.podIP}')
ip_wb=$(k get pod web-b -o jsonpath='{.status.podIP}')
check_equal "each pod's IP is in its node's podCIDR" "${cidr_a%.0/24} ${cidr_b%.0/24}" "${ip_wa%.*} ${ip_wb%.*}"
# client NAME NODE IP: a pod on NODE that GETs http://IP:8080/ (busybox nc: the image's static
# wget crashes resolving even an IP literal)
client() {
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"nodeName":"$2","restartPolicy":"Never","terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c",
   "printf 'GET / HTTP/1.0\\\\r\\\\n\\\\r\\\\n' | nc -w 5 $3 8080 | tail -1"]}]}}
JSON
}
client from-a "$NODE_A" "$ip_wb" | k create -f - >/dev/null
client from-b "$NODE_B" "$ip_wa" | k create -f - >/dev/null
k wait --for=jsonpath='{.status.phase}'=Succeeded pod/from-a pod/from-b --timeout=60s >/dev/null 2>&1
check_equal "a pod on node A reaches the pod on node B by its IP" "web-b" "$(k logs from-a 2>&1)"
check_equal "and a pod on node B reaches the pod on node A" "web-a" "$(k logs from-b 2>&1)"

# --- node B goes: its route goes from node A
nn_kill b TERM
k delete node "$NODE_B" >/dev/null
until_equal "deleting Node B removes its route on node A" "" \
        sh -c "ip -n $NS_A -4 route show proto 0x66"

k delete pod web-a web-b from-a from-b --grace-period=1 --wait=false >/dev/null 2>&1
nn_kill a TERM
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$SERVER_DIR"/node-*.log; then
        not_ok "the nodes exit cleanly (no sanitizer report)" "$(grep -hE -A12 "ERROR|runtime error" "$SERVER_DIR"/node-*.log | head -40)"
else
        ok "the nodes exit cleanly (no sanitizer report)"
fi
server_check_log
tap_done
