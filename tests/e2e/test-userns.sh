#!/usr/bin/env bash
# test-userns.sh: pods with hostUsers: false (K8S KEP-127), as root, through kubectl against
# `flexlet serve`: each runs in a user namespace of its own with a 65536-ID range (uid_map
# "0 <base> 65536"), two pods get different ranges, a pod keeps its range over a SIGKILL and
# restart of the agent, a freed range is handed out again; the pod's root is host ID <base> and
# runAsUser 1000 host <base>+1000; its Memory and disk emptyDirs and its claim are idmapped
# (written as 0 inside and stored as 0, so the files read the same to any pod), its own root
# layer stores host IDs; mounts and a nested user namespace gain nothing on the host;
# procMount Unmasked leaves its /proc unmasked; and a
# restricted, user-namespaced pod has cpu, memory and its Memory emptyDir resized live.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

start_node() {
        node_start --feature-gates MemoryBackedVolumeResizeCgroupV1=true
}
node_test_start --feature-gates MemoryBackedVolumeResizeCgroupV1=true

jp() { k get pod "$1" -o jsonpath="$2"; }
wait_running() {
        k wait --for=jsonpath='{.status.phase}'=Running "pod/$1" --timeout=90s >/dev/null 2>&1
}
pod_dir() { echo "$SERVER_DIR/data/pods/$(jp "$1" '{.metadata.uid}')"; }
# the host ID the pod's 0 maps to, from the agent's record of the pod
base_of() { jq -r '.uidMappings[0].hostId' "$(pod_dir "$1")/userns" 2>/dev/null; }
# the container's process, seen from the host
host_uid() {
        local pid
        pid=$(jq -r .pid "$(pod_dir "$1")/containers/c1/0/started.json" 2>/dev/null)
        awk '/^Uid:/ {print $2}' "/proc/$pid/status" 2>/dev/null
}
logs_until() { # logs_until POD TEXT: the pod's log once it holds TEXT (or after 15 s)
        local out=""
        for _ in $(seq 1 75); do
                out=$(k logs "$1" 2>/dev/null)
                case "$out" in *"$2"*) break ;; esac
                sleep 0.2
        done
        echo "$out"
}
has() { # has WHAT OUTPUT TEXT
        case "$2" in
        *"$3"*) ok "$1" ;;
        *) not_ok "$1" "want: $3"$'\n'"got: $2" ;;
        esac
}

cat <<'JSON' | k create -f - >/dev/null || not_ok "create claim"
{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
 "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"64Mi"}}}}
JSON
# u1: root in its own user namespace, with every kind of volume, trying its way out
cat <<'JSON' | k create -f - >/dev/null || not_ok "create pod u1"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u1"},
 "spec":{"terminationGracePeriodSeconds":1,"hostUsers":false,
  "containers":[{"name":"c1","image":"busybox","workingDir":"/w/d","command":["sh","-c",
   "set -- $(cat /proc/self/uid_map); echo map=$1,$2,$3; id; echo wd=$(stat -c %u /w):$(stat -c %u .); for d in mem disk data; do echo x > /$d/f && echo $d=$(stat -c %u:%g /$d/f); done; mkdir -p /sub && echo x > /sub/g && echo sub=$(stat -c %u /sub/g); echo x > /written; echo root=$(stat -c %u /bin/busybox); [ -c /proc/keys ] && echo keys-masked; mount -t tmpfs x /mnt 2>/dev/null || echo mount-denied; unshare -Urm sh -c 'umount -l /proc/kcore 2>/dev/null || echo umount-locked; mount -o remount,rw /sys 2>/dev/null || echo sys-stays-ro; mount -o remount,rw /proc/sys 2>/dev/null || echo procsys-stays-ro'; echo done; sleep 3600"],
   "volumeMounts":[{"name":"mem","mountPath":"/mem"},{"name":"disk","mountPath":"/disk"},
    {"name":"data","mountPath":"/data"},{"name":"disk","mountPath":"/sub","subPath":"s"}]}],
  "volumes":[{"name":"mem","emptyDir":{"medium":"Memory"}},{"name":"disk","emptyDir":{}},
   {"name":"data","persistentVolumeClaim":{"claimName":"data"}}]}}
