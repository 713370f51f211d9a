# server.sh: starts `flexlet apiserver` (API tests: no node agent runs their pods) or, with
# FLEXLET_COMMAND=serve, the whole single-node cluster, on a free loopback port with a throwaway
# data dir for a black-box test, points KUBECONFIG and kubectl's cache at it, and stops and removes
# everything on exit (even when the test fails). Source after tap.sh.

FLEXLET_BIN=${FLEXLET_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/flexlet}
KUBECTL=${KUBECTL:-kubectl}
KUBECTL_DIR=$(dirname "$(readlink -f "$(command -v kubectl)")")

# processes_mentioning DIR: the pids of the processes (this shell's excepted) whose command line
# mentions DIR: a server run in it, its pods' helpers. One awk over every /proc/PID/cmdline, DIR
# given through the environment so that awk does not match itself (a tr and a grep per process
# take half a minute on a loaded machine).
processes_mentioning() {
        D="$1" awk 'BEGIN { RS = "\0" }
                index($0, ENVIRON["D"]) { split(FILENAME, f, "/"); print f[3]; nextfile }' \
                /proc/[0-9]*/cmdline 2>/dev/null | grep -vx "$$" || true
}

# free_port: a loopback port nothing listens on, from FLEXLET_TEST_PORT_BASE (default 20000) up
# 10,000: suites that run side by side are given bases apart so they never pick the same one.
# Ports in the kernel's ephemeral range (ip_local_port_range) are never picked: a client's
# connection anywhere on the machine may take one between our check and the server's bind.
free_port() {
        local p lo hi base=${FLEXLET_TEST_PORT_BASE:-20000}
        read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
        for _ in $(seq 1 50); do
                p=$((base + RANDOM % 10000))
                [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ] && continue
                if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
                        echo "$p"
                        return 0
                fi
        done
        echo "free_port: no free port from $base up 10,000 outside the ephemeral range $lo-$hi" >&2
        return 1
}

server_stop() {
        if [ -n "${SERVER_PID:-}" ]; then
                kill "$SERVER_PID" 2>/dev/null
                wait "$SERVER_PID" 2>/dev/null
                SERVER_PID=
        fi
}

# server_check_log: stops the server and reports whether its log is free of sanitizer reports
# (memory errors, leaks, undefined behaviour) and crashes.
server_check_log() {
        server_stop
        if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault" "$SERVER_DIR/server.log"; then
                not_ok "server exits cleanly (no sanitizer report)" "$(grep -E -A12 "ERROR|runtime error" "$SERVER_DIR/server.log" | head -40)"
        else
                ok "server exits cleanly (no sanitizer report)"
        fi
}

server_cleanup() {
        local pid
        for pid in "${NODE_LEASE_PIDS[@]}"; do
                kill "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        server_stop
        [ -n "${SERVER_DIR:-}" ] && rm -rf "$SERVER_DIR"
}

# node_lease_keep NAME: plays the kubelet's node lease for a Node the test made: creates its
# Lease in kube-node-lease and renews it in the background (every 0.3 s) until the test ends, or
# while the file $SERVER_DIR/silent-NAME exists, so the node lifecycle controller keeps the node
# as Ready as its status says.
NODE_LEASE_PIDS=()
node_lease_keep() {
        local name=$1
        api POST /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases \
                -H 'Content-Type: application/json' -o /dev/null \
                -d "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"$name\"},\"spec\":{\"holderIdentity\":\"$name\",\"leaseDurationSeconds\":40,\"renewTime\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)\"}}"
        (
                while :; do
                        [ -e "$SERVER_DIR/silent-$name" ] ||
                                api PATCH "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/$name" \
                                        -H 'Content-Type: application/merge-patch+json' -o /dev/null \
                                        -d "{\"spec\":{\"renewTime\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)\"}}"
                        sleep 0.3
                done
        ) &
        NODE_LEASE_PIDS+=($!)
}

# server_start_or_exit [extra flags...]: server_start, or the test ends there with "server starts"
# failed (nothing else can run without it).
server_start_or_exit() {
        server_start "$@" && return 0
        not_ok "server starts"
        tap_done
        exit 1
}
# server_start [extra flags...]: starts (or restarts, keeping the data dir) the server.
server_start() {
        SERVER_DIR=${SERVER_DIR:-$(mktemp -d /tmp/flexlet-api.XXXXXX)}
        SERVER_PORT=${SERVER_PORT:-$(free_port)}
        "$FLEXLET_BIN" "${FLEXLET_COMMAND:-apiserver}" --data-dir "$SERVER_DIR/data" --listen "127.0.0.1:$SERVER_PORT" \
                --node-name test-node "$@" >>"$SERVER_DIR/server.log" 2>&1 &
        SERVER_PID=$!
        trap "${SERVER_CLEANUP:-server_cleanup}" EXIT
        for _ in $(seq 1 100); do
                if curl -skf "https://127.0.0.1:$SERVER_PORT/readyz" >/dev/null 2>&1; then
                        export KUBECONFIG="$SERVER_DIR/data/kubeconfig"
                        return 0
                fi
                if ! kill -0 "$SERVER_PID" 2>/dev/null; then
                        break
                fi
                sleep 0.1
        done
        echo "# server did not become ready; log:"
        sed 's/^/# /' "$SERVER_DIR/server.log"
        return 1
}

