#!/usr/bin/env bash
# test-fsgroup.sh: fsGroup and the device allowlist, through kubectl, as root. fsGroup: the group
# in every container's groups, the volumes (disk and Memory emptyDir) given to it with setgid
# directories, files a non-root container creates later in its group; a symbolic link to a host
# file that the pod put in its volume is not followed when the agent, restarted, walks the volume
# again (Always), while OnRootMismatch leaves a volume whose root fits alone. Devices (runc's
# allowlist, on v1 the devices cgroup, on v2 the BPF program): a node a default container makes
# with mknod cannot be opened, /dev/null can; a privileged container reads a host loop device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

hostfile=$(mktemp /tmp/flexlet-fsgroup-host.XXXXXX)
backing=$(mktemp /tmp/flexlet-fsgroup-loop.XXXXXX)
loopdev=
fsg_cleanup() {
        node_cleanup
        [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
        rm -f "$hostfile" "$backing"
}
SERVER_CLEANUP=fsg_cleanup
chmod 0600 "$hostfile"
chgrp 0 "$hostfile"
printf FLEXDEV >"$backing"
truncate -s 1M "$backing"
modprobe loop 2>/dev/null
loopdev=$(losetup -f --show "$backing" 2>/dev/null)

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# fsgroup_pod NAME POLICY: a pod with fsGroup 2000, runAsUser 1000, a disk and a Memory
# emptyDir; "user" looks at what it got and leaves a link to the host file; "root" makes a file
# of group 0 once, then exits when the test says so (the agent restarts it: a sign that the
# restarted agent has set the volumes up again).
fsgroup_pod() {
        cat <<JSON | k create -f - >/dev/null || not_ok "create pod $1"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,
  "securityContext":{"fsGroup":2000,"runAsUser":1000,"fsGroupChangePolicy":"$2"},
  "volumes":[{"name":"d","emptyDir":{}},{"name":"m","emptyDir":{"medium":"Memory"}}],
  "containers":[
   {"name":"user","image":"busybox","volumeMounts":[{"name":"d","mountPath":"/d"},{"name":"m","mountPath":"/m"}],
    "command":["sh","-c","echo groups=\$(id -G); echo root-d=\$(stat -c '%g %A' /d) root-m=\$(stat -c '%g %A' /m); touch /d/new /m/new; mkdir /d/sub; echo new-d=\$(stat -c %g /d/new) new-m=\$(stat -c %g /m/new) sub=\$(stat -c '%g %A' /d/sub); ln -s $hostfile /d/hostlink && echo linked; sleep 3600"]},
   {"name":"root","image":"busybox","securityContext":{"runAsUser":0},
    "volumeMounts":[{"name":"d","mountPath":"/d"}],
    "command":["sh","-c","[ -e /d/stop ] && exec sleep 3600; [ -e /d/rootfile ] || { touch /d/rootfile && chgrp 0 /d/rootfile; }; while [ ! -e /d/stop ]; do sleep 0.2; done"]}]}}
JSON
}
fsgroup_pod always Always
fsgroup_pod onroot OnRootMismatch

device_pod() { # device_pod NAME CONTAINER-SECURITY-CONTEXT COMMAND
        cat <<JSON | k create -f - >/dev/null || not_ok "create pod $1"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never",
  "containers":[{"name":"c1","image":"busybox","securityContext":$2,"command":["sh","-c","$3"]}]}}
JSON
}
device_pod devices '{}' "mknod /tmp/sda b 8 0 && echo mknod-ok; head -c1 /tmp/sda 2>&1; mknod /tmp/mem c 1 1 && head -c1 /tmp/mem 2>&1; echo x >/dev/null && echo null-ok; echo zero=\$(head -c3 /dev/zero | wc -c)"
[ -n "$loopdev" ] && device_pod privileged '{"privileged":true}' "head -c7 $loopdev"

logs_until() { # logs_until POD CONTAINER TEXT: the container's log once it holds TEXT (60 s)
        local out=""
        for _ in $(seq 1 300); do
                out=$(k logs "$1" -c "$2" 2>&1)
                case "$out" in *"$3"*) break ;; esac
                sleep 0.2
        done
        echo "$out"
}
has() { # has WHAT POD CONTAINER TEXT [TEXT...]
        local what=$1 pod=$2 c=$3 out t
        shift 3
        out=$(logs_until "$pod" "$c" "$1")
        for t in "$@"; do
                case "$out" in
                *"$t"*) ;;
                *)
                        not_ok "$what" "want: $t"$'\n'"got: $out"
                        return
                        ;;
                esac
        done
        ok "$what"
}

# --- fsGroup
has "fsGroup is among the container's groups" always user "groups=0 2000"
has "the volumes' roots have group fsGroup, setgid, group rwx" always user "root-d=2000 drwxrwsrwx" "root-m=2000 drwxrwsrwx"
has "files and directories a runAsUser 1000 container makes get group fsGroup" always user \
        "new-d=2000 new-m=2000 sub=2000 drwxr-sr-x" "linked"
uid_always=$(k get pod always -o jsonpath='{.metadata.uid}')
uid_onroot=$(k get pod onroot -o jsonpath='{.metadata.uid}')
vol_always=$SERVER_DIR/data/pods/$uid_always/volumes/d
vol_onroot=$SERVER_DIR/data/pods/$uid_onroot/volumes/d
until_equal "the root container's file has group 0 (Always pod)" 0 stat -c %g "$vol_always/rootfile"
until_equal "the root container's file has group 0 (OnRootMismatch pod)" 0 stat -c %g "$vol_onroot/rootfile"

# the agent goes away; its pods stay. The "root" containers are told to exit: the restarted agent
# starts them again after it has set the volumes up (and walked them) once more.
server_stop
touch "$vol_always/stop" "$vol_onroot/stop"
node_test_start >/dev/null
restarted() { k get pod "$1" -o jsonpath='{.status.containerStatuses[?(@.name=="root")].restartCount}'; }
until_equal "the restarted agent restarts the Always pod's container" 1 restarted always
until_equal "the restarted agent restarts the OnRootMismatch pod's container" 1 restarted onroot
check_equal "Always walks the volume again: the file has group fsGroup" 2000 "$(stat -c %g "$vol_always/rootfile")"
check_equal "OnRootMismatch skips a volume whose root fits: the file keeps group 0" 0 "$(stat -c %g "$vol_onroot/rootfile")"
check_equal "the pod's link itself has group fsGroup" 2000 "$(stat -c %g "$vol_always/hostlink")"
check_equal "the host file a pod's link points at is not followed: group and mode unchanged" "0 600" "$(stat -c '%g %a' "$hostfile")"

# --- devices
has "a default container may mknod a block device" devices c1 "mknod-ok"
has "but not open it (the device allowlist)" devices c1 "/tmp/sda: Operation not permitted"
has "nor a character device outside the allowlist (/dev/mem's 1:1)" devices c1 "/tmp/mem: Operation not permitted"
has "/dev/null and /dev/zero work" devices c1 "null-ok" "zero=3"
if [ -n "$loopdev" ]; then
        has "a privileged container reads a host block device" privileged c1 "FLEXDEV"
else
        ok "a privileged container reads a host block device # SKIP no loop device here"
fi

k delete pods --all --timeout=60s >/dev/null 2>&1
tap_done
