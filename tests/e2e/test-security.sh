#!/usr/bin/env bash
# test-security.sh: containers confined as containerd confines them, through kubectl, as root:
# the default capability set, masked and read-only /proc paths, drop [ALL], privileged,
# readOnlyRootFilesystem, allowPrivilegeEscalation false (no_new_privs), seccomp RuntimeDefault
# and Localhost, pod-level ids and supplementalGroups, sysctls, and the refusals upstream makes
# (runAsNonRoot with a root image, unknown capabilities, unsafe sysctls) or that this node makes
# for what it does not implement. Each container prints what it sees; `kubectl logs` reads it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

host_shm=$(cat /proc/sys/kernel/shm_rmid_forced)
node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# A Localhost profile: everything allowed but mkdir, which fails with EPERM.
mkdir -p "$SERVER_DIR/data/seccomp/profiles"
cat >"$SERVER_DIR/data/seccomp/profiles/no-mkdir.json" <<'JSON'
{"defaultAction":"SCMP_ACT_ALLOW",
 "syscalls":[{"names":["mkdir","mkdirat"],"action":"SCMP_ACT_ERRNO","errnoRet":1}]}
JSON

status="grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status"
# pod NAME POD-SECURITY-CONTEXT CONTAINER-SECURITY-CONTEXT COMMAND
pod() {
        cat <<JSON | k create -f - >/dev/null || not_ok "create pod $1"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never","securityContext":$2,
  "containers":[{"name":"c1","image":"busybox","securityContext":$3,"command":["sh","-c","$4"]}]}}
JSON
}

pod default '{}' '{}' "$status; [ -c /proc/keys ] && echo keys-masked; [ ! -e /proc/kcore ] || [ -c /proc/kcore ] && echo kcore-masked; [ -d /sys/firmware ] && [ \$(ls /sys/firmware | wc -l) = 0 ] && echo firmware-masked; echo 1 > /proc/sys/kernel/shm_rmid_forced && echo sys-writable || echo sys-readonly; touch /sys/x 2>/dev/null || echo sysfs-readonly; unshare -U true && echo unshare-ok; echo pid=\$(readlink /proc/self/ns/pid)"
pod dropall '{}' '{"capabilities":{"drop":["ALL"]}}' "$status"
pod addone '{}' '{"capabilities":{"drop":["all"],"add":["NET_BIND_SERVICE","cap_chown"]}}' "$status"
pod privileged '{}' '{"privileged":true}' "$status; [ -c /proc/keys ] || echo keys-unmasked; [ \$(ls /sys/firmware | wc -l) != 0 ] && echo firmware-unmasked; test -c /dev/kmsg && echo host-devices; echo exe=\$(readlink /proc/1/exe); (echo x >>/proc/1/exe) 2>&1; exec 3</proc/1/exe && (echo x >/proc/self/fd/3) 2>&1"
pod rofs '{}' '{"readOnlyRootFilesystem":true}' "touch /x 2>&1 || echo root-readonly; touch /dev/shm/x && echo shm-writable"
pod nnp '{}' '{"allowPrivilegeEscalation":false}' "$status"
pod rtdefault '{"seccompProfile":{"type":"RuntimeDefault"}}' '{}' "$status; unshare -U true 2>&1 || echo unshare-denied"
pod localhost '{}' '{"seccompProfile":{"type":"Localhost","localhostProfile":"profiles/no-mkdir.json"}}' "$status; mkdir /tmp/d 2>&1 || echo mkdir-denied"
pod ids '{"runAsUser":1000,"runAsGroup":3000,"supplementalGroups":[4000]}' '{}' "id; $status"
pod override '{"runAsUser":1000,"runAsGroup":3000}' '{"runAsUser":2000}' "id"
pod sysctl '{"sysctls":[{"name":"kernel.shm_rmid_forced","value":"1"}]}' '{}' "echo shm_rmid_forced=\$(cat /proc/sys/kernel/shm_rmid_forced)"
cat <<'JSON' | k create -f - >/dev/null || not_ok "create pod hostns"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"hostns"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never","hostPID":true,"hostIPC":true,
  "containers":[{"name":"c1","image":"busybox","command":["sh","-c","echo pid=$(readlink /proc/self/ns/pid) ipc=$(readlink /proc/self/ns/ipc)"]}]}}