JSON
# u2: restricted (non-root 1000, drop ALL, no privilege escalation, RuntimeDefault) with an
# fsGroup, to resize
cat <<'JSON' | k create -f - >/dev/null || not_ok "create pod u2"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u2"},
 "spec":{"terminationGracePeriodSeconds":1,"hostUsers":false,
  "securityContext":{"runAsNonRoot":true,"runAsUser":1000,"runAsGroup":1000,"fsGroup":2000,
   "seccompProfile":{"type":"RuntimeDefault"}},
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c",
   "id; for i in 1 2 3; do dd if=/dev/urandom of=/mem/f$i bs=1M count=4 2>/dev/null; done; echo mem=$(stat -c %u /mem/f1) memgroup=$(stat -c %g:%A /mem) filegroup=$(stat -c %g /mem/f1); echo done; while true; do df -k /mem | tail -1; sleep 0.5; done"],
   "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},
   "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"256Mi"}},
   "volumeMounts":[{"name":"mem","mountPath":"/mem"}]}],
  "volumes":[{"name":"mem","emptyDir":{"medium":"Memory","sizeLimit":"32Mi"}}]}}
JSON

check "u1 runs" wait_running u1
check "u2 runs" wait_running u2
# each prints what it sees, then "done"
out1=$(logs_until u1 done)
out2=$(logs_until u2 done)
b1=$(base_of u1)
b2=$(base_of u2)
case "$b1" in '' | *[!0-9]*) b1=0 ;; esac
case "$b2" in '' | *[!0-9]*) b2=0 ;; esac
if [ "$b1" -ge 65536 ] && [ $((b1 % 65536)) = 0 ] && [ "$b2" -ge 65536 ] && [ $((b2 % 65536)) = 0 ]; then
        ok "each pod has a recorded range: a multiple of 65536 above the host's own IDs"
else
        not_ok "each pod has a recorded range: a multiple of 65536 above the host's own IDs" "u1 $b1, u2 $b2"
fi
if [ "$b1" != "$b2" ]; then ok "two pods get different ranges"; else not_ok "two pods get different ranges" "both $b1"; fi
has "u1's uid_map is 0 <base> 65536" "$out1" "map=0,$b1,65536"
has "u1 is root inside" "$out1" "uid=0(root) gid=0(root)"
check_equal "u1's root is host uid <base>" "$b1" "$(host_uid u1)"
has "the image's files, owned by host root, are root's inside (idmapped lower layer)" "$out1" "root=0"
has "the Memory emptyDir is written, owned by 0:0 inside" "$out1" "mem=0:0"
has "the disk emptyDir is written, owned by 0:0 inside" "$out1" "disk=0:0"
has "the claim is written, owned by 0:0 inside" "$out1" "data=0:0"
has "a subPath of a volume is idmapped too" "$out1" "sub=0"
has "procMount Default: /proc/keys is masked" "$out1" "keys-masked"
has "a workingDir the start makes is the pod's root's" "$out1" "wd=0:0"
d1=$(pod_dir u1)
check_equal "idmapped: the disk emptyDir's file is stored as 0 on the host" "0" "$(stat -c %u "$d1/volumes/disk/f")"
check_equal "idmapped: the Memory emptyDir's file is stored as 0 on the host" "0" "$(stat -c %u "$d1/volumes/mem/f")"
check_equal "the container's own layer stores the host ID <base>" "$b1" "$(stat -c %u "$d1/containers/c1/0/upper/written")"
has "the pod's root cannot mount (its mount namespace is the host's)" "$out1" "mount-denied"
has "a nested user namespace cannot unmount a mask" "$out1" "umount-locked"
has "a nested user namespace cannot make /sys writable" "$out1" "sys-stays-ro"
has "a nested user namespace cannot make /proc/sys writable" "$out1" "procsys-stays-ro"
has "u2 runs as 1000 inside" "$out2" "uid=1000 gid=1000"
check_equal "runAsUser 1000 is host uid <base>+1000" "$((b2 + 1000))" "$(host_uid u2)"
has "u2 writes its Memory emptyDir as 1000" "$out2" "mem=1000"
has "u2 has its fsGroup among its groups" "$out2" ",2000"
has "u2's Memory emptyDir belongs to the fsGroup, setgid, through the idmapped mount" "$out2" "memgroup=2000:drwxrwsrwx"
has "u2's new files inherit the fsGroup" "$out2" "filegroup=2000"

