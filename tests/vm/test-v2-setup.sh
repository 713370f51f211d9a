#!/usr/bin/env bash
# test-v2-setup.sh: `flexlet serve` meeting a cgroup v2 machine as it is, as root, in
# tests/vm/run.sh's guest (it skips elsewhere: it makes cgroups at the top of the tree and needs
# the unified hierarchy): a host name that is no DNS name ("(none)" in a bare VM) is left out of
# the serving certificate and the server starts; the node name then has to be given; a
# --cgroup-root below a cgroup that holds processes, on a read-only tree, or on a tree without
# the cpu controller, is refused with words saying what to do.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
if [ -z "$CGROUP_V2" ] || [ ! -f /run/flexlet-vm/vm.conf ]; then
        echo "1..0 # SKIP runs in tests/vm/run.sh's cgroup v2 guest only"
        exit 0
fi

busy=/sys/fs/cgroup/flexlet-busy-$$
nocpu=/sys/fs/cgroup/flexlet-nocpu-$$
sleeper=
work=$(mktemp -d /tmp/flexlet-v2setup.XXXXXX)
cleanup_all() {
        [ -n "$sleeper" ] && kill -9 "$sleeper" 2>/dev/null
        [ -n "$sleeper" ] && wait "$sleeper" 2>/dev/null
        [ -d "$busy" ] && find "$busy" -depth -type d -exec rmdir {} + 2>/dev/null
        [ -d "$nocpu" ] && find "$nocpu" -depth -type d -exec rmdir {} + 2>/dev/null
        rm -rf "$work"
        node_cleanup
}
SERVER_CLEANUP=cleanup_all

# serve_fails WANT ARGS...: `flexlet serve ARGS` exits non-zero within 30 s; prints its stderr
serve_fails() {
        timeout 30 "$FLEXLET_BIN" serve --data-dir "$work/data-$RANDOM" --listen "127.0.0.1:$(free_port)" "$@" 2>&1
        echo "exit $?"
}

# --- the host name "(none)"
if [ "$(hostname)" = "(none)" ]; then
        node_test_start
        ok "serve starts on a host named \"(none)\""
        check_output "and says the certificate leaves the name out" \
                'the host name "(none)" is not a valid DNS name; the serving certificate leaves it out' \
                cat "$SERVER_DIR/server.log"
        check "kubectl reaches it by address" k get --raw /readyz
        server_stop
        check_output "without --node-name it asks for one" \
                'the host name "(none)" cannot name the node' serve_fails --cgroup-root "flexlet-e2e-$$"
else
        ok "the host name \"(none)\" # SKIP this guest is named $(hostname)"
fi

# --- a --cgroup-root below a cgroup with processes of its own (systemd without a child cgroup)
mkdir "$busy"
sleep 600 &
sleeper=$!
echo "$sleeper" >"$busy/cgroup.procs"
out=$(serve_fails --node-name test-node --cgroup-root "flexlet-busy-$$/pods")
case $out in
*"enable controllers"*"flexlet-busy-$$"*"holds processes of its own"*"exit "[1-9]*) ok "a cgroup-root below a cgroup holding processes is refused, saying why" ;;
*) not_ok "a cgroup-root below a cgroup holding processes is refused, saying why" "$out" ;;
esac

# --- a read-only cgroup tree (a container's /sys/fs/cgroup mounted ro)
out=$(unshare -m sh -c "mount --make-rprivate / && mount -o remount,bind,ro /sys/fs/cgroup &&
        exec timeout 30 '$FLEXLET_BIN' serve --data-dir '$work/data-ro' --listen 127.0.0.1:$(free_port) \
                --node-name test-node --cgroup-root flexlet-ro-$$" 2>&1)
case $out in
*"flexlet-ro-$$"*"Read-only file system"*) ok "a read-only cgroup tree is refused, saying so" ;;
*) not_ok "a read-only cgroup tree is refused, saying so" "$out" ;;
esac
[ -d "/sys/fs/cgroup/flexlet-ro-$$" ] && rmdir "/sys/fs/cgroup/flexlet-ro-$$"

# --- a tree without the cpu controller (a container given a cgroup namespace whose parent
# delegates none): serve started inside a cgroup namespace rooted at a cgroup whose parent
# enables nothing for it, on that namespace's own cgroup2 mount
mkdir "$nocpu" "$nocpu/inner"
out=$(sh -c "echo \$\$ >'$nocpu/inner/cgroup.procs' && exec unshare -C -m sh -c 'mount --make-rprivate / &&
        umount -l /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && cat /sys/fs/cgroup/cgroup.controllers &&
        exec timeout 30 \"$FLEXLET_BIN\" serve --data-dir \"$work/data-nocpu\" --listen 127.0.0.1:$(free_port) \
                --node-name test-node --cgroup-root flexlet-nocpu'" 2>&1)
case $out in
*'cgroup v2 controller "cpu" not available in "/sys/fs/cgroup"'*) ok "a cgroup tree without the cpu controller is refused, naming it" ;;
*) not_ok "a cgroup tree without the cpu controller is refused, naming it" "$out" ;;
esac

tap_done
