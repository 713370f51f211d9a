#!/usr/bin/env bash
# run.sh: runs test scripts as root inside a throwaway qemu guest whose kernel runs cgroup v2
# (the unified hierarchy), whatever this machine runs, and brings their TAP output back.
#
#   tests/vm/run.sh [-o OUTDIR] [-t TIMEOUT_S] [-b START_BUDGET_S] SCRIPT...
#
# The guest boots Debian's linux-image-amd64 kernel (the newest in /boot with its modules in
# /lib/modules) on an initramfs this script builds: busybox-static and the modules that mount
# the root (virtio, 9p, overlay, as `modprobe --show-depends -S KVER` lists them). The root is
# this machine's / shared read-only over 9p, with a tmpfs overlay for the guest's writes, so
# the guest runs this checkout's build/ and tests/ at the same path and the host's kubectl,
# jq, curl and mkfs; the guest loads any other module from the host's /lib/modules itself.
# tests/vm/guest-init.sh then mounts cgroup2 with every controller enabled in the root's
# cgroup.subtree_control, runs each SCRIPT in turn as root (bash SCRIPT) and powers off.
#
# Each SCRIPT's output goes, as it is written, to OUTDIR/<basename>.log over a second,
# writable 9p share; its exit code to OUTDIR/<basename>.rc. This script prints every log on
# stdout as it ends (TAP: the caller counts "ok"/"not ok"), and exits non-zero when a script
# failed, did not finish, or the guest could not run. The guest's console is OUTDIR/console.log.
# Without -o, OUTDIR is a temporary folder removed at the end.
#
# The machine cannot run it without qemu-system-x86_64, a /boot/vmlinuz-* with its
# /lib/modules, or a static busybox (scripts/install-deps.sh installs all three): then it
# prints one "not ok" naming what is missing (FLEXLET_VM=skip makes that a TAP skip instead).
# Acceleration is TCG (FLEXLET_VM_ACCEL=kvm tries KVM; on nested machines it can hang at boot).
# The suites' kubectl runs on this machine (tests/vm/kubectl-relay.sh, through a qemu user
# network with restrict=on and one port forward; FLEXLET_VM_KUBECTL=guest keeps it in the
# guest, with no network); its log is OUTDIR/kubectl-relay.log. FLEXLET_VM_TRACE=1 keeps a
# timestamped xtrace of each script as OUTDIR/<basename>.trace.
# qemu is killed after TIMEOUT_S (default 1200) seconds; the initramfs, the shares and qemu
# itself are gone when this script exits, on success, failure or a signal. With -b, a script
# not yet started START_BUDGET_S seconds after the guest booted is not started: its log is one
# TAP skip saying so (a script that starts and does not finish by TIMEOUT_S fails).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out_dir=
timeout_s=${FLEXLET_VM_TIMEOUT:-1200}
budget_s=
while getopts "o:t:b:" opt; do
        case $opt in
        o) out_dir=$OPTARG ;;
        t) timeout_s=$OPTARG ;;
        b) budget_s=$OPTARG ;;
        *) exit 2 ;;
        esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
        echo "usage: $0 [-o OUTDIR] [-t TIMEOUT_S] [-b START_BUDGET_S] SCRIPT..." >&2
        exit 2
fi

# cannot REASON: the machine cannot boot the guest; one TAP line says why.
cannot() {
        if [ "${FLEXLET_VM:-}" = skip ]; then
                echo "1..0 # SKIP cgroup v2 suites in a VM: $1"
                exit 0
        fi
        echo "not ok 1 - cgroup v2 suites in a VM: this machine cannot run them: $1"
        echo "#   scripts/install-deps.sh installs qemu-system-x86, linux-image-amd64 and busybox-static;"
        echo "#   FLEXLET_VM=skip reports this as a skip instead"
        echo "1..1"
        exit 1
}

if [ "$(id -u)" -ne 0 ]; then
        # as the end-to-end tests themselves do (tests/lib/node.sh node_require_root)
        echo "1..0 # SKIP cgroup v2 suites in a VM: the guest shares / and runs its tests as root"
        exit 0
fi
command -v qemu-system-x86_64 >/dev/null || cannot "no qemu-system-x86_64 (Debian package qemu-system-x86)"
kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$kernel" ] || cannot "no /boot/vmlinuz-* (Debian package linux-image-amd64)"
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || cannot "no /lib/modules/$kver for $kernel"
# a static busybox: an ELF with no program interpreter (readelf: binutils, in build-essential)
busybox=
for b in /bin/busybox /usr/bin/busybox; do
        if [ -x "$b" ] && readelf -l "$b" >/dev/null 2>&1 && ! readelf -l "$b" | grep -q "program interpreter"; then
                busybox=$b
                break
        fi
