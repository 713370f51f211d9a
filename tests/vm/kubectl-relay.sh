#!/usr/bin/env bash
# kubectl-relay.sh: the host's half of the guest's kubectl (tests/vm/run.sh starts it; never
# run it by hand). Under TCG a kubectl call (a 57 MB Go binary) takes 2 to 6 s in the guest
# and ~0.1 s here, and the suites make hundreds of them; so in the guest tests/lib/server.sh's
# `k` hands each call to this script, which runs this machine's kubectl against the guest's
# API server through qemu's port forward (127.0.0.1:HOST_PORT here, the guest's 6443 there).
# Only kubectl moves: the server, the node agent, the cgroups and every other check stay in
# the guest.
#
#   tests/vm/kubectl-relay.sh QUEUE_DIR HOST_PORT
#
# The queue is a folder of the writable 9p share. A call is ID.args (NUL-separated), ID.in
# (stdin) and ID.kc (the guest server's kubeconfig, its certificates inline), written by the
# guest before ID.req, which says they are complete (tests/lib/server.sh k_relay). This script
# claims it (mkdir ID.taken), runs kubectl with that kubeconfig pointed at HOST_PORT, writes
# ID.out, ID.err and last ID.rc, and removes the call's files once the guest made ID.done.
# Each call's start, exit code and duration go to stdout (run.sh keeps it as
# kubectl-relay.log beside the suites' logs).
#
# What the guest sends is checked as input from outside: only the verbs the suites use (exec
# runs its command in the guest's pod, through the guest's API server), and no flag that makes
# kubectl write or run anything on this machine (files, plugins,
# credentials helpers come only from the kubeconfig, which must be the guest server's plain
# token form). Each call ends within 10 minutes (timeout), and the whole process group goes
# when run.sh ends.
set -uo pipefail
queue=$1
port=$2
cache=$(mktemp -d /tmp/flexlet-vm-kubectl.XXXXXX)
trap 'rm -rf "$cache"' EXIT
trap 'exit 0' TERM INT HUP

# refuse ID REASON: the call fails in the guest with REASON on its stderr, exit code 2.
refuse() {
        echo "kubectl-relay: $2" >"$1.err"
        : >"$1.out"
        echo "$(date +%T.%N | cut -c1-12) ${1##*/} refused: $2"
        echo 2 >"$1.rc.new" && mv "$1.rc.new" "$1.rc"
}

# run_one ID: one call (ID is the queue path without a suffix), in the background of the loop.
run_one() {
        local d=$1 a verb rc i start
        local -a args=()
        [ -f "$d.args" ] && [ -f "$d.kc" ] && [ -f "$d.in" ] || {
                refuse "$d" "incomplete request"
                return
        }
        mapfile -d '' args <"$d.args"
        verb=${args[0]:-}
        case $verb in
        get | create | patch | delete | wait | logs | apply | describe | label | annotate | top | exec) ;;
        *)
                refuse "$d" "verb \"$verb\" is not relayed (tests/vm/kubectl-relay.sh)"
                return
                ;;
        esac
        for a in "${args[@]}"; do
                case $a in
                --kubeconfig* | --cache-dir* | --log-file* | --log-dir* | --profile* | \
                        --token* | --server* | -s | -s=* | --as* | --user* | --cluster | --cluster=* | --context* | \
                        --certificate-authority* | --client-* | --tls-server-name* | --insecure*)
                        refuse "$d" "flag \"$a\" is not relayed"
                        return
                        ;;
                esac
        done
        # -f/--filename only from the call's stdin: a path would name this machine's files
        for ((i = 0; i < ${#args[@]}; i++)); do
                case ${args[$i]} in
                -f | --filename)
                        [ "${args[$((i + 1))]:-}" = - ] || {
                                refuse "$d" "-f other than - is not relayed"
                                return
                        }
                        ;;
                -f?* | --filename=*)
                        [ "${args[$i]}" = -f- ] || [ "${args[$i]}" = --filename=- ] || {
                                refuse "$d" "-f other than - is not relayed"
                                return
                        }
                        ;;
                esac
        done
        # the guest server's kubeconfig: its address moved to the forward; nothing that runs
        # a program (exec credential plugins, auth providers) or names a file
        if grep -Eq '^[[:space:]]*(exec|auth-provider|client-certificate|client-key|certificate-authority|tokenFile|proxy-url):' \
                "$d.kc"; then
                refuse "$d" "the kubeconfig is not a plain token one"
                return
        fi
        sed -E "s#^([[:space:]]*server:[[:space:]]*https://127\\.0\\.0\\.1):6443[[:space:]]*\$#\\1:$port#" \
                "$d.kc" >"$d.kc.host"
        if ! grep -Eq "^[[:space:]]*server:[[:space:]]*https://127\\.0\\.0\\.1:$port\$" "$d.kc.host"; then
                refuse "$d" "the guest's server is not at https://127.0.0.1:6443 (the one port forwarded)"
                return
        fi
        start=$EPOCHREALTIME
        HOME=$cache KUBECONFIG= timeout 600 kubectl --kubeconfig "$d.kc.host" \
                --cache-dir "$cache/http" "${args[@]}" <"$d.in" >"$d.out" 2>"$d.err"
        rc=$?
        echo "$(date +%T.%N | cut -c1-12) ${d##*/} rc $rc $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2fs", b - a}'): kubectl ${args[*]:0:6}"
        echo "$rc" >"$d.rc.new" && mv "$d.rc.new" "$d.rc"
}

# a pipe nobody writes to: `read -t` on it is a sleep without a process
exec {nap}<> <(:)
while :; do
        for r in "$queue"/*.req; do
                [ -f "$r" ] || continue
                d=${r%.req}
                mkdir "$d.taken" 2>/dev/null || continue
                run_one "$d" &
        done
        for r in "$queue"/*.done; do
                [ -f "$r" ] || continue
                d=${r%.done}
                rm -rf "$d".*
        done
        read -rt 0.02 -u "$nap"
done