JSON
# K8S terminationMessagePath/Policy: the file, the log's tail as the fallback, a link planted at
# the path by a volume (it resolves inside the container: the host's /etc/passwd stays as it is),
# and the file under readOnlyRootFilesystem in a user namespace as a non-root user
passwd_sum=$(md5sum </etc/passwd)
tmsg() { # tmsg NAME POD-EXTRA CONTAINER-EXTRA COMMAND
        cat <<JSON | k create -f - >/dev/null || not_ok "create pod $1"
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$1"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never"$2,
  "containers":[{"name":"c1","image":"busybox"$3,"command":["sh","-c","$4"]}]}}
JSON
}
tmsg tmsg-file '' '' "printf 'bye from the file' >/dev/termination-log"
tmsg tmsg-fallback '' ',"terminationMessagePolicy":"FallbackToLogsOnError"' "for i in \$(seq 1 100); do echo line \$i; done; exit 3"
tmsg tmsg-fallback-ok '' ',"terminationMessagePolicy":"FallbackToLogsOnError"' "echo not-a-message"
tmsg tmsg-fallback-file '' ',"terminationMessagePolicy":"FallbackToLogsOnError"' "echo log; printf from-file >/dev/termination-log; exit 1"
tmsg tmsg-big '' '' "i=0; while [ \$i -lt 600 ]; do printf '0123456789'; i=\$((i+1)); done >/dev/termination-log; printf END >>/dev/termination-log"
tmsg tmsg-link ',"volumes":[{"name":"t","emptyDir":{}}],"initContainers":[{"name":"i","image":"busybox","command":["ln","-s","/etc/passwd","/t/msg"],"volumeMounts":[{"name":"t","mountPath":"/t"}]}]' \
        ',"terminationMessagePath":"/t/msg","volumeMounts":[{"name":"t","mountPath":"/t"}]' "printf pwned >/t/msg"
tmsg tmsg-userns ',"hostUsers":false,"securityContext":{"runAsUser":1000,"runAsGroup":1000}' \
        ',"securityContext":{"readOnlyRootFilesystem":true}' "printf ro-userns >/dev/termination-log"
pod nonroot '{"runAsNonRoot":true}' '{}' "true"
pod rootuser '{}' '{"runAsNonRoot":true,"runAsUser":0}' "true"
pod badcap '{}' '{"capabilities":{"add":["NOPE"]}}' "true"
pod unsafe '{"sysctls":[{"name":"kernel.msgmax","value":"65536"}]}' '{}' "true"
pod noprofile '{}' '{"seccompProfile":{"type":"Localhost","localhostProfile":"missing.json"}}' "true"

done_pod() {
        for _ in $(seq 1 300); do
                case $(k get pod "$1" -o jsonpath='{.status.phase}' 2>&1) in
                Succeeded | Failed | *NotFound*) return ;;
                esac
                sleep 0.2
        done
}
waiting() {
        k get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}: {.status.containerStatuses[0].state.waiting.message}'
}
logs() {
        done_pod "$1"
        k logs "$1" 2>&1
}
has() { # has WHAT POD TEXT
        local out
        out=$(logs "$2")
        case "$out" in
        *"$3"*) ok "$1" ;;
        *) not_ok "$1" "want: $3"$'\n'"got: $out" ;;
        esac
}
lacks() { # lacks WHAT POD TEXT
        local out
        out=$(logs "$2")
        case "$out" in
        *"$3"*) not_ok "$1" "did not want: $3"$'\n'"got: $out" ;;
        *) ok "$1" ;;
        esac
}