done
[ -n "$busybox" ] || cannot "no static busybox (Debian package busybox-static)"
command -v cpio >/dev/null || cannot "no cpio (Debian package cpio)"
command -v modprobe >/dev/null || cannot "no modprobe (Debian package kmod)"
scripts=()
for s in "$@"; do
        [ -f "$s" ] || cannot "no test script $s"
        # the guest replaces /tmp with its own tmpfs, keeping only the checkout in sight there
        case $(cd "$(dirname "$s")" && pwd) in
        "$repo"/*) ;;
        /tmp | /tmp/*) cannot "$s is under /tmp, which the guest replaces with its own tmpfs" ;;
        esac
        scripts+=("$(cd "$(dirname "$s")" && pwd)/$(basename "$s")")
done

# vm.conf quotes them in single quotes and the guest splits the list on blanks
case "$repo ${scripts[*]}" in
*"'"* | *"	"*) cannot "a path with a quote or a tab: $repo ${scripts[*]}" ;;
esac
for s in "$repo" "${scripts[@]}"; do
        [[ "$s" != *" "* ]] || cannot "a path with a space: $s"
done

work=$(mktemp -d /tmp/flexlet-vm.XXXXXX)
qemu_pid=
relay_pid=
# kill_qemu: SIGTERM (qemu exits at once), SIGKILL after 5 s; qemu_pid is qemu itself.
kill_qemu() {
        kill "$qemu_pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
                kill -0 "$qemu_pid" 2>/dev/null || break
                sleep 0.5
        done
        kill -9 "$qemu_pid" 2>/dev/null
        wait "$qemu_pid" 2>/dev/null
}
cleanup() {
        if [ -n "$qemu_pid" ]; then
                kill_qemu
        fi
        if [ -n "$relay_pid" ]; then
                kill -- "-$relay_pid" 2>/dev/null || kill "$relay_pid" 2>/dev/null
                wait "$relay_pid" 2>/dev/null
                rm -rf "$out_dir/kubectl"
        fi
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
if [ -z "$out_dir" ]; then
        out_dir=$work/out
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
for s in "${scripts[@]}"; do
        rm -f "$out_dir/$(basename "$s").log" "$out_dir/$(basename "$s").rc"
done

# --- kubectl on this machine for the guest's suites (tests/vm/kubectl-relay.sh; under TCG a
# kubectl call costs seconds): qemu forwards 127.0.0.1:relay_port here to the guest's 6443.
# FLEXLET_VM_KUBECTL=guest keeps kubectl in the guest. The port is from 30000-32767: the suites
# that run on this machine meanwhile take theirs from 10000-29999 (tests/run-all.sh), the
# kernel's ephemeral ports start at 32768.
relay_port=
if [ "${FLEXLET_VM_KUBECTL:-host}" != guest ]; then
        command -v kubectl >/dev/null || cannot "no kubectl for the guest's suites"
        for _ in $(seq 1 50); do
                p=$((30000 + RANDOM % 2768))
                if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
                        relay_port=$p
                        break
                fi
        done 2>/dev/null
        [ -n "$relay_port" ] || cannot "no free loopback port for the guest's API server"
        rm -rf "$out_dir/kubectl"
        mkdir -p "$out_dir/kubectl"
        # its own process group: run_one's kubectl calls go with it
        setsid bash "$here/kubectl-relay.sh" "$out_dir/kubectl" "$relay_port" </dev/null \
                >>"$out_dir/kubectl-relay.log" 2>&1 &
        relay_pid=$!
fi

# --- the initramfs: busybox, the modules that mount the root, /init
rd=$work/initramfs
mkdir -p "$rd"/{bin,dev,proc,sys,lower,rw,newroot,modules}
cp "$busybox" "$rd/bin/busybox"
for m in virtio_pci 9pnet_virtio 9p overlay; do
        modprobe --show-depends -S "$kver" "$m" 2>/dev/null || cannot "modprobe cannot resolve $m for $kver"
done | awk '$1 == "insmod" && !seen[$2]++ {print $2}' >"$work/modules.list"
: >"$rd/modules/order"
while read -r ko; do
        name=$(basename "$ko")
        case $name in
        *.ko.xz) xz -dc "$ko" >"$rd/modules/${name%.xz}" && name=${name%.xz} ;;
        *.ko.zst) zstd -qdc "$ko" >"$rd/modules/${name%.zst}" && name=${name%.zst} ;;
        *.ko.gz) gzip -dc "$ko" >"$rd/modules/${name%.gz}" && name=${name%.gz} ;;
        *) cp "$ko" "$rd/modules/$name" ;;
        esac || cannot "cannot copy module $ko"
        echo "$name" >>"$rd/modules/order"
done <"$work/modules.list"
{
        echo "VM_REPO='$repo'"
        echo "VM_SCRIPTS='${scripts[*]}'"
        echo "VM_PATH='$PATH'"
        echo "VM_BUDGET='$budget_s'"
        [ -n "${FLEXLET_VM_TRACE:-}" ] && echo "VM_TRACE=1"
        [ -n "$relay_port" ] && echo "VM_RELAY=1"
} >"$rd/vm.conf"
cat >"$rd/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() { echo "vm-init: $*"; echo "vm-init: $*" >/dev/ttyS1; poweroff -f; }
for m in $(cat /modules/order); do insmod "/modules/$m" || fail "insmod $m"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower || fail "mount the host's root"
mount -t tmpfs -o size=80% tmpfs /rw || fail "tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot || fail "overlay"
mkdir -p /newroot/run/flexlet-vm
cp /vm.conf /newroot/run/flexlet-vm/vm.conf
. /vm.conf
for d in proc sys dev; do mount --move /$d /newroot/$d; done
exec switch_root /newroot /bin/bash "$VM_REPO/tests/vm/guest-init.sh"
INIT
chmod +x "$rd/init"
(cd "$rd" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz" || cannot "cannot build the initramfs (cpio)"

# --- boot
accel=tcg,thread=multi
[ "${FLEXLET_VM_ACCEL:-}" = kvm ] && accel=kvm
cpus=$(nproc 2>/dev/null || echo 2)
[ "$cpus" -gt 4 ] && cpus=4
: >"$out_dir/console.log"
nic=(-nic none)
if [ -n "$relay_port" ]; then
        nic=(-nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$relay_port-10.0.2.15:6443")
fi
qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
        -accel "$accel" -cpu max -smp "$cpus" -m "${FLEXLET_VM_MEMORY:-3072}" \
        -kernel "$kernel" -initrd "$work/initramfs.gz" \
        -append "console=ttyS0 panic=-1 quiet loglevel=4 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all" \
        -serial "file:$out_dir/console.log" -serial null "${nic[@]}" \
        -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$out_dir,mount_tag=vmout,security_model=none,multidevs=remap" \
        >"$work/qemu.log" 2>&1 &
qemu_pid=$!
deadline=$((SECONDS + timeout_s))
timed_out=

# Print each script's log once its .rc appears, in order, while the guest runs.
rc_all=0
shown=0
while kill -0 "$qemu_pid" 2>/dev/null || [ "$shown" -lt ${#scripts[@]} ]; do
        name=$(basename "${scripts[$shown]}")
        if [ -f "$out_dir/$name.rc" ]; then
                cat "$out_dir/$name.log" 2>/dev/null
                rc=$(cat "$out_dir/$name.rc")
                [ "$rc" = 0 ] || rc_all=1
                if [ "$rc" != 0 ] && ! grep -qE '^not ok ' "$out_dir/$name.log" 2>/dev/null; then
                        echo "not ok - $name exited $rc in the guest without reporting a failure"
                        tail -5 "$out_dir/$name.log" 2>/dev/null | sed 's/^/#   /'
                fi
                shown=$((shown + 1))
                [ "$shown" -lt ${#scripts[@]} ] || break
                continue
        fi
        if ! kill -0 "$qemu_pid" 2>/dev/null; then
                break
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
                timed_out=1
                kill_qemu
                break
        fi
        sleep 1
done
wait "$qemu_pid"
qrc=$?
qemu_pid=
while [ "$shown" -lt ${#scripts[@]} ]; do
        name=$(basename "${scripts[$shown]}")
        rc_all=1
        [ -f "$out_dir/$name.log" ] && cat "$out_dir/$name.log"
        if [ -n "$timed_out" ]; then
                echo "not ok - $name did not finish in the guest: qemu killed after ${timeout_s}s"
        else
                echo "not ok - $name did not finish in the guest (qemu exited $qrc)"
        fi
        sed 's/^/#   /' "$work/qemu.log" | tail -5
        tail -30 "$out_dir/console.log" | tr -d '\r' | sed 's/^/#   console: /'
        shown=$((shown + 1))
done
exit "$rc_all"
