#!/usr/bin/env bash
# test-pod-security.sh: Pod Security Admission through the real kubectl (1.33 and 1.32) against
# `flexlet apiserver` on a free loopback port: a restricted namespace refuses a root pod with
# upstream's `violates PodSecurity "restricted:latest"` message, a warn namespace admits it with
# kubectl printing the `Warning:` line, baseline refuses host namespaces and privileged
# containers, a compliant pod is admitted, labelling a namespace with violating pods prints the
# dry-run warnings, invalid labels are refused, and resizes and metadata updates of a pod that
# violates its namespace's new level still work while an image change is checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
M=$here/manifests

server_start_or_exit
ok "server starts and answers /readyz"

K33() { kv 1.33 "$@"; }
K32() { kv 1.32 "$@"; }

# make_ns NAME [LABELS-JSON]: a namespace from a manifest (kubectl create ns sends protobuf).
make_ns() {
        echo "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\",\"labels\":${2:-{\}}}}" |
                K33 create -f - 2>&1
}

# A root pod (busybox, no securityContext) and one that meets restricted.
root_pod="$M/pod-web.json"
jq '.metadata.name="ok" | .spec.securityContext={"runAsNonRoot":true,"runAsUser":1000,"seccompProfile":{"type":"RuntimeDefault"}}
    | .spec.containers[0].securityContext={"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}' \
        "$M/pod-web.json" >"$SERVER_DIR/pod-ok.json"
ROOT_DETAIL='allowPrivilegeEscalation != false (container "c1" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c1" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c1" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c1" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'

# --- enforce
check_output "create a restricted namespace" "namespace/strict created" \
        make_ns strict '{"pod-security.kubernetes.io/enforce":"restricted"}'
check_output "restricted refuses a root pod with upstream's message" \
        "Error from server (Forbidden): error when creating \"$root_pod\": pods \"web\" is forbidden: violates PodSecurity \"restricted:latest\": $ROOT_DETAIL" \
        K33 -n strict create -f "$root_pod"
check_output "kubectl 1.32 prints the same refusal" \
        "pods \"web\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false" \
        K32 -n strict create -f "$root_pod"
check_equal "the refusal is a 403 Forbidden Status" "403 Forbidden Failure" \
        "$(api POST /api/v1/namespaces/strict/pods -H 'Content-Type: application/json' --data-binary @"$root_pod" |
                jq -r '"\(.code) \(.reason) \(.status)"')"
check_output "server-side dry run is refused the same way" 'violates PodSecurity "restricted:latest"' \
        K33 -n strict create -f "$root_pod" --dry-run=server
out=$(K33 -n strict create -f "$SERVER_DIR/pod-ok.json" 2>&1)
if [ "$out" = "pod/ok created" ]; then
        ok "restricted admits a compliant pod, without a warning"
else
        not_ok "restricted admits a compliant pod, without a warning" "$out"
fi
check_output "create a namespace pinned to v1.22" "namespace/pinned created" \
        make_ns pinned '{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/enforce-version":"v1.22"}'
check_output "a pinned version is honoured and printed" 'violates PodSecurity "restricted:v1.22": allowPrivilegeEscalation != false' \
        K33 -n pinned create -f "$root_pod"
check_output "runAsUser=0 is allowed at v1.22 (the check starts at v1.23)" "pod/root0 created" \
        K33 -n pinned create -f <(jq '.metadata.name="root0" | .spec.securityContext.runAsUser=0' "$SERVER_DIR/pod-ok.json")
check_output "and refused at latest" 'violates PodSecurity "restricted:latest": runAsUser=0 (pod must not set runAsUser=0)' \
        K33 -n strict create -f <(jq '.metadata.name="root0" | .spec.securityContext.runAsUser=0' "$SERVER_DIR/pod-ok.json")

# --- baseline
check_output "create a baseline namespace" "namespace/base created" \
        make_ns base '{"pod-security.kubernetes.io/enforce":"baseline"}'
check_output "baseline refuses hostNetwork and privileged" \
        'pods "hn" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "c1" must not set securityContext.privileged=true)' \
        K33 -n base create -f <(jq '.metadata.name="hn" | .spec.hostNetwork=true | .spec.containers[0].securityContext.privileged=true' "$root_pod")
check_output "baseline refuses a hostPath volume and a hostPort" \
        'violates PodSecurity "baseline:latest": hostPath volumes (volume "h"), hostPort (container "c1" uses hostPort 8080)' \
        K33 -n base create -f <(jq '.metadata.name="hp" | .spec.volumes=[{"name":"h","hostPath":{"path":"/tmp"}}] | .spec.containers[0].ports=[{"containerPort":80,"hostPort":8080}]' "$root_pod")
check_output "baseline admits a root pod" "pod/web created" K33 -n base create -f "$root_pod"

