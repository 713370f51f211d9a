#!/usr/bin/env bash
# test-attach.sh: a container's own stdin and terminal (spec.containers[].stdin, stdinOnce,
# tty; docs/streaming.md) through the real kubectl, as root: attach -i to a container's stdin
# several times, stdinOnce closing it after the first session, attach -it to its terminal with
# the client's size, the container surviving a session that goes away, and run -it --rm
# answering a read under script(1) with kubectl 1.33 and 1.32.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"echo"},
  "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","stdin":true,
   "command":["sh","-c","while read l; do echo got-$l; done; echo stdin-ended; sleep 3600"]}]}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"once"},
  "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","stdin":true,"stdinOnce":true,
   "command":["sh","-c","while read l; do echo got-$l; done; echo stdin-ended; sleep 3600"]}]}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"term"},
  "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","stdin":true,"tty":true,
   "command":["sh"]}]}}]}
JSON
for p in echo once term; do
        if k wait --for=jsonpath='{.status.phase}'=Running pod/$p --timeout=60s >/dev/null 2>&1; then
                ok "$p is Running"
        else
                not_ok "$p is Running" "$(k get pod $p -o yaml)"
        fi
done

# attach_until POD WORD LINE: `kubectl attach -i POD` writing LINE, its stdin held open until
# WORD came back (60 s at most), then ended (the v5 close of stdin); prints what kubectl printed.
# The input ends only after the output is in: with both at once the session could end before
# its output came (containerd's rule: a session's stdin end ends it).
attach_until() {
        local fifo=$SERVER_DIR/attach.in out=$SERVER_DIR/attach.out pid
        rm -f "$fifo"
        mkfifo "$fifo"
        "$KUBECTL" --cache-dir "$SERVER_DIR/cache" attach -i "$1" <"$fifo" >"$out" 2>&1 &
        pid=$!
        exec 3>"$fifo"
        echo "$3" >&3
        for _ in $(seq 1 600); do
                grep -q "$2" "$out" && break
                sleep 0.1
        done
        exec 3>&-
        for _ in $(seq 1 300); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        cat "$out"
}

# --- stdin: each attach's lines reach the container's stdin; its output comes back
check_output "attach -i writes to the container's stdin and relays its output" "got-one" \
        attach_until echo got-one one
check_output "a second attach -i reaches the same stdin" "got-two" attach_until echo got-two two
check_equal "the stdin stays open after a session ends (no stdinOnce)" "" \
        "$(k logs echo 2>&1 | grep stdin-ended)"
check_equal "the container survived both sessions" "Running" \
        "$(k get pod echo -o jsonpath='{.status.phase}')"

# --- stdinOnce: the first session's end closes the container's stdin
(echo first; sleep 2) | timeout 10 "$KUBECTL" --cache-dir "$SERVER_DIR/cache" attach -i once >/dev/null 2>&1
until_equal "stdinOnce: the stdin is closed after the first session" "stdin-ended" \
        sh -c "$KUBECTL --kubeconfig $KUBECONFIG --cache-dir $SERVER_DIR/cache logs once | grep -o stdin-ended"
check_output "what the first session sent was read before" "got-first" k logs once

# --- a terminal: attach -it under script(1), the client's size, the shell's answer
# the session is ended by killing the client, never by an end of input (script(1) would type
# ^D, which ends the shell, as it would upstream)
tty_out=$( (sleep 2; echo 'tty; stty size; echo sum-$((40+2))'; sleep 30) |
        timeout 8 script -qec "stty cols 93 rows 41; $KUBECTL --cache-dir $SERVER_DIR/cache attach -it term" /dev/null 2>&1)
check_output "attach -it reaches the container's terminal" "sum-42" echo "$tty_out"
check_output "the container's stdio is a terminal of its devpts" "/dev/pts/0" echo "$tty_out"
check_output "the terminal has the client's size (resize channel)" "41 93" echo "$tty_out"
check_output "the terminal's output is in the log" "sum-42" k logs term
check_equal "the container survived the session going away (not restarted)" "Running 0" \
        "$(k get pod term -o jsonpath='{.status.phase} {.status.containerStatuses[0].restartCount}')"

# --- run -it --rm: a read answered from the terminal, then the pod is deleted
for v in 1.32 1.33; do
        if [ "$v" = 1.32 ]; then kb=$KUBECTL; else kb=$KUBECTL_DIR/kubectl.$v; fi
        name=rr${v/./}
        run_out=$( (sleep 4; echo hello-run; sleep 3) | timeout 60 script -qec \
                "$kb --kubeconfig $KUBECONFIG --cache-dir $SERVER_DIR/cache-$v run $name --image=busybox --restart=Never -it --rm -- sh -c 'read x; echo got \$x'" /dev/null 2>&1)
        check_output "run -it --rm (kubectl $v): the read gets the line" "got hello-run" echo "$run_out"
        check_output "run -it --rm (kubectl $v): the pod is deleted" "pod \"$name\" deleted" echo "$run_out"
done

server_check_log
tap_done
