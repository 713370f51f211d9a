# netns-nodes.sh: `flexlet node`s on one machine, each in a network namespace of its own joined
# by a veth to a bridge on the host ("the underlay"), as separate machines would be: each node's
# InternalIP is its underlay address, so the routes each node keeps to the others' pods never
# touch the host's. API servers listen on the host's underlay address. Source after tap.sh and
# server.sh; the test's exit trap calls nn_cleanup, which removes every node process, the pods'
# processes and cgroups, the namespaces, veths and the bridge, even after a failure.
#
# Each node runs in its network namespace (nsenter) and a mount namespace of its own (unshare,
# slave to the host's, so its mounts stay its own and go with its last process) where a sysfs
# mounted from inside the namespace covers /sys/class/net and /sys/devices/virtual/net (the
# bridge code reads them); the rest of /sys, the cgroup mounts among it, is the host's. (`ip
# netns exec` mounts a whole new /sys, which hides the cgroups, and a bind of them from the
# host's mount namespace is refused.) Read a node's mounts with nsenter -t "${NN_PID[X]}" -m.
#
#   nn_underlay HOSTIP/24          the bridge (NN_BRIDGE) with the host's address
#   nn_add X IP CGROUP             a namespace for node X with IP on the underlay; its pods'
#                                  cgroups go under CGROUP (removed on exit)
#   nn_run X FLAGS...              `flexlet node FLAGS...` for X in its namespaces, logging to
#                                  $SERVER_DIR/node-X.log; its pid (the binary's) in NN_PID[X]

NN_BRIDGE=${NN_BRIDGE:-ul-$$}
declare -A NN_PID=() NN_NS=() NN_CG=()

nn_underlay() {
        ip link add "$NN_BRIDGE" type bridge && ip addr add "$1" dev "$NN_BRIDGE" &&
                ip link set "$NN_BRIDGE" up
}

nn_add() {
        local x=$1 ip=$2 ns=flx-$1-$$
        NN_NS[$x]=$ns
        NN_CG[$x]=$3
        ip netns add "$ns" &&
                ip link add "v$x-$$" type veth peer name eth0 netns "$ns" &&
                ip link set "v$x-$$" master "$NN_BRIDGE" up &&
                ip -n "$ns" addr add "$ip/24" dev eth0 &&
                ip -n "$ns" link set eth0 up &&
                ip -n "$ns" link set lo up
}

nn_run() {
        local x=$1
        shift
        mkdir -p "$SERVER_DIR/sys-$x"
        nsenter --net="/run/netns/${NN_NS[$x]}" unshare --mount --propagation slave sh -c '
                mount -t sysfs sysfs "$1" && mount --bind "$1/class/net" /sys/class/net &&
                mount --bind "$1/devices/virtual/net" /sys/devices/virtual/net && umount -l "$1" &&
                shift && exec "$@"' \
                sh "$SERVER_DIR/sys-$x" "$FLEXLET_BIN" node "$@" >>"$SERVER_DIR/node-$x.log" 2>&1 &
        NN_PID[$x]=$!
}

# nn_kill X [SIGNAL]: stops node X (default SIGKILL) and reaps it.
nn_kill() {
        [ -n "${NN_PID[$1]:-}" ] || return 0
        kill "-${2:-9}" "${NN_PID[$1]}" 2>/dev/null
        wait "${NN_PID[$1]}" 2>/dev/null
        NN_PID[$1]=
}

nn_cleanup() {
        local x cg d
        for x in "${!NN_PID[@]}"; do
                nn_kill "$x"
        done
        # the pods' processes, then their cgroups (the mounts they and the nodes made live in the
        # nodes' own mount namespaces and go with the last process)
        for _ in 1 2 3 4 5; do
                for cg in "${NN_CG[@]}"; do
                        for d in /sys/fs/cgroup/*/"$cg" /sys/fs/cgroup/"$cg"; do
                                [ -d "$d" ] || continue
                                find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                        done
                done
                sleep 0.2
                for cg in "${NN_CG[@]}"; do
                        for d in /sys/fs/cgroup/*/"$cg" /sys/fs/cgroup/"$cg"; do
                                [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                        done
                done
        done
        for x in "${!NN_NS[@]}"; do
                ip netns del "${NN_NS[$x]}" 2>/dev/null
                ip link del "v$x-$$" 2>/dev/null
        done
        ip link del "$NN_BRIDGE" 2>/dev/null
        return 0
}
