#!/usr/bin/env bash
# test-satoken.sh: bound service account tokens through the real kubectl against `flexlet
# apiserver`: `kubectl create token` (protobuf TokenRequest), the token's claims, whoami with
# it, expiry and audience in the request, binding to a Secret (the token dies with it) or to a
# Pod (3607 s extended to a year as kube-apiserver does, dead with the pod), a
# deleted or recreated service account, tampered and foreign tokens (401), and upstream's
# TokenRequest refusals.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
ok "server starts and answers /readyz"
url=https://127.0.0.1:$SERVER_PORT
pki=$SERVER_DIR/data/pki

claims() { # the JWT's claims, decoded
        cut -d. -f2 <<<"$1" | tr '_-' '/+' | awk '{ n = length($0) % 4; if (n == 2) $0 = $0 "=="; else if (n == 3) $0 = $0 "="; print }' | base64 -d 2>/dev/null
}
as() { # as TOKEN ARGS...: kubectl with only that token
        k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" --token="$1" "${@:2}"
}

check "create serviceaccount builder" k create serviceaccount builder
for i in $(seq 1 50); do k get sa builder >/dev/null 2>&1 && break; sleep 0.1; done
tok=$(k create token builder 2>&1)
check_equal "kubectl create token (1.32, protobuf) gives a JWT" "3" "$(awk -F. '{print NF}' <<<"$tok")"
sa_uid=$(k get sa builder -o jsonpath='{.metadata.uid}')
check_equal "its claims: issuer, subject, audience, service account uid, one hour" \
        "https://kubernetes.default.svc.cluster.local system:serviceaccount:default:builder [\"https://kubernetes.default.svc.cluster.local\"] $sa_uid 3600" \
        "$(claims "$tok" | jq -r '[.iss, .sub, (.aud | tostring), .["kubernetes.io"].serviceaccount.uid, (.exp - .iat | tostring)] | join(" ")')"
check_equal "whoami with the token: the service account, its uid and groups" \
        "system:serviceaccount:default:builder $sa_uid system:serviceaccounts,system:serviceaccounts:default,system:authenticated" \
        "$(as "$tok" auth whoami -o json | jq -r '.status.userInfo | [.username, .uid, (.groups | join(","))] | join(" ")')"
tok2=$(kv 1.33 create token builder --duration=20m 2>&1)
check_equal "--duration 20m (1.33)" "1200" "$(claims "$tok2" | jq '.exp - .iat')"
check_equal "a duration under 10 minutes: upstream's 422" \
        'error: failed to create token: TokenRequest.authentication.k8s.io "builder" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes' \
        "$(k create token builder --duration=1m 2>&1)"
check_equal "a missing service account: 404" \
        'error: failed to create token: serviceaccounts "nobody" not found' \
        "$(k create token nobody 2>&1)"
aud=$(k create token builder --audience=vault 2>&1)
check_equal "--audience vault: in aud" '["vault"]' "$(claims "$aud" | jq -c .aud)"
check_equal "a token for another audience does not reach the API: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $aud" "$url/api/v1/namespaces")"

# bound to a Secret: the token lives as long as the Secret
check "create secret holder" k create secret generic holder --from-literal=a=b
suid=$(k get secret holder -o jsonpath='{.metadata.uid}')
btok=$(k create token builder --bound-object-kind=Secret --bound-object-name=holder 2>&1)
check_equal "a token bound to the Secret names it" "holder $suid" \
        "$(claims "$btok" | jq -r '.["kubernetes.io"].secret | "\(.name) \(.uid)"')"
# (discovery: what RBAC's system:discovery lets every authenticated user read)
check_equal "it authenticates while the Secret exists" "200" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $btok" "$url/apis")"
k delete secret holder >/dev/null 2>&1
check_equal "and not once the Secret is gone: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $btok" "$url/api/v1/namespaces")"
check_equal "binding to a missing Secret: 404" \
        'error: failed to create token: secrets "nope" not found' \
        "$(k create token builder --bound-object-kind=Secret --bound-object-name=nope 2>&1)"

# bound to a Pod for 3607 s (the kube-api-access volume's): kube-apiserver's extension to a year
check "create a pod of the account" k create -f - <<<'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"holder"},"spec":{"serviceAccountName":"builder","containers":[{"name":"c","image":"busybox"}]}}'
ptok=$(k create token builder --bound-object-kind=Pod --bound-object-name=holder --duration=3607s 2>&1)
check_equal "a pod-bound 3607 s token lives a year, warnafter at 3607 s" "31536000 3607" \
        "$(claims "$ptok" | jq -r '"\(.exp - .iat) \(.["kubernetes.io"].warnafter - .iat)"')"
vtok=$(k create token builder --bound-object-kind=Pod --bound-object-name=holder --duration=3607s --audience=vault 2>&1)
check_equal "for another audience it is not extended" "3607 null" \
        "$(claims "$vtok" | jq -r '"\(.exp - .iat) \(.["kubernetes.io"].warnafter)"')"
check_equal "the pod-bound token authenticates while the pod exists" "200" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ptok" "$url/apis")"
k delete pod holder --wait=false >/dev/null 2>&1
api DELETE /api/v1/namespaces/default/pods/holder -H 'Content-Type: application/json' -d '{"gracePeriodSeconds":0}' -o /dev/null
check_equal "and not once the pod is gone: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ptok" "$url/apis")"

# tampering and foreign tokens
forged=$(cut -d. -f1 <<<"$tok").$(claims "$tok" | jq -c '.sub = "system:serviceaccount:kube-system:admin"' | base64 -w0 | tr '/+' '_-' | tr -d '=').$(cut -d. -f3 <<<"$tok")
check_equal "claims changed after signing: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $forged" "$url/api/v1/namespaces")"
none="$(printf '{"alg":"none"}' | base64 -w0 | tr '/+' '_-' | tr -d '=').$(cut -d. -f2 <<<"$tok")."
check_equal "alg none: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $none" "$url/api/v1/namespaces")"

# the service account deleted, then made again: the old token names the old uid
k delete sa builder >/dev/null 2>&1
check_equal "the service account deleted: its token is refused (401)" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" "$url/api/v1/namespaces")"
k create serviceaccount builder >/dev/null 2>&1
check_equal "recreated: the old token still refused (uid differs)" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" "$url/api/v1/namespaces")"

check_equal "discovery: serviceaccounts/token is a TokenRequest you create" \
        '{"group":"authentication.k8s.io","kind":"TokenRequest","name":"serviceaccounts/token","verbs":["create"],"version":"v1"}' \
        "$(api GET /api/v1 | jq -cS '.resources[] | select(.name=="serviceaccounts/token") | {group, kind, name, verbs, version}')"

server_check_log
tap_done
