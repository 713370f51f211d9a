#!/usr/bin/env bash
# test-subpath.sh: volume subPaths cannot leave their volume (CVE-2017-1002101), end to end, as
# root, through kubectl. A pod's own symbolic links (absolute, a "../.." chain, to a file, one
# swapped in while the containers start) never mount anything of the host: the kubelet's check
# fails the container with CreateContainerConfigError and upstream's message, or the runtime's
# resolution keeps it inside the volume; nothing appears on the host outside the volume.
# Legitimate subPaths (nested, missing and made, a file, a link inside, subPathExpr) still work.
# Two neighbours of the same kind: the pod's pid 1 shows no root of the host's (/proc/1/root),
# and no fd of the runtime leads a workingDir out (/proc/self/fd/N, runc's CVE-2024-21626).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

# what a pod that escaped would touch: a sentinel it would see, markers it would leave
MARK=flexlet-subpath-escape-$$
SENTINEL=/tmp/flexlet-subpath-sentinel-$$
subpath_cleanup() {
        rm -f "$SENTINEL" "/tmp/$MARK" "/$MARK" "/etc/$MARK"
        rm -rf "/tmp/$MARK-dir"
        node_cleanup
}
SERVER_CLEANUP=subpath_cleanup
echo host-only >"$SENTINEL"

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# escape_cmd: what every container runs: report the host's sentinel if it can see it, write
# the marker where its subPath mount is, then stay.
escape_cmd="if [ -e /mnt/tmp/${SENTINEL#/tmp/} ] || [ -e /mnt/${SENTINEL#/tmp/} ]; then echo ESCAPED; fi; touch /mnt/$MARK /mnt/tmp/$MARK 2>/dev/null; ls /mnt; echo done; exec sleep 3600"

# the four pods start together; the checks below take them in turn

# --- a link swapped in while the containers start: a sidecar swaps "x" between a directory
# and a link to / as fast as it can; every container mounting subPath x either is refused or
# gets something inside the volume
race_container() {
        echo "{\"name\":\"r$1\",\"image\":\"busybox\",\"command\":[\"sh\",\"-c\",\"$escape_cmd\"],
    \"volumeMounts\":[{\"name\":\"vol\",\"mountPath\":\"/mnt\",\"subPath\":\"x\"}]}"
}

# --- a workingDir through the runtime's own fds (runc's CVE-2024-21626): no fd of the
# supervisor is left to lead out of the root
wd_container() {
        echo "{\"name\":\"wd$1\",\"image\":\"busybox\",\"workingDir\":\"/proc/self/fd/$1\",
    \"command\":[\"sh\",\"-c\",\"ls ../../../../../../../../../tmp; echo done\"]}"
}

# --- escapes refused by the kubelet's check
cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"refused"},
 "spec":{"terminationGracePeriodSeconds":1,
  "initContainers":[{"name":"links","image":"busybox","command":["sh","-c",
    "ln -s / /vol/abs && mkdir -p /vol/a/b && ln -s ../../../../../../../../.. /vol/a/b/up && ln -s /etc/hostname /vol/hostfile && ln -s /tmp/nonexistent-$$ /vol/dangling"],
    "volumeMounts":[{"name":"vol","mountPath":"/vol"}]}],
  "containers":[
   {"name":"abs","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPath":"abs"}]},
   {"name":"rel","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPath":"a/b/up/tmp"}]},
   {"name":"file","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt/hostname","subPath":"hostfile"}]},
   {"name":"dangling","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPath":"dangling/x"}]},
   {"name":"made","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPath":"abs/tmp/$MARK-dir/x"}]},
   {"name":"expr-missing","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPathExpr":"\$(NOPE)/\$(EMPTY)"}],
    "env":[{"name":"EMPTY","value":""}]},
   {"name":"expr-abs","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPathExpr":"\$(ROOT)tmp"}],
    "env":[{"name":"ROOT","value":"/"}]},
   {"name":"expr-up","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPathExpr":"x/\$(UP)/\$(UP)"}],
    "env":[{"name":"UP","value":".."}]},
   {"name":"expr-link","image":"busybox","command":["sh","-c","$escape_cmd"],
    "volumeMounts":[{"name":"vol","mountPath":"/mnt","subPathExpr":"\$(LINK)"}],
    "env":[{"name":"LINK","value":"abs"}]}],
  "volumes":[{"name":"vol","emptyDir":{}}]}}
