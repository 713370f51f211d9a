#!/usr/bin/env bash
# test-projected-token.sh: every pod gets its service account token (issue 13, part 1), as root
# through kubectl against `flexlet serve`: the ServiceAccount admission adds the kube-api-access
# volume (upstream's projected sources, mounted read-only in every container), the root CA
# publisher keeps kube-root-ca.crt in every namespace (made again when deleted or edited), the
# node writes a token bound to the pod (3607 s, extended to a year as kube-apiserver does) with
# ca.crt and namespace, and a client inside
# the pod that verifies the server with ca.crt (curl, imported as an image) reaches the API at
# KUBERNETES_SERVICE_HOST:PORT with the token: SelfSubjectReview names the account, a list of
# its namespace's pods works; the token is refused (401) once the pod is deleted. Also:
# automountServiceAccountToken false (pod and account), an existing mount at the path, an
# expirationSeconds under 10 minutes refused, a token readable as fsGroup and runAsUser say. The
# refresh at 80 % of the TTL is unit-tested (tests/unit/node/test-token-manager.c).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

SA=/var/run/secrets/kubernetes.io/serviceaccount
node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s
url=https://127.0.0.1:$SERVER_PORT
ca=$SERVER_DIR/data/pki/ca.crt

# An image with curl (it verifies the server against --cacert) and busybox's shell: the host's
# binaries and the libraries they load.
img=$SERVER_DIR/curl-root
mkdir -p "$img/bin" "$img/usr/bin" "$img/tmp"
cp /bin/busybox "$img/bin/busybox" && ln -s busybox "$img/bin/sh" && ln -s busybox "$img/bin/cat"
cp "$(command -v curl)" "$img/usr/bin/curl"
for lib in $(ldd "$(command -v curl)" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
        mkdir -p "$img$(dirname "$lib")" && cp -L "$lib" "$img$lib"
done
# a CA that did not sign the server's certificate, to show the client verifies
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=other -days 1 \
        -keyout /dev/null -out "$img/other-ca.crt" 2>/dev/null
tar -C "$img" -cf "$SERVER_DIR/curl.tar" . 2>/dev/null
check "import the curl image" "$FLEXLET_BIN" image import local/curl:1 "$SERVER_DIR/curl.tar" --data-dir "$SERVER_DIR/data"

# --- the root CA publisher
until_equal "kube-root-ca.crt in the default namespace holds the cluster CA" "$(cat "$ca")" \
        k get configmap kube-root-ca.crt -o 'jsonpath={.data.ca\.crt}'
check_equal "with upstream's description" \
        "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters." \
        "$(k get configmap kube-root-ca.crt -o 'jsonpath={.metadata.annotations.kubernetes\.io/description}')"
k create namespace team >/dev/null
until_equal "a new namespace gets it" "$(cat "$ca")" k -n team get configmap kube-root-ca.crt -o 'jsonpath={.data.ca\.crt}'
k -n team delete configmap kube-root-ca.crt >/dev/null
until_equal "deleted, it is made again" "$(cat "$ca")" k -n team get configmap kube-root-ca.crt -o 'jsonpath={.data.ca\.crt}'
k -n team patch configmap kube-root-ca.crt --type merge -p '{"data":{"ca.crt":"forged"}}' >/dev/null
until_equal "edited, it is put back" "$(cat "$ca")" k -n team get configmap kube-root-ca.crt -o 'jsonpath={.data.ca\.crt}'

# --- the admission, seen on a server-side dry run (nothing runs)
dry() { k create --dry-run=server -o json -f - 2>&1; }
pod_json() { # NAME EXTRA_SPEC: a busybox pod
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"terminationGracePeriodSeconds":1,%s"containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}]}}' "$1" "$2"
}
out=$(pod_json plain "" | dry)
vol=$(jq -r '.spec.volumes[0].name' <<<"$out")
check_equal "a pod gets a kube-api-access-<5 random> volume" "yes" \
        "$(grep -qE '^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$' <<<"$vol" && echo yes || echo "$vol")"
check_equal "its projected sources are upstream's" \
        '{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}' \
        "$(jq -cS '.spec.volumes[0].projected' <<<"$out")"
check_equal "mounted read-only at $SA" "{\"mountPath\":\"$SA\",\"name\":\"$vol\",\"readOnly\":true}" \
        "$(jq -cS '.spec.containers[0].volumeMounts[0]' <<<"$out")"
check_equal "automountServiceAccountToken: false on the pod: no volume, no mount" "[null,null]" \
        "$(pod_json off '"automountServiceAccountToken":false,' | dry | jq -c '[.spec.volumes, .spec.containers[0].volumeMounts]')"
k create serviceaccount quiet >/dev/null
k patch serviceaccount quiet -p '{"automountServiceAccountToken":false}' >/dev/null
check_equal "the account says false: no volume" "null" \
        "$(pod_json q '"serviceAccountName":"quiet",' | dry | jq -c '.spec.volumes')"
check_equal "the account says false, the pod true: the pod wins" "1" \
        "$(pod_json q2 '"serviceAccountName":"quiet","automountServiceAccountToken":true,' | dry | jq '.spec.volumes | length')"
check_equal "a container with its own mount at the path: left as it is, no volume added" "mine" \
        "$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"own"},"spec":{"containers":[{"name":"c","image":"busybox","volumeMounts":[{"name":"mine","mountPath":"%s"}]}],"volumes":[{"name":"mine","emptyDir":{}}]}}' "$SA" | dry | jq -r '[.spec.volumes[].name, .spec.containers[0].volumeMounts[].name] | unique | join(",")')"
check_output "a missing service account: upstream's refusal" \
        'error looking up service account default/nobody: serviceaccount "nobody" not found' \
        sh -c "$(declare -f pod_json); pod_json x '\"serviceAccountName\":\"nobody\",' | '$KUBECTL' --cache-dir '$SERVER_DIR/cache' create -f - 2>&1"
check_output "a token source under 10 minutes: upstream's 422" \
        'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes' \
        sh -c "printf '%s' '{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"short\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],\"volumes\":[{\"name\":\"t\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"path\":\"t\",\"expirationSeconds\":599}}]}}]}}' | '$KUBECTL' --cache-dir '$SERVER_DIR/cache' create -f - 2>&1"

