#!/bin/bash
# guest-init.sh: PID 1 of the cgroup v2 guest that tests/vm/run.sh boots (on the host's root,
# read-only, under a tmpfs overlay). Mounts what a test needs (cgroup2 with every controller the
# kernel offers enabled in the root's cgroup.subtree_control, a private /tmp and /run, devpts,
# loopback up), runs each script of /run/flexlet-vm/vm.conf with bash, as root, its output and
# exit code going to the host's output folder (the "vmout" 9p share), then powers the guest off.
# Never run it on a host: it mounts over /tmp and /sys/fs/cgroup and powers the machine off.
. /run/flexlet-vm/vm.conf
export PATH=$VM_PATH:/usr/sbin:/sbin:/usr/bin:/bin
export HOME=/root TERM=dumb
# every process start costs hundreds of ms under emulation: tests lengthen what they time
export FLEXLET_TEST_SLOW=1

if [ "$$" -ne 1 ] || [ ! -f /run/flexlet-vm/vm.conf ]; then
        echo "guest-init.sh: only PID 1 of tests/vm/run.sh's guest runs this" >&2
        exit 1
fi

# say MESSAGE: a console line, with the guest's uptime (where its time goes: docs/cgroups.md)
say() { echo "guest-init: $(cut -d' ' -f1 /proc/uptime)s $*" >/dev/ttyS0; }

setup() {
        local keep=
        # A checkout under /tmp (CI may clone there) stays in sight under the guest's own /tmp.
        case $VM_REPO in
        /tmp/*)
                keep=/run/flexlet-vm/repo
                mkdir -p "$keep" && mount --bind "$VM_REPO" "$keep" || return 1
                ;;
        esac
        mount -t tmpfs -o mode=1777 tmpfs /tmp &&
                mount -t tmpfs -o mode=755 tmpfs /run/flexlet-vm-tmp 2>/dev/null
        if [ -n "$keep" ]; then
                mkdir -p "$VM_REPO" && mount --bind "$keep" "$VM_REPO" || return 1
        fi
        mkdir -p /dev/pts /dev/shm /run/flexlet-vm/out
        # what udev or systemd links on a host: bash's <(...) needs /dev/fd
        ln -sfn /proc/self/fd /dev/fd
        ln -sf /proc/self/fd/0 /dev/stdin
        ln -sf /proc/self/fd/1 /dev/stdout
        ln -sf /proc/self/fd/2 /dev/stderr
        mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
        mount -t tmpfs -o mode=1777 tmpfs /dev/shm
        mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmout /run/flexlet-vm/out || return 1
        mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
        local c
        for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
                echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control || return 1
        done
        mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
        ip link set lo up 2>/dev/null || busybox ip link set lo up
        echo /sbin/modprobe >/proc/sys/kernel/modprobe
        # Persistent volumes are loop devices holding ext4 or xfs. On a Debian host
        # /dev/loop-control exists before loop.ko is loaded (systemd creates kmod's static
        # nodes at boot, and opening one loads its module); this guest has no systemd nor
        # udev, so without this the node's attach fails: open "/dev/loop-control": No such
        # file or directory. The file systems would load on mount; loaded here, a missing one
        # is said once, up front.
        modprobe -a loop ext4 xfs || say "modprobe loop ext4 xfs failed: volume suites will fail"
        if [ -n "${VM_RELAY:-}" ]; then
                # kubectl runs on the host (tests/vm/kubectl-relay.sh): qemu's user network
                # (restrict=on: nothing leaves the host) forwards the host's loopback port to
                # 10.0.2.15:6443 here, which the kernel sends on to 127.0.0.1:6443 (DNAT; a
                # loopback destination needs route_localnet), where the suites' servers listen
                local nic
                modprobe virtio_net || return 1
                nic=$(ls /sys/class/net | grep -v '^lo$' | head -1)
                [ -n "$nic" ] || return 1
                ip addr add 10.0.2.15/24 dev "$nic" && ip link set "$nic" up || return 1
                sysctl -qw "net.ipv4.conf.$nic.route_localnet=1" || return 1
                iptables -t nat -A PREROUTING -i "$nic" -d 10.0.2.15 -p tcp --dport 6443 \
                        -j DNAT --to-destination 127.0.0.1:6443 || return 1
                export FLEXLET_TEST_KUBECTL_RELAY=/run/flexlet-vm/out/kubectl SERVER_PORT=6443
        fi
        return 0
}

run_all() {
        local s name rc
        for s in $VM_SCRIPTS; do
                name=$(basename "$s")
                up=$(cut -d. -f1 /proc/uptime)
                if [ -n "$VM_BUDGET" ] && [ "$up" -ge "$VM_BUDGET" ]; then
                        echo "1..0 # SKIP $name not started: ${up}s after boot, past the guest's start budget of ${VM_BUDGET}s" \
                                >"/run/flexlet-vm/out/$name.log"
                        echo 0 >"/run/flexlet-vm/out/$name.rc"
                        say "$s skipped: past the start budget"
                        continue
                fi
                say "running $s"
                if [ -n "${VM_TRACE:-}" ]; then
                        # every command the suite runs, with its start time, kept on the guest's
                        # tmpfs while it runs (a write to the 9p share costs a host round trip)
                        (cd "$VM_REPO" && exec bash -c 'PS4="+ \$EPOCHREALTIME \${BASH_SOURCE##*/}:\$LINENO "
                                BASH_XTRACEFD=9; set -x; . "$0"' "$s" 9>"/tmp/$name.trace") \
                                >"/run/flexlet-vm/out/$name.log" 2>&1 </dev/null
                        rc=$?
                        cp "/tmp/$name.trace" "/run/flexlet-vm/out/$name.trace"
                else
                        (cd "$VM_REPO" && exec bash "$s") >"/run/flexlet-vm/out/$name.log" 2>&1 </dev/null
                        rc=$?
                fi
                echo "$rc" >"/run/flexlet-vm/out/$name.rc"
                say "$s exited $rc"
        done
}

if setup; then
        say "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.subtree_control); kernel $(uname -r)"
        run_all
else
        say "setup failed"
fi
sync
umount /run/flexlet-vm/out 2>/dev/null
echo o >/proc/sysrq-trigger
sleep 10
busybox poweroff -f