JSON
cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"race"},
 "spec":{"terminationGracePeriodSeconds":1,
  "initContainers":[{"name":"swapper","image":"busybox","restartPolicy":"Always","command":["sh","-c",
    "cd /vol; while :; do rm -rf x; ln -s / x; rm -f x; mkdir x; done"],
    "volumeMounts":[{"name":"vol","mountPath":"/vol"}]}],
  "containers":[$(race_container 1),$(race_container 2),$(race_container 3),$(race_container 4)],
  "volumes":[{"name":"vol","emptyDir":{}}]}}
JSON
cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"legit"},
 "spec":{"terminationGracePeriodSeconds":1,
  "initContainers":[{"name":"setup","image":"busybox","command":["sh","-c",
    "mkdir -p /vol/data/nested/dir && echo nested > /vol/data/nested/dir/f && echo cfg > /vol/cfg.txt && ln -s data/nested /vol/inlink"],
    "volumeMounts":[{"name":"vol","mountPath":"/vol"}]}],
  "containers":[{"name":"c","image":"busybox","command":["sh","-c",
    "cat /a/f /etc/app.cfg /d/dir/f; touch /b/made /e/expr && echo ok-written; (echo x > /ro/f) 2>/dev/null || echo ro-refused; if [ -e /proc/1/root$SENTINEL ]; then echo pid1-root-is-the-hosts; else echo pid1-root-empty; fi; echo ready; exec sleep 3600"],
    "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"SUB","value":"per-\$(POD)"}],
    "volumeMounts":[{"name":"vol","mountPath":"/a","subPath":"data/nested/dir"},
                    {"name":"vol","mountPath":"/b","subPath":"missing/new/dir"},
                    {"name":"vol","mountPath":"/etc/app.cfg","subPath":"cfg.txt"},
                    {"name":"vol","mountPath":"/d","subPath":"inlink"},
                    {"name":"vol","mountPath":"/e","subPathExpr":"\$(SUB)"},
                    {"name":"vol","mountPath":"/ro","subPath":"data","readOnly":true}]}],
  "volumes":[{"name":"vol","emptyDir":{}}]}}
JSON
cat <<JSON | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"workdir"},
 "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never",
  "containers":[$(wd_container 3),$(wd_container 4),$(wd_container 5),$(wd_container 6),$(wd_container 7),$(wd_container 8)]}}
JSON

# waiting_of POD CONTAINER: "reason: message" of the container's waiting state
waiting_of() {
        k get pod "$1" -o jsonpath="{.status.containerStatuses[?(@.name==\"$2\")].state.waiting.reason}: {.status.containerStatuses[?(@.name==\"$2\")].state.waiting.message}"
}
prepare_msg() {
        echo "CreateContainerConfigError: failed to prepare subPath for volumeMount \"vol\" of container \"$1\""
}
until_equal "an absolute link (abs -> /) is refused" "$(prepare_msg abs)" waiting_of refused abs
# the rest from one read of the pod (kubectl is slow to start on a busy machine)
refused_states=$(k get pod refused -o jsonpath='{range .status.containerStatuses[*]}{.name}={.state.waiting.reason}: {.state.waiting.message}{"\n"}{end}')
waiting_of() {
        echo "$refused_states" | sed -n "s/^$2=//p"
}
check_equal "a relative ../.. chain is refused" "$(prepare_msg rel)" "$(waiting_of refused rel)"
check_equal "a link to a host file is refused" "$(prepare_msg file)" "$(waiting_of refused file)"
check_equal "a missing subPath below a dangling absolute link is refused" "$(prepare_msg dangling)" \
        "$(waiting_of refused dangling)"
check_equal "a missing subPath below an absolute link is refused" "$(prepare_msg made)" \
        "$(waiting_of refused made)"
check_fails "and nothing of it was made on the host" test -e "/tmp/$MARK-dir"
check_equal "subPathExpr with a missing or empty variable" \
        "CreateContainerConfigError: missing value for EMPTY, NOPE" "$(waiting_of refused expr-missing)"
