# node.sh: starts `flexlet serve` (a node agent that runs pods as root) for an end-to-end test and
# removes everything its pods made when the test ends, even when it fails or the server was
# killed: processes in the test's cgroups, mounts under the data dir, loop devices of files
# there, the cgroups, the data dir. Source after tap.sh and server.sh; then call node_start [flags...].

NODE_CGROUP_ROOT=${NODE_CGROUP_ROOT:-flexlet-e2e-$$}
FLEXLET_COMMAND=serve
SERVER_CLEANUP=node_cleanup

node_cleanup() {
        local d
        server_stop
        for _ in 1 2 3 4 5; do
                for d in /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT"; do
                        [ -d "$d" ] || continue
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                sleep 0.2
                for d in /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT"; do
                        [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                done
                ls -d /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT" >/dev/null 2>&1 || break
        done
        if [ -n "${SERVER_DIR:-}" ]; then
                awk -v dir="$SERVER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                        sort -r | xargs -r -n1 umount -l 2>/dev/null
                # loop devices of the claims' volume files
                losetup -a 2>/dev/null | awk -F: -v dir="$SERVER_DIR/" 'index($0, dir) {print $1}' |
                        xargs -r -n1 losetup -d 2>/dev/null
                rm -rf "$SERVER_DIR"
        fi
}

# node_start [flags...]: a single-node cluster on this machine, its cgroups below
# NODE_CGROUP_ROOT, with allocatable cpu=4, memory=4Gi unless the flags say otherwise.
node_start() {
        server_start --allocatable cpu=4,memory=4Gi --cgroup-root "$NODE_CGROUP_ROOT" "$@"
}

# node_require_root: skips the whole test (one TAP plan of zero) when not root.
node_require_root() {
        if [ "$(id -u)" -ne 0 ]; then
                echo "1..0 # SKIP the node agent needs root (cgroups, mounts, namespaces)"
                exit 0
        fi
}

# node_test_start [flags...]: node_start for a test: a server that does not start is the test's
# one failure, and the test ends there.
node_test_start() {
        if ! node_start "$@"; then
                not_ok "server starts with a node"
                tap_done
                exit 1
        fi
}

# until_equal WHAT WANT COMMAND...: runs COMMAND every 0.2 s, up to 60 s, until it prints WANT;
# then checks it (what the kernel and the API reach asynchronously).
until_equal() {
        local what=$1 want=$2 got=""
        shift 2
        for _ in $(seq 1 300); do
                got=$("$@" 2>/dev/null)
                [ "$got" = "$want" ] && break
                sleep 0.2
        done
        check_equal "$what" "$want" "$got"
}