# --- warn
check_output "create a warn namespace" "namespace/loud created" \
        make_ns loud '{"pod-security.kubernetes.io/warn":"restricted"}'
out=$(K33 -n loud create -f "$root_pod" 2>&1)
if [[ "$out" == *"Warning: would violate PodSecurity \"restricted:latest\": $ROOT_DETAIL"* && "$out" == *"pod/web created"* ]]; then
        ok "warn admits a root pod and kubectl prints the Warning"
else
        not_ok "warn admits a root pod and kubectl prints the Warning" "$out"
fi
check_output "kubectl 1.32 prints the warning too" 'Warning: would violate PodSecurity "restricted:latest"' \
        K32 -n loud create -f <(jq '.metadata.name="web2"' "$root_pod")
hdr=$(api POST '/api/v1/namespaces/loud/pods?dryRun=All' -o /dev/null -D - -H 'Content-Type: application/json' \
        --data-binary @<(jq '.metadata.name="web3"' "$root_pod"))
check_output "the header is upstream's Warning: 299 - \"...\" form" \
        'Warning: 299 - "would violate PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false (container \"c1\" must set' \
        echo "$hdr"

# --- the namespace dry run
K33 -n loud create -f <(jq '.metadata.name="host" | .spec.hostPID=true' "$root_pod") >/dev/null 2>&1
out=$(K33 label ns loud pod-security.kubernetes.io/enforce=restricted 2>&1)
want1='Warning: existing pods in namespace "loud" violate the new PodSecurity enforce level "restricted:latest"'
want2='Warning: host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile'
want3='Warning: web (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile'
if [[ "$out" == *"$want1"*"$want2"*"$want3"* && "$out" == *"namespace/loud labeled"* ]]; then
        ok "labelling a namespace with violating pods prints upstream's warnings, in order"
else
        not_ok "labelling a namespace with violating pods prints upstream's warnings, in order" "$out"
fi
out=$(K33 label ns loud pod-security.kubernetes.io/enforce=baseline --overwrite 2>&1)
if [ "$out" = "namespace/loud labeled" ]; then
        ok "relaxing the enforce level checks nothing"
else
        not_ok "relaxing the enforce level checks nothing" "$out"
fi
out=$(K33 label ns loud pod-security.kubernetes.io/enforce-version=v1.30 2>&1)
if [ "$out" = 'Warning: existing pods in namespace "loud" violate the new PodSecurity enforce level "baseline:v1.30"
Warning: host: host namespaces
namespace/loud labeled' ]; then
        ok "a new enforce version is checked: baseline:v1.30 warns about the host pod only"
else
        not_ok "a new enforce version is checked: baseline:v1.30 warns about the host pod only" "$out"
fi

# --- invalid labels
check_output "an invalid level is refused" \
        'The Namespace "loud" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted' \
        K33 label ns loud pod-security.kubernetes.io/enforce=strict --overwrite
check_output "an invalid version is refused" \
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"' \
        K33 label ns loud pod-security.kubernetes.io/warn-version=1.30
check_output "a namespace created with an invalid label is refused" \
        'The Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "nope"' \
        make_ns bad '{"pod-security.kubernetes.io/audit":"nope"}'
check_equal "the refused label was not stored" "baseline" \
        "$(K33 get ns loud -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}')"

# --- updates of a pod that violates its namespace's level
K33 label ns loud pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version- \
        --overwrite >/dev/null 2>&1
check_output "a resize of a violating pod in a restricted namespace works" "pod/web patched" \
        K33 -n loud patch pod web --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}'
check_equal "the resize was stored" "150m" "$(K33 -n loud get pod web -o jsonpath='{.spec.containers[0].resources.requests.cpu}')"
check_output "a resize of a compliant pod works" "pod/ok patched" \
        K33 -n strict patch pod ok --subresource resize \
        -p '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"120m"},"limits":{"cpu":"250m"}}}]}}'
check_output "labels of a violating pod can change" "pod/web labeled" K33 -n loud label pod web touched=yes
check_output "an image change is checked" 'pods "web" is forbidden: violates PodSecurity "restricted:latest"' \
        K33 -n loud patch pod web -p '{"spec":{"containers":[{"name":"c1","image":"busybox:1.36"}]}}'

# --- metrics
m=$(K33 get --raw /metrics 2>&1)
if grep -q 'pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""}' <<<"$m" &&
        grep -q 'pod_security_evaluations_total{decision="deny",mode="warn",policy_level="restricted",policy_version="latest"' <<<"$m" &&
        grep -q 'pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="update",resource="pod",subresource=""}' <<<"$m"; then
        ok "pod_security_evaluations_total counts enforce and warn decisions"
else
        not_ok "pod_security_evaluations_total counts enforce and warn decisions" "$(grep pod_security <<<"$m")"
fi

server_check_log
tap_done