check_equal "subPathExpr that expands to an absolute path" \
        'CreateContainerConfigError: error SubPath `/tmp` must not be an absolute path' \
        "$(waiting_of refused expr-abs)"
check_equal "subPathExpr that expands to .." \
        "CreateContainerConfigError: unable to provision SubPath \`x/../..\`: must not contain '..'" \
        "$(waiting_of refused expr-up)"
check_equal "subPathExpr that expands to an escaping link" "$(prepare_msg expr-link)" \
        "$(waiting_of refused expr-link)"
check_output "the refusal is a Failed event with the kubelet's words" \
        "Error: failed to prepare subPath for volumeMount \"vol\" of container \"abs\"" \
        k get events -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
uid=$(k get pod refused -o jsonpath='{.metadata.uid}')
vol="$SERVER_DIR/data/pods/$uid/volumes/vol"
if [ -L "$vol/dangling" ] && [ ! -e /tmp/nonexistent-$$ ]; then
        ok "nothing was made through the dangling link"
else
        not_ok "nothing was made through the dangling link" "$(ls -la "$vol" /tmp/nonexistent-$$ 2>&1)"
fi

# --- the race: a racer that printed "done" ran; the others are refused or not started yet
race_logs=""
ran=0
for _ in $(seq 1 100); do
        race_logs=$(k logs race --all-containers --prefix 2>/dev/null)
        ran=$(echo "$race_logs" | grep -c "/r[1-4]\] done$")
        [ "$ran" -ge 1 ] && break
        sleep 0.2
done
if [ "$ran" -ge 1 ]; then ok "containers start while the link is being swapped ($ran of 4 ran)"; else
        not_ok "containers start while the link is being swapped" "$(k get pod race -o yaml)"; fi
check_equal "no racer saw the host's root" "" "$(echo "$race_logs" | grep ESCAPED)"
# what a racer lists at /mnt is the volume (x, or its marker), never a host directory; which of
# the two it got is the race's, so only the host's part is checked
check_equal "no racer's /mnt lists a host directory" "" \
        "$(echo "$race_logs" | grep -E "/r[1-4]\] (proc|sys|usr|etc)$")"
k delete pod race --wait=false >/dev/null 2>&1 # its swapper spins: stop it early

# --- legitimate subPaths
until_equal "the legitimate subPaths pod runs" "Running" k get pod legit -o jsonpath='{.status.phase}'
legit_ready() { k logs legit -c c 2>/dev/null | grep -x ready; }
until_equal "its container is ready" "ready" legit_ready
logs=$(k logs legit -c c 2>&1)
check_equal "nested dir, file and in-volume link subPaths show their content; the pod's pid 1 (/proc/1/root) does not show the host's root" \
        "nested cfg nested ok-written ro-refused pid1-root-empty" "$(echo "$logs" | grep -v ready | tr '\n' ' ' | sed 's/ $//')"
legit_uid=$(k get pod legit -o jsonpath='{.metadata.uid}')
legit_vol="$SERVER_DIR/data/pods/$legit_uid/volumes/vol"
check_equal "a missing subPath is made inside the volume, with the volume's mode" "777" \
        "$(stat -c %a "$legit_vol/missing/new/dir" 2>&1)"
check "what the container wrote is in it" test -f "$legit_vol/missing/new/dir/made"
check "subPathExpr expands the container's env (per-\$(POD) → per-legit)" test -f "$legit_vol/per-legit/expr"

# --- the workingDirs through the runtime's fds
until_equal "a workingDir of /proc/self/fd/N ends the pod" "Failed" k get pod workdir -o jsonpath='{.status.phase}'
check_equal "no container's working dir is on the host" "" \
        "$(k logs workdir --all-containers --prefix 2>/dev/null | grep -F "${SENTINEL#/tmp/}")"
check_output "the refusal is a StartError" "StartError" \
        k get pod workdir -o jsonpath='{.status.containerStatuses[*].state.terminated.reason}'

# --- nothing anywhere on the host
leaks=$(ls -d "/$MARK" "/tmp/$MARK" "/etc/$MARK" 2>/dev/null)
check_equal "no marker outside the volumes on the host" "" "$leaks"
check_equal "the host's sentinel is untouched" "host-only" "$(cat "$SENTINEL")"

k delete pod refused legit workdir --timeout=30s >/dev/null 2>&1
tap_done