# --- the runtime default
has "default CapEff is containerd's set" default "CapEff:	00000000a80425fb"
has "default bounding set is the same" default "CapBnd:	00000000a80425fb"
has "default: no seccomp filter (Unconfined)" default "Seccomp:	0"
has "default: no no_new_privs" default "NoNewPrivs:	0"
has "/proc/keys is masked (/dev/null over it)" default "keys-masked"
has "/proc/kcore is masked (where the kernel has one)" default "kcore-masked"
has "/sys/firmware is masked (an empty tmpfs)" default "firmware-masked"
has "/proc/sys is read-only" default "sys-readonly"
has "/sys is read-only" default "sysfs-readonly"
has "without seccomp, unshare -U works" default "unshare-ok"

# --- securityContext
has "drop [ALL] gives CapEff 0" dropall "CapEff:	0000000000000000"
has "drop [ALL] empties the bounding set" dropall "CapBnd:	0000000000000000"
has "drop [all] add [NET_BIND_SERVICE, cap_chown] gives those two" addone "CapEff:	0000000000000401"
full=$(awk '/^CapPrm:/ {print $2}' /proc/self/status)
has "privileged gets every capability (the agent's own)" privileged "CapEff:	$full"
has "privileged: /proc/keys is not masked" privileged "keys-unmasked"
has "privileged: /sys/firmware is not masked" privileged "firmware-unmasked"
has "privileged: the host's devices" privileged "host-devices"
has "privileged: no seccomp filter" privileged "Seccomp:	0"
# runc's CVE-2019-5736 defence: the pod's pid 1 (and every flexlet process) runs a read-only view
# the pod's helpers run the small static flexlet-helper built beside flexlet (issue 16)
helper_bin="$(dirname "$FLEXLET_BIN")/flexlet-helper"
has "privileged: /proc/1/exe is not the host's binary" privileged "exe=/$(basename "$helper_bin")"
has "privileged: /proc/1/exe cannot be opened for writing (read-only, not merely busy)" privileged \
        "can't create /proc/1/exe: Read-only file system"
has "privileged: nor can an fd of it be reopened for writing" privileged \
        "can't create /proc/self/fd/3: Read-only file system"
unsealed="" checked=0 not_small="" helpers=0
for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" = "$SERVER_PID" ] || { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$SERVER_DIR/data/pods/" || continue
        checked=$((checked + 1))
        [ "$(stat -L -f -c %T "/proc/$p/exe" 2>/dev/null)" = overlayfs ] && ! (: >>"/proc/$p/exe") 2>/dev/null ||
                unsealed="$unsealed $p"
        # a helper (not a container's own process) runs flexlet-helper and maps no shared library
        [ "$p" != "$SERVER_PID" ] && { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q " supervise " || continue
        helpers=$((helpers + 1))
        cmp -s "/proc/$p/exe" "$helper_bin" && ! grep -qE '\.so(\.[0-9]+)*$' "/proc/$p/maps" ||
                not_small="$not_small $p"
done
check_equal "the agent and every helper ($checked processes) run from the sealed, read-only binary (host root cannot write it either)" "" "$unsealed"
check_equal "the sealed view is the built binary" "" "$(cmp "/proc/$SERVER_PID/exe" "$FLEXLET_BIN" 2>&1)"
check_equal "every helper ($helpers processes) runs the static flexlet-helper: no shared library mapped (libgnutls, libcurl...)" \
        "" "$not_small$([ "$helpers" -gt 0 ] || echo none)"
has "readOnlyRootFilesystem makes writes to the root fail" rofs "Read-only file system"
has "readOnlyRootFilesystem leaves /dev/shm writable" rofs "shm-writable"
has "allowPrivilegeEscalation false gives NoNewPrivs 1" nnp "NoNewPrivs:	1"
has "RuntimeDefault gives Seccomp 2" rtdefault "Seccomp:	2"
has "RuntimeDefault denies unshare -U" rtdefault "unshare-denied"
lacks "RuntimeDefault without allowPrivilegeEscalation false keeps no_new_privs off" rtdefault "NoNewPrivs:	1"
has "a Localhost profile is loaded" localhost "Seccomp:	2"
has "the Localhost profile denies mkdir" localhost "mkdir-denied"
has "pod-level runAsUser, runAsGroup and supplementalGroups in id" ids "uid=1000 gid=3000 groups=3000,4000"
has "a non-root user has no effective capabilities" ids "CapEff:	0000000000000000"
has "the container's runAsUser overrides the pod's" override "uid=2000 gid=3000"
has "a safe sysctl is set in the pod's namespace" sysctl "shm_rmid_forced=1"
has "hostPID keeps the host's pid namespace" hostns "pid=$(readlink /proc/self/ns/pid)"
has "hostIPC keeps the host's ipc namespace" hostns "ipc=$(readlink /proc/self/ns/ipc)"
lacks "without hostPID the pod has its own pid namespace" default "pid=$(readlink /proc/self/ns/pid)"
check_equal "the host's kernel.shm_rmid_forced is untouched" "$host_shm" "$(cat /proc/sys/kernel/shm_rmid_forced)"

# --- termination messages
tmessage() { # tmessage POD: its container's state.terminated.message
        done_pod "$1"
        k get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.terminated.message}'
}
check_equal "terminationMessagePath: the file's text is state.terminated.message" "bye from the file" "$(tmessage tmsg-file)"
got=$(tmessage tmsg-fallback)
check_equal "FallbackToLogsOnError: a failed container's message is the log's last 80 lines" \
        "line 21|line 100|80" "$(head -1 <<<"$got")|$(tail -1 <<<"$got")|$(wc -l <<<"$got")"
