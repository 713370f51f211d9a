#!/usr/bin/env bash
# test-port-forward.sh: kubectl port-forward to a real pod's busybox httpd, as root
# (docs/streaming.md): kubectl 1.33 and 1.32 (SPDY/3.1 tunnelled in a WebSocket, which the API
# server unwraps) and 1.29 (a plain SPDY/3.1 upgrade) each get the page; five connections at
# once; 3 MiB with the pod's own checksum; a port nothing listens on gives kubectl upstream's
# error while a fresh forward still works; a user bound to view may not port-forward.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

PF_PIDS=()
pf_cleanup() {
        local pid
        for pid in "${PF_PIDS[@]}"; do
                kill "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        node_cleanup
}
SERVER_CLEANUP=pf_cleanup

node_test_start
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
                 "command":["sh","-c","mkdir -p /www && echo flexlet-page > /www/index.html && head -c 3145728 /dev/urandom > /www/big && exec httpd -f -p 8080 -h /www"],
                 "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}}]}}
JSON
if k wait --for=jsonpath='{.status.phase}'=Running pod/web --timeout=60s >/dev/null 2>&1; then
        ok "web is Running"
else
        not_ok "web is Running" "$(k get pod web -o yaml)"
fi

# pf_start NAME KUBECTL-CMD... : starts `port-forward` in the background, its output in
# $SERVER_DIR/NAME.out, and sets PF_PORT to the first local port it forwards from.
pf_start() {
        local name=$1 out
        shift
        out=$SERVER_DIR/$name.out
        "$@" >"$out" 2>&1 &
        PF_PIDS+=($!)
        PF_PID=$!
        PF_PORT=
        for _ in $(seq 1 100); do
                PF_PORT=$(sed -n 's/^Forwarding from 127.0.0.1:\([0-9]*\) -> .*/\1/p' "$out" | head -1)
                [ -n "$PF_PORT" ] && return 0
                kill -0 "$PF_PID" 2>/dev/null || break
                sleep 0.1
        done
        return 1
}

# the page through each kubectl: 1.33 and 1.32 tunnel SPDY in a WebSocket, 1.29 speaks SPDY
for v in 1.33 1.32 1.29; do
        if [ "$v" = 1.32 ]; then cmd=(k); else cmd=(kv "$v"); fi
        if pf_start "pf-$v" "${cmd[@]}" port-forward pod/web :8080; then
                page=""
                # httpd may still be starting: a few tries
                for _ in $(seq 1 20); do
                        page=$(curl -sf --max-time 5 "http://127.0.0.1:$PF_PORT/index.html") && break
                        sleep 0.2
                done
                check_equal "kubectl $v port-forward returns the pod's page" "flexlet-page" "$page"
        else
                not_ok "kubectl $v port-forward starts" "$(cat "$SERVER_DIR/pf-$v.out")"
        fi
        [ "$v" = 1.33 ] && port133=$PF_PORT pid133=$PF_PID
done

# five connections at once over the one forward (kubectl 1.33)
par=()
for i in 1 2 3 4 5; do
        curl -sf --max-time 20 "http://127.0.0.1:$port133/index.html" >"$SERVER_DIR/par-$i" &
        par+=($!)
done
for pid in "${par[@]}"; do
        wait "$pid"
done
got=$(cat "$SERVER_DIR"/par-* | sort | uniq -c | sed 's/^ *//')
check_equal "five parallel connections each get the page" "5 flexlet-page" "$got"

# a large body, checked against the pod's own checksum
want=$(k exec web -- sha256sum /www/big 2>&1 | cut -d' ' -f1)
got=$(curl -sf --max-time 60 "http://127.0.0.1:$port133/big" | sha256sum | cut -d' ' -f1)
check_equal "3 MiB through port-forward has the pod's checksum" "$want" "$got"

# a port nothing listens on: upstream's error on the error stream, which kubectl prints
if pf_start pf-dead kv 1.33 port-forward pod/web :9999; then
        curl -s --max-time 10 "http://127.0.0.1:$PF_PORT/" >/dev/null 2>&1
        for _ in $(seq 1 50); do
                grep -q "connection refused" "$SERVER_DIR/pf-dead.out" && break
                sleep 0.1
        done
        check_output "a port nothing listens on gives upstream's error" \
                'error forwarding port 9999 to pod ' cat "$SERVER_DIR/pf-dead.out"
        check_output "... with the connection's failure over IPv4 and IPv6" \
                'IPv4: dial tcp4 127.0.0.1:9999: connect: connection refused IPv6: dial tcp6 [::1]:9999: connect: connection refused' \
                cat "$SERVER_DIR/pf-dead.out"
        # K8S client-go portforward.go handleConnection: an error ends kubectl's forward
        check_output "kubectl then ends that forward, as upstream's does" \
                "lost connection to pod" cat "$SERVER_DIR/pf-dead.out"
else
        not_ok "kubectl port-forward to :9999 starts" "$(cat "$SERVER_DIR/pf-dead.out")"
fi
# the first forward is untouched by the other's error
check_equal "the running forward still works after the error" "flexlet-page" \
        "$(curl -sf --max-time 10 "http://127.0.0.1:$port133/index.html")"
kill -0 "$pid133" 2>/dev/null && ok "the running kubectl port-forward is still up" ||
        not_ok "the running kubectl port-forward is still up" "$(cat "$SERVER_DIR/pf-1.33.out")"

# authorization: port-forward is `create` on pods/portforward, which view does not grant
k create serviceaccount viewer >/dev/null
k create rolebinding viewer --clusterrole=view --serviceaccount=default:viewer >/dev/null
tok=$(k create token viewer)
cp "$KUBECONFIG" "$SERVER_DIR/viewer.kubeconfig"
KUBECONFIG=$SERVER_DIR/viewer.kubeconfig k config set-credentials viewer --token="$tok" >/dev/null
KUBECONFIG=$SERVER_DIR/viewer.kubeconfig k config set-context --current --user=viewer >/dev/null
check_output "the viewer may not port-forward (403 on pods/portforward)" \
        'cannot create resource "pods/portforward" in API group "" in the namespace "default"' \
        env KUBECONFIG="$SERVER_DIR/viewer.kubeconfig" timeout 20 "$KUBECTL" \
        --cache-dir "$SERVER_DIR/cache" port-forward pod/web :8080

server_check_log
tap_done
