# etcd-cluster.sh: a three-member etcd (Debian's etcd-server, plain HTTP on loopback ports) and
# `flexlet apiserver --store etcd` processes on it, for the tests of several API servers. Source
# after tap.sh and server.sh, with SERVER_DIR set to the test's throwaway folder; the test's exit
# trap calls etcd_cluster_cleanup, which kills every etcd and apiserver this started.
#
#   etcd_cluster_start TOKEN      three members m1..m3 under $SERVER_DIR/etcd-*, healthy or 1;
#                                 sets ETCD_ENDPOINTS (comma-separated client URLs), ETCD_CLIENTS
#                                 and ETCD_PIDS (by member index)
#   ec ARGS...                    etcdctl (v3) on every member
#   etcd_leader                   the index (0-2) of the member that leads now
#   apiserver_start NAME FLAGS... an apiserver with data in $SERVER_DIR/NAME on the cluster,
#                                 listening on PORT[NAME] (kept across restarts), serving
#                                 URL[NAME], pid in PID[NAME]; waits for /readyz or returns 1
#                                 with its log; APISERVER_HOST (default 127.0.0.1) is the
#                                 address it listens on

ETCD_PIDS=()
ETCD_CLIENTS=()
ETCD_ENDPOINTS=
declare -A PID=() PORT=() URL=()

etcd_cluster_start() {
        local token=$1 i names=(m1 m2 m3) peers=() cluster=
        for i in 0 1 2; do
                ETCD_CLIENTS[i]=http://127.0.0.1:$(free_port)
                peers[i]=http://127.0.0.1:$(free_port)
                cluster+="${cluster:+,}${names[i]}=${peers[i]}"
        done
        ETCD_ENDPOINTS=$(
                IFS=,
                echo "${ETCD_CLIENTS[*]}"
        )
        for i in 0 1 2; do
                etcd --name "${names[i]}" --data-dir "$SERVER_DIR/etcd-${names[i]}" \
                        --listen-client-urls "${ETCD_CLIENTS[i]}" --advertise-client-urls "${ETCD_CLIENTS[i]}" \
                        --listen-peer-urls "${peers[i]}" --initial-advertise-peer-urls "${peers[i]}" \
                        --initial-cluster "$cluster" --initial-cluster-state new \
                        --initial-cluster-token "$token" --max-request-bytes 8388608 \
                        --logger zap --log-level error >>"$SERVER_DIR/etcd-${names[i]}.log" 2>&1 &
                ETCD_PIDS[i]=$!
        done
        for _ in $(seq 1 100); do
                ec endpoint health >/dev/null 2>&1 && return 0
                sleep 0.2
        done
        return 1
}

ec() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_ENDPOINTS" --command-timeout=5s "$@"; }

etcd_leader() {
        local i id leader
        for i in 0 1 2; do
                [ -n "${ETCD_PIDS[i]}" ] || continue
                read -r id leader < <(ETCDCTL_API=3 etcdctl --endpoints "${ETCD_CLIENTS[i]}" \
                        --command-timeout=5s endpoint status -w json 2>/dev/null |
                        jq -r '.[0].Status | "\(.header.member_id) \(.leader)"')
                if [ -n "$id" ] && [ "$id" = "$leader" ]; then
                        echo "$i"
                        return 0
                fi
        done
        return 1
}

apiserver_start() {
        local n=$1
        shift
        PORT[$n]=${PORT[$n]:-$(free_port)}
        URL[$n]=https://${APISERVER_HOST:-127.0.0.1}:${PORT[$n]}
        "$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/$n" --listen "${APISERVER_HOST:-127.0.0.1}:${PORT[$n]}" \
                --store etcd --etcd-endpoints "$ETCD_ENDPOINTS" "$@" >>"$SERVER_DIR/$n.log" 2>&1 &
        PID[$n]=$!
        for _ in $(seq 1 150); do
                curl -skf "${URL[$n]}/readyz" >/dev/null 2>&1 && return 0
                kill -0 "${PID[$n]}" 2>/dev/null || break
                sleep 0.1
        done
        sed 's/^/# /' "$SERVER_DIR/$n.log"
        return 1
}

etcd_cluster_cleanup() {
        local p
        for p in "${PID[@]}" "${ETCD_PIDS[@]}"; do
                [ -n "$p" ] && kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null
        done
}