# wait_sa NAMESPACE: waits up to 10 s for the namespace's default ServiceAccount, which the
# serviceaccount controller makes after the server is ready (a pod created before it is refused,
# as upstream's ServiceAccount admission refuses it).
wait_sa() {
        for _ in $(seq 1 100); do
                api GET "/api/v1/namespaces/$1/serviceaccounts/default" -f -o /dev/null && return 0
                sleep 0.1
        done
        return 1
}

# k ARGS...: the default kubectl with a private discovery cache. In tests/vm/run.sh's guest
# (FLEXLET_TEST_KUBECTL_RELAY set) the call runs on the host instead, through
# tests/vm/kubectl-relay.sh: under emulation kubectl costs seconds a call.
k() {
        if [ -n "${FLEXLET_TEST_KUBECTL_RELAY:-}" ]; then
                k_relay "$@"
                return
        fi
        "$KUBECTL" --cache-dir "$SERVER_DIR/cache" "$@"
}

# k_relay ARGS...: kubectl ARGS on the host (tests/vm/kubectl-relay.sh says how), through
# files in the relay's queue on the guest's writable 9p share. Shell builtins only (every
# process start costs a few hundred ms under emulation): ID.args (NUL-separated), ID.kc (the
# server's kubeconfig), ID.in (stdin, for -f - only), then ID.req says they are complete; the
# host answers ID.out, ID.err and last ID.rc; ID.done tells it to remove them.
if [ -n "${FLEXLET_TEST_KUBECTL_RELAY:-}" ]; then
        # a pipe nobody writes to: `read -t` on it sleeps without a process
        exec {K_RELAY_NAP}<> <(:)
fi
K_RELAY_N=0
k_relay() {
        local q=$FLEXLET_TEST_KUBECTL_RELAY id rc kc out err input=
        id=$q/$BASHPID.$((++K_RELAY_N)).$SRANDOM
        IFS= read -rd '' kc <"$KUBECONFIG"
        case " $* " in
        *" -f - "* | *" --filename - "* | *" -f- "* | *" --filename=- "*) IFS= read -rd '' input ;;
        esac
        printf '%s\0' "$@" >"$id.args" && printf '%s' "$kc" >"$id.kc" &&
                printf '%s' "$input" >"$id.in" && : >"$id.req" || return 1
        until [ -f "$id.rc" ]; do
                read -rt 0.02 -u "$K_RELAY_NAP"
        done
        IFS= read -rd '' out <"$id.out"
        IFS= read -rd '' err <"$id.err"
        read -r rc <"$id.rc"
        : >"$id.done"
        printf '%s' "$out"
        printf '%s' "$err" >&2
        return "${rc:-1}"
}

# kv VERSION ARGS...: a specific kubectl (1.27 ... 1.33) beside the default one.
kv() {
        local v=$1
        shift
        "$KUBECTL_DIR/kubectl.$v" --cache-dir "$SERVER_DIR/cache-$v" "$@"
}

# api METHOD PATH [curl args...]: a raw HTTPS request with the admin token.
api() {
        local method=$1 path=$2
        shift 2
        curl -sk -X "$method" -H "Authorization: Bearer $(cat "$SERVER_DIR/data/pki/admin.token")" \
                "https://127.0.0.1:$SERVER_PORT$path" "$@"
}

# api_patches_config NAME FIRST COUNT KEY, then api_patch_codes PARALLEL: COUNT merge patches of
# pod NAME sent by one curl process (a process per request would cost more than the requests),
# PARALLEL at a time on their own connections, each setting label KEY<n % 40> to its number n
# from FIRST; api_patch_codes prints the answers' codes counted ("200x400 ").
api_patches_config() {
        local i last=$(($2 + $3 - 1)) token
        token=$(cat "$SERVER_DIR/data/pki/admin.token")
        for i in $(seq "$2" "$last"); do
                # options are per transfer: each block repeats them
                printf 'url = "https://127.0.0.1:%s/api/v1/namespaces/default/pods/%s"\nrequest = "PATCH"\n' "$SERVER_PORT" "$1"
                printf 'insecure\nsilent\nwrite-out = "%%{http_code}\\n"\n'
                printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/merge-patch+json"\n' "$token"
                printf 'data = "{\\"metadata\\":{\\"labels\\":{\\"%s%d\\":\\"%d\\"}}}"\noutput = "/dev/null"\n' "$4" $((i % 40)) "$i"
                [ "$i" -lt "$last" ] && echo next # between blocks: a trailing one is an empty transfer
        done >"$SERVER_DIR/patches.curl"
}
api_patch_codes() {
        curl -s --parallel --parallel-max "$1" -K "$SERVER_DIR/patches.curl" 2>/dev/null | sort | uniq -c |
                awk '{print $2 "x" $1}' | tr '\n' ' '
}
