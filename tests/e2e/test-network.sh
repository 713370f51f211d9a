#!/usr/bin/env bash
# test-network.sh: a network per pod, as root, through kubectl: two pods listen on one port,
# pods reach each other, the node and the API server (at the bridge's address, as
# KUBERNETES_SERVICE_HOST says) by IP, the node reaches them, status.podIP is each pod's own, a
# hostPort answers on the node's bridge address, a hostNetwork pod sees the host's interfaces;
# the attachments survive a SIGKILL of `flexlet serve` and are deleted by the next one; a delete
# leaves no netns mount, veth, IP allocation or portmap rule; net.ipv4.ip_forward is untouched;
# node.sh's cleanup removes what a killed server left; a failed ADD leaves nothing. All traffic stays on this machine: pod
# IPs, the instance's own bridge address and loopback only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
for p in bridge host-local loopback portmap; do
        if [ ! -x "/usr/lib/cni/$p" ]; then
                echo "1..0 # SKIP /usr/lib/cni/$p missing (apt-get install containernetworking-plugins)"
                exit 0
        fi
done

forward_before=$(cat /proc/sys/net/ipv4/ip_forward)
node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s
prefix=${NODE_POD_CIDR%.0/24}.
gw=$NODE_POD_GATEWAY
hostport=$(free_port)

# web NAME [HOSTPORT]: busybox httpd on 8080 answering NAME; prints its env and interfaces first
web() {
        local ports='[{"containerPort":8080}]'
        [ -n "${2:-}" ] && ports="[{\"containerPort\":8080,\"hostPort\":$2}]"
        cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","ports":$ports,
   "env":[{"name":"MY_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}}],
   "command":["sh","-c","echo ip=\$MY_IP; echo svc=\$KUBERNETES_SERVICE_HOST:\$KUBERNETES_SERVICE_PORT; cat /proc/net/dev; mkdir /www; echo $1 > /www/index.html; exec httpd -f -p 8080 -h /www"]}]}}
JSON
}
web web-a "$hostport" | k create -f - >/dev/null
web web-b | k create -f - >/dev/null
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"hostnet"},
 "spec":{"hostNetwork":true,"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","cat /proc/net/dev; sleep 3600"]}]}}
JSON
for p in web-a web-b hostnet; do
        check_output "$p is Ready" "condition met" k wait --for=condition=Ready "pod/$p" --timeout=60s
done

ipa=$(k get pod web-a -o jsonpath='{.status.podIP}')
ipb=$(k get pod web-b -o jsonpath='{.status.podIP}')
hostip=$(k get pod web-a -o jsonpath='{.status.hostIP}')
if [[ "$ipa" == "$prefix"* && "$ipb" == "$prefix"* && "$ipa" != "$ipb" ]]; then
        ok "status.podIP: distinct addresses of the pod CIDR ($ipa, $ipb in $NODE_POD_CIDR)"
else
        not_ok "status.podIP: distinct addresses of the pod CIDR" "web-a: $ipa" "web-b: $ipb" "cidr: $NODE_POD_CIDR"
fi
check_equal "status.podIPs holds the podIP" "$ipa" "$(k get pod web-a -o jsonpath='{.status.podIPs[0].ip}')"
check_equal "a hostNetwork pod's podIP is the node's" "$hostip" "$(k get pod hostnet -o jsonpath='{.status.podIP}')"
check_output "fieldRef status.podIP is the pod's IP" "ip=$ipa" k logs web-a
check_output "KUBERNETES_SERVICE_HOST/PORT: the bridge's address and the API port" "svc=$gw:$SERVER_PORT" k logs web-a

# both listen on 8080 in their own namespaces; the node reaches each by its IP
check_equal "the node reaches web-a at its IP, port 8080" "web-a" "$(curl -s --max-time 5 "http://$ipa:8080/")"
check_equal "the node reaches web-b at its IP, port 8080" "web-b" "$(curl -s --max-time 5 "http://$ipb:8080/")"
check_equal "a hostPort answers on the node's bridge address" "web-a" "$(curl -s --max-time 5 "http://$gw:$hostport/")"

# a pod reaches the others, and the API server where it is told to (busybox nc: the image's
# static wget crashes resolving even an IP literal)
cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"client"},
 "spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c",
   "for ip in $ipa $ipb; do printf 'GET / HTTP/1.0\\\\r\\\\n\\\\r\\\\n' | nc -w 5 \$ip 8080; done; echo x | nc -w 5 \$KUBERNETES_SERVICE_HOST \$KUBERNETES_SERVICE_PORT >/dev/null && echo api=reachable"]}]}}
JSON
k wait --for=jsonpath='{.status.phase}'=Succeeded pod/client --timeout=60s >/dev/null 2>&1
client_log=$(k logs client 2>&1)
check_output "a pod reaches web-a by pod IP" "web-a" echo "$client_log"
check_output "a pod reaches web-b by pod IP" "web-b" echo "$client_log"
check_output "a pod reaches the API server at KUBERNETES_SERVICE_HOST:PORT" "api=reachable" echo "$client_log"

# interfaces: the pod's own namespace, or the host's
a_dev=$(k logs web-a 2>/dev/null)
if [[ "$a_dev" == *"eth0:"* && "$a_dev" != *"$NODE_POD_BRIDGE:"* ]]; then
        ok "a pod sees its own eth0, not the host's interfaces"
