#!/usr/bin/env bash
# test-exec.sh: kubectl exec, attach, cp and run -it against real pods, as root
# (docs/streaming.md): the exec'd process inside the container's cgroup, namespaces and
# confinement (it reads its resized memory limit, sees only the pod's processes, cannot write
# the host), exit codes, a terminal with its size under script(1), stdin, 20 MiB through kubectl
# cp both ways, attach to a running container's output, run -it --rm, and exec refused to a user
# bound to the view role, with kubectl 1.32 and (exec, exit code, stdin, cp) 1.33 (port-forward:
# test-port-forward.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c1","image":"busybox",
                 "command":["sh","-c","i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.5; done"],
                 "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}}]}}
JSON
if k wait --for=jsonpath='{.status.phase}'=Running pod/web --timeout=60s >/dev/null 2>&1; then
        ok "web is Running"
else
        not_ok "web is Running" "$(k get pod web -o yaml)"
fi

# --- the container's cgroup, as the process inside reads it, before and after a resize
if [ -n "$CGROUP_V2" ]; then mem_file=/sys/fs/cgroup/memory.max; else mem_file=/sys/fs/cgroup/memory/memory.limit_in_bytes; fi
check_equal "exec reads the container's memory limit" "134217728" "$(k exec web -- cat "$mem_file" 2>&1)"
k patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"limits":{"memory":"192Mi"}}}]}}' >/dev/null
until_equal "exec reads the new limit right after the resize" "201326592" k exec web -- cat "$mem_file"

# --- exit codes and errors
out=$(k exec web -- sh -c 'echo out; echo err >&2; exit 3' 2>&1)
rc=$?
check_equal "exit code 3 is kubectl's exit code" "3" "$rc"
check_output "kubectl says the command's exit code" "command terminated with exit code 3" echo "$out"
check_output "stdout and stderr both arrive" "err" echo "$out"
check_output "a missing command is the runtime's error" \
        'executable file not found in $PATH' k exec web -- no-such-command

# --- confinement: the container's pids, root, capabilities and cgroup
# pid 1 of what exec sees is the pod's sandbox, and the host's hundreds of processes are not there
pids=$(k exec web -- sh -c 'tr "\0" " " </proc/1/cmdline; echo; ls -d /proc/[0-9]* | wc -l' 2>&1)
case "$(echo "$pids" | sed -n 1p)" in
*supervise*--sandbox*) ok "exec's pid 1 is the pod's sandbox" ;;
*) not_ok "exec's pid 1 is the pod's sandbox" "$pids" ;;
esac
if [ "$(echo "$pids" | sed -n 2p | tr -d " ")" -le 20 ] 2>/dev/null; then
        ok "exec sees only the pod's few processes"
else
        not_ok "exec sees only the pod's few processes" "$pids"
fi
marker=flexlet-exec-escape-$$
k exec web -- sh -c "echo x > /$marker; echo x > /tmp/$marker" >/dev/null 2>&1
if [ ! -e "/$marker" ] && [ ! -e "/tmp/$marker" ]; then
        ok "what exec writes stays in the container's root"
else
        rm -f "/$marker" "/tmp/$marker"
        not_ok "what exec writes stays in the container's root"
fi
check_equal "exec gets the container's default capabilities" "CapEff:	00000000a80425fb" \
        "$(k exec web -- grep CapEff /proc/self/status 2>&1)"
# the container's process is pid 2 of the pod (1 is the sandbox): the same ids, groups,
# capability sets, no_new_privs and seccomp mode as the exec'd process
conf=$(k exec web -- sh -c 'for f in /proc/2/status /proc/self/status; do grep -E "^(Uid|Gid|Groups|CapBnd|CapEff|CapPrm|NoNewPrivs|Seccomp):" $f | tr -s "\t " " " | tr "\n" ";"; echo; done' 2>&1)
if [ "$(echo "$conf" | sed -n 1p)" = "$(echo "$conf" | sed -n 2p)" ] && [ -n "$(echo "$conf" | sed -n 1p)" ]; then
        ok "exec is confined exactly as the container's process (ids, capabilities, no_new_privs, seccomp)"
else
        not_ok "exec is confined exactly as the container's process (ids, capabilities, no_new_privs, seccomp)" "$conf"
fi
cpid=$(k exec web -- sh -c 'cat /proc/self/stat' 2>/dev/null | awk '{print $1}')
uid=$(k get pod web -o jsonpath='{.metadata.uid}')
if [ -n "$CGROUP_V2" ]; then
        check_equal "exec's cgroup is the container's (its own namespace's root)" "0::/" \
                "$(k exec web -- cat /proc/self/cgroup 2>&1)"