# --- the ranges survive a SIGKILL of the agent; a new pod gets a third one
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
SERVER_PID=
start_node >/dev/null
# a pod made after the restart (checked below, once it runs)
cat <<'JSON' | k create -f - >/dev/null || not_ok "create pod u3"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u3"},
 "spec":{"terminationGracePeriodSeconds":1,"hostUsers":false,
  "containers":[{"name":"c1","image":"busybox","securityContext":{"procMount":"Unmasked"},
   "command":["sh","-c","[ -c /proc/keys ] && echo keys-masked || echo keys-unmasked; [ -w /proc/sys/kernel/shm_rmid_forced ] && echo procsys-rw; sleep 3600"]}]}}
JSON
check_equal "after the restart u1 keeps its range" "$b1" "$(base_of u1)"
has "and its running container its uid_map" "$(k logs u1 2>&1)" "map=0,$b1,65536"

# --- KEP-1287 and KEP-6030 on the restricted, user-namespaced pod: no restart, files intact
vdir="$(pod_dir u2)/volumes/mem"
sums=$(cd "$vdir" && md5sum f*)
df_inside() { k logs u2 --tail=1 | awk '{print $2}'; }
k patch pod u2 --subresource resize -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"cpu":"400m","memory":"512Mi"}}}],"volumes":[{"name":"mem","emptyDir":{"medium":"Memory","sizeLimit":"64Mi"}}]}}' >/dev/null ||
        not_ok "resize u2"
until_equal "the cpu limit is resized" "400m" jp u2 '{.status.containerStatuses[0].resources.limits.cpu}'
until_equal "the memory limit is resized" "512Mi" jp u2 '{.status.containerStatuses[0].resources.limits.memory}'
until_equal "the idmapped tmpfs grows live: df inside 64Mi" "65536" df_inside
check_equal "every file kept, byte for byte" "$sums" "$(cd "$vdir" && md5sum f*)"
check_equal "no restart" "0" "$(jp u2 '{.status.containerStatuses[0].restartCount}')"

# --- the pod made after the restart
check "u3 runs" wait_running u3
b3=$(base_of u3)
if [ -n "$b3" ] && [ "$b3" != "$b1" ] && [ "$b3" != "$b2" ]; then
        ok "a pod started after the restart gets a range no other pod has"
else
        not_ok "a pod started after the restart gets a range no other pod has" "u1 $b1, u2 $b2, u3 $b3"
fi
out3=$(logs_until u3 procsys-rw)
has "procMount Unmasked (allowed with hostUsers false): /proc/keys is not masked" "$out3" "keys-unmasked"
has "procMount Unmasked: /proc/sys is not read-only" "$out3" "procsys-rw"

# --- a pod's range is freed with it and handed out again
check "delete u1" k delete pod u1 --timeout=30s
cat <<'JSON' | k create -f - >/dev/null || not_ok "create pod u4"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u4"},
 "spec":{"terminationGracePeriodSeconds":1,"hostUsers":false,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","sleep 3600"]}]}}
JSON
recorded() { [ -f "$(pod_dir "$1")/userns" ] && echo yes; }
until_equal "u4's range is recorded (before its sandbox is made)" "yes" recorded u4
if [ "$b1" -lt "$b2" ] && [ "$b1" -lt "${b3:-0}" ]; then
        check_equal "the freed range, the lowest, is handed out again" "$b1" "$(base_of u4)"
else
        ok "the freed range is handed out again # SKIP u1's range was not the lowest"
fi

k delete pods --all --timeout=60s >/dev/null 2>&1
k delete pvc --all --timeout=60s >/dev/null 2>&1
tap_done