else
        not_ok "a pod sees its own eth0, not the host's interfaces" "$a_dev"
fi
check_output "a hostNetwork pod sees the host's interfaces (the bridge)" "$NODE_POD_BRIDGE:" k logs hostnet

# the attachments survive a SIGKILL of the server, and the next one deletes them
ids=$(cat "$SERVER_DIR"/data/pods/*/network/network.json 2>/dev/null | jq -r .containerId)
uid_a=$(k get pod web-a -o jsonpath='{.metadata.uid}')
rec_a=$(md5sum <"$SERVER_DIR/data/pods/$uid_a/network/network.json")
# (the client pod has ended: its attachment went with its sandbox, before it was Succeeded)
check_equal "two attachments recorded (none for the ended pod or the hostNetwork pod)" "2" "$(echo "$ids" | grep -c .)"
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
if node_start >/dev/null; then ok "the server starts again after SIGKILL"; else not_ok "the server starts again after SIGKILL"; fi
sleep 1
check_equal "web-a keeps its IP across the restart" "$ipa" "$(k get pod web-a -o jsonpath='{.status.podIP}')"
check_equal "web-a still answers at its IP" "web-a" "$(curl -s --max-time 5 "http://$ipa:8080/")"
check_equal "the restarted agent re-adopts web-a's attachment as it is (no new ADD)" "$rec_a" \
        "$(md5sum <"$SERVER_DIR/data/pods/$uid_a/network/network.json")"

k delete pod web-a web-b hostnet client --wait=true --timeout=60s >/dev/null 2>&1
until_equal "every pod is gone" "" k get pods -o name
check_equal "no netns mount is left" "" "$(awk -v d="$SERVER_DIR/" 'index($5, d) == 1 && $5 ~ /netns$/ {print $5}' /proc/self/mountinfo)"
check_equal "no veth is left on the bridge" "" "$(ls "/sys/class/net/$NODE_POD_BRIDGE/brif" 2>&1)"
check_equal "no IP is left allocated" "last_reserved_ip.0 lock" "$(ls "$SERVER_DIR/data/cni/networks/flexlet" | sort | xargs)"
left=""
for id in $ids; do left+=$(iptables -t nat -S 2>/dev/null | grep -F "$id"); done
check_equal "no portmap rule is left" "" "$left"
check_equal "net.ipv4.ip_forward is untouched" "$forward_before" "$(cat /proc/sys/net/ipv4/ip_forward)"

# node.sh's cleanup after a SIGKILL: the attachment's DEL, the netns, the bridge
web left "$(free_port)" | k create -f - >/dev/null
check_output "a pod with a hostPort is Ready" "condition met" k wait --for=condition=Ready pod/left --timeout=60s
id=$(jq -r .containerId "$SERVER_DIR"/data/pods/*/network/network.json)
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
dir=$SERVER_DIR
node_cleanup
check_equal "after the cleanup: no portmap rule of the killed server's pod" "" "$(iptables -t nat -S 2>/dev/null | grep -F "$id")"
check_equal "after the cleanup: no netns mount" "" "$(awk -v d="$dir/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo)"
check_fails "after the cleanup: no bridge" ip link show "$NODE_POD_BRIDGE"
check_equal "after the cleanup: net.ipv4.ip_forward is untouched" "$forward_before" "$(cat /proc/sys/net/ipv4/ip_forward)"
SERVER_DIR=

# a failed ADD is deleted at once: a /30 has one pod address, the second pod's ADD fails in
# host-local; nothing of its attachment is left, and the event says why in containerd's words
# (the local checks run right after the event is seen: the next try is 10 s later)
NODE_POD_CIDR=${prefix}0/30
node_test_start
for p in one two; do
        cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$p"},
 "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}]}}
JSON
        [ "$p" = one ] && k wait --for=condition=Ready pod/one --timeout=60s >/dev/null 2>&1
done
uid_two=$(k get pod two -o jsonpath='{.metadata.uid}')
until_equal "the second pod's sandbox fails: no address left" "FailedCreatePodSandBox" \
        k get events --field-selector involvedObject.name=two,reason=FailedCreatePodSandBox -o jsonpath='{.items[0].reason}'
check_equal "nothing of the failed attachment is left (record, netns)" "" "$(ls "$SERVER_DIR/data/pods/$uid_two/network" 2>/dev/null)"
check_equal "one veth on the bridge: the first pod's" "1" "$(ls "/sys/class/net/$NODE_POD_BRIDGE/brif" | wc -l)"
check_equal "one IP allocated: the first pod's" "${prefix}2" "$(ls "$SERVER_DIR/data/cni/networks/flexlet" | grep -v -e lock -e last_reserved)"
msg=$(k get events --field-selector involvedObject.name=two -o jsonpath='{.items[*].message}')
check_output "the event has containerd's words" 'failed to setup network for sandbox' echo "$msg"
check_output "the event has the plugin's words" 'plugin type="bridge" failed (add): failed to allocate for range 0: no IP addresses available' echo "$msg"
check_equal "the pod without a network is not ready to start containers" "False" \
        "$(k get pod two -o jsonpath='{.status.conditions[?(@.type=="PodReadyToStartContainers")].status}')"

tap_done