else
        mine=$(k exec web -- sh -c 'grep :memory: /proc/self/cgroup' 2>&1)
        case "$mine" in
        *"pod$uid/"*) ok "exec's memory cgroup is the container's" ;;
        *) not_ok "exec's memory cgroup is the container's" "$mine (pid $cpid)" ;;
        esac
fi

# --- stdin, and a terminal under script(1) with its size and TERM
check_equal "stdin reaches the process and its end ends it" "3" \
        "$(printf 'a\nb\nc\n' | k exec -i web -- wc -l 2>&1 | tr -d ' ')"
tty_out=$( (sleep 1; echo 'tty; stty size; echo $TERM; exit 4') |
        script -qec "stty cols 91 rows 37; $KUBECTL --cache-dir $SERVER_DIR/cache exec -it web -- sh" /dev/null 2>&1)
check_output "exec -it gets a terminal of the container's devpts" "/dev/pts/0" echo "$tty_out"
check_output "the terminal has the client's size (resize channel)" "37 91" echo "$tty_out"
check_output "TERM is xterm" "xterm" echo "$tty_out"
check_output "the shell's exit code comes back through the terminal session" \
        "command terminated with exit code 4" echo "$tty_out"

# --- kubectl cp, 20 MiB both ways
head -c 20971520 /dev/urandom >"$SERVER_DIR/big"
want=$(sha256sum <"$SERVER_DIR/big" | cut -d' ' -f1)
check "kubectl cp copies 20 MiB into the pod" k cp "$SERVER_DIR/big" web:/tmp/big
check_equal "the copy in the pod has the same sha256" "$want" \
        "$(k exec web -- sha256sum /tmp/big 2>&1 | cut -d' ' -f1)"
check "kubectl cp copies it back out" k cp web:/tmp/big "$SERVER_DIR/back"
check_equal "the copy out has the same sha256" "$want" "$(sha256sum <"$SERVER_DIR/back" | cut -d' ' -f1)"

# --- the same through kubectl 1.33 (its WebSocket defaults; the above is the default 1.32)
check_equal "kubectl 1.33: exec reads the resized limit" "201326592" "$(kv 1.33 exec web -- cat "$mem_file" 2>&1)"
out=$(kv 1.33 exec web -- sh -c 'exit 5' 2>&1)
rc=$?
check_equal "kubectl 1.33: the exit code and its words" "5|command terminated with exit code 5" "$rc|$out"
check_equal "kubectl 1.33: stdin reaches the process" "2" \
        "$(printf 'a\nb\n' | kv 1.33 exec -i web -- wc -l 2>&1 | tr -d ' ')"
check "kubectl 1.33: cp copies the 20 MiB out" kv 1.33 cp web:/tmp/big "$SERVER_DIR/back-1.33"
check_equal "kubectl 1.33: the copy out has the same sha256" "$want" \
        "$(sha256sum <"$SERVER_DIR/back-1.33" | cut -d' ' -f1)"

# --- attach to the running container's output
att=$(timeout 3 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" attach web 2>&1)
check_output "attach relays the container's output as it is written" "tick" echo "$att"

# --- run -it --rm of a short command: its output through the attach when kubectl attaches while
# it runs, through its logs when it ended first (kubectl run's handleAttachPod). kubectl's stdin
# stays open past the command's end (an EOF ends the session and --rm deletes the pod before it
# prints); a bare echo could print between the pod turning Running and the attach, where its
# output reaches neither, as upstream (a read answered through the terminal: test-attach.sh)
run_out=$(k run -it --rm --restart=Never --image=busybox r1 -- sh -c 'sleep 2; echo hello-run' 2>&1 < <(sleep 6))
check_output "run -it --rm shows the command's output" "hello-run" echo "$run_out"
check_output "run -it --rm deletes the pod" 'pod "r1" deleted' echo "$run_out"

# --- authorization: a user with only the view role may not exec
k create serviceaccount viewer >/dev/null
k create rolebinding viewer --clusterrole=view --serviceaccount=default:viewer >/dev/null
tok=$(k create token viewer)
cp "$KUBECONFIG" "$SERVER_DIR/viewer.kubeconfig"
KUBECONFIG=$SERVER_DIR/viewer.kubeconfig k config set-credentials viewer --token="$tok" >/dev/null
KUBECONFIG=$SERVER_DIR/viewer.kubeconfig k config set-context --current --user=viewer >/dev/null
check_equal "the viewer may get pods" "web" \
        "$(KUBECONFIG=$SERVER_DIR/viewer.kubeconfig k get pod web -o name 2>&1 | sed 's|pod/||')"
check_output "the viewer may not exec (403 on pods/exec)" \
        'cannot create resource "pods/exec" in API group "" in the namespace "default"' \
        env KUBECONFIG="$SERVER_DIR/viewer.kubeconfig" "$KUBECTL" --cache-dir "$SERVER_DIR/cache" exec web -- true

server_check_log
tap_done