# --- pods that run: one reading its files as fsGroup and runAsUser say, and the API client
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"reader"},
 "spec":{"terminationGracePeriodSeconds":1,"securityContext":{"runAsUser":1000,"fsGroup":2000},
  "containers":[{"name":"c","image":"busybox","command":["sh","-c",
   "d=/var/run/secrets/kubernetes.io/serviceaccount; echo tok=$(stat -L -c '%a %u %g' $d/token); echo ns=$(cat $d/namespace); head -c 3 $d/token >/dev/null && echo read=yes; sleep 3600"]}]}}
JSON
# RBAC: the default account may list pods in its namespace once bound to `view` there
check "bind the default account to view in default" \
        k create rolebinding default-view --clusterrole=view --serviceaccount=default:default
cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"client"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"local/curl:1","command":["sh","-c",
   "d=/var/run/secrets/kubernetes.io/serviceaccount; api=https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; echo ns=$(cat $d/namespace); echo ca=$(cat $d/ca.crt | head -1); echo tok=$(stat -L -c %a $d/token); if touch $d/x 2>/dev/null; then echo ro=no; else echo ro=yes; fi; curl -s -o /dev/null --cacert /other-ca.crt $api/version; echo otherca=$?; echo whoami=$(curl -sS --cacert $d/ca.crt -H \"Authorization: Bearer $(cat $d/token)\" -H 'Content-Type: application/json' -X POST -d '{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}' $api/apis/authentication.k8s.io/v1/selfsubjectreviews); echo list=$(curl -sS --cacert $d/ca.crt -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer $(cat $d/token)\" $api/api/v1/namespaces/$(cat $d/namespace)/pods); sleep 3600"]}]}}
JSON
until_equal "the client pod runs" Running k get pod client -o jsonpath='{.status.phase}'
until_equal "it read its namespace" "ns=default" sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' logs client | grep '^ns='"
for _ in $(seq 1 100); do k logs client 2>/dev/null | grep -q '^list=' && break; sleep 0.2; done
LOGS=$(k logs client)
seen() { printf '%s\n' "$LOGS" | grep "^$1=" | tail -1; }
check_equal "ca.crt is a certificate" "ca=-----BEGIN CERTIFICATE-----" "$(seen ca)"
check_equal "the token file: defaultMode 0644" "tok=644" "$(seen tok)"
check_equal "the volume is read-only in the container" "ro=yes" "$(seen ro)"
check_equal "curl with another CA refuses the server (60): it verifies" "otherca=60" "$(seen otherca)"
check_output "with the token and ca.crt, from the pod: SelfSubjectReview names the account" \
        '"username":"system:serviceaccount:default:default"' seen whoami
check_equal "and a list of its namespace's pods works" "list=200" "$(seen list)"

yaml=$(k get pod client -o yaml)
check_equal "kubectl get pod -o yaml shows the volume, its token source and its mount" "yes yes yes" \
        "$(grep -qE "^  - name: kube-api-access-[a-z0-9]{5}$" <<<"$yaml" && echo yes) $(grep -q "expirationSeconds: 3607" <<<"$yaml" && echo yes) $(grep -q "mountPath: $SA" <<<"$yaml" && echo yes)"
uid=$(k get pod client -o jsonpath='{.metadata.uid}')
cvol=$(k get pod client -o jsonpath='{.spec.volumes[0].name}')
token=$(cat "$SERVER_DIR/data/pods/$uid/volumes/$cvol/token")
claims=$(cut -d. -f2 <<<"$token" | tr '_-' '/+' | awk '{ n = length($0) % 4; if (n == 2) $0 = $0 "=="; else if (n == 3) $0 = $0 "="; print }' | base64 -d 2>/dev/null)
check_equal "the token is bound to the pod (name, uid), for the API, warnafter 3607 s, exp a year (kube-apiserver's extension)" \
        "client $uid [\"https://kubernetes.default.svc.cluster.local\"] 3607 31536000 system:serviceaccount:default:default" \
        "$(jq -r '[.["kubernetes.io"].pod.name, .["kubernetes.io"].pod.uid, (.aud | tostring), (.["kubernetes.io"].warnafter - .iat | tostring), (.exp - .iat | tostring), .sub] | join(" ")' <<<"$claims")"

until_equal "fsGroup and runAsUser: the token 0640, the user's, the group's" "tok=640 1000 2000" \
        sh -c "'$KUBECTL' --cache-dir '$SERVER_DIR/cache' logs reader | grep '^tok='"
check_output "and the container's user reads it" "read=yes" k logs reader

check "delete the pods" k delete pod client reader --timeout=30s
check_equal "the deleted pod's token is refused: 401" "401" \
        "$(curl -s --cacert "$ca" -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$url/api/v1/namespaces/default/pods")"
check_equal "their volumes' tmpfs mounts are gone" "" \
        "$(awk -v d="$SERVER_DIR/" 'index($5, d) == 1 && $5 ~ /volumes/ {print $5}' /proc/self/mountinfo)"
tap_done