check_equal "FallbackToLogsOnError: a container that succeeded has no message" "" "$(tmessage tmsg-fallback-ok)"
check_equal "FallbackToLogsOnError: the file wins over the log" "from-file" "$(tmessage tmsg-fallback-file)"
got=$(tmessage tmsg-big)
check_equal "a longer file gives its last 4096 bytes" "4096 END" "${#got} ${got: -3}"
check_equal "a link a volume planted at the path resolves inside the container: the file is still the message" "pwned" "$(tmessage tmsg-link)"
check_equal "and the host's file the link names is untouched" "$passwd_sum" "$(md5sum </etc/passwd)"
check_equal "a non-root user in a user namespace with a read-only root writes it" "ro-userns" "$(tmessage tmsg-userns)"

# --- refusals: CreateContainerConfigError with upstream's message, the container never starts
until_refused() { # until_refused WHAT POD TEXT
        local got=""
        for _ in $(seq 1 150); do
                got=$(waiting "$2")
                case "$got" in *"$3"*) break ;; esac
                sleep 0.2
        done
        case "$got" in
        *"$3"*) ok "$1" ;;
        *) not_ok "$1" "want: $3"$'\n'"got: $got" ;;
        esac
}
nonroot_uid=$(k get pod nonroot -o jsonpath='{.metadata.uid}')
until_refused "runAsNonRoot refuses a root image with upstream's message" nonroot \
        "CreateContainerConfigError: container has runAsNonRoot and image will run as root (pod: \"nonroot_default($nonroot_uid)\", container: c1)"
until_refused "runAsNonRoot with runAsUser 0 is refused" rootuser \
        "CreateContainerConfigError: container's runAsUser breaks non-root policy"
until_refused "an unknown capability is refused" badcap 'CreateContainerConfigError: container c1: unknown capability "NOPE"'
until_refused "an unsafe sysctl is refused" unsafe 'CreateContainerConfigError: forbidden sysctl: "kernel.msgmax" not allowlisted'
until_refused "a missing Localhost profile fails the start" noprofile "CreateContainerError: cannot load seccomp profile"
# K8S validation (validateHostUsers, ValidateSecurityContext): refused by the API server
check_output "procMount Unmasked without hostUsers false is refused with upstream's words" \
        'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`' \
        k create -f - <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"procmount"},
 "spec":{"containers":[{"name":"c1","image":"busybox","securityContext":{"procMount":"Unmasked"}}]}}
JSON
check_output "hostUsers false with hostNetwork is refused, as upstream's validation does" \
        'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false' \
        k create -f - <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"userns"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never","hostUsers":false,"hostNetwork":true,
  "containers":[{"name":"c1","image":"busybox","command":["true"]}]}}
JSON

k delete pods --all --timeout=60s >/dev/null 2>&1
tap_done
