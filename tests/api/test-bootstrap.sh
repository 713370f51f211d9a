#!/usr/bin/env bash
# test-bootstrap.sh: bootstrap tokens as kube-apiserver's bootstrap authenticator, through the
# real kubectl and curl against `flexlet apiserver`: a token Secret made with kubectl
# authenticates its token as system:bootstrap:<id> in system:bootstrappers and its extra groups;
# a wrong secret, an expired token, one without usage-bootstrap-authentication, bad extra groups,
# a Secret of another type and a malformed token are 401. The token cleaner deletes expired
# token Secrets, and one that expires while the server runs once it has (no event comes then).
# TokenReview (authentication.k8s.io/v1, create only) answers for a token with the same
# authenticators, through kubectl and curl (JSON and protobuf).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
server_start_or_exit
ok "server starts and answers /readyz"
url=https://127.0.0.1:$SERVER_PORT
pki=$SERVER_DIR/data/pki

# token ID SECRET [KEY=VALUE...]: adds a bootstrap token Secret to tokens.yaml (TYPE=... sets
# its type), which one kubectl create makes
token() {
        local id=$1 secret=$2 type=bootstrap.kubernetes.io/token kv
        shift 2
        {
                printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-%s\n' "$id"
                printf '  namespace: kube-system\ndata:\n'
                for kv in token-id="$id" token-secret="$secret" "$@"; do
                        if [ "${kv%%=*}" = TYPE ]; then
                                type=${kv#TYPE=}
                                continue
                        fi
                        printf '  %s: %s\n' "${kv%%=*}" "$(printf %s "${kv#*=}" | base64 -w0)"
                done
                printf 'type: %s\n' "$type"
        } >>"$tmp/tokens.yaml"
}
as_token() { # as_token TOKEN: HTTP status and username or reason of a SelfSubjectReview
        curl -sk -H "Authorization: Bearer $1" -o "$tmp/out" -w '%{http_code}' -X POST \
                -H 'Content-Type: application/json' -d '{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"}' \
                "$url/apis/authentication.k8s.io/v1/selfsubjectreviews"
        echo " $(jq -c 'if .kind == "Status" then .reason else .status.userInfo end' "$tmp/out")"
}
future=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
soon=$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%SZ)
past=$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ)

token abcdef 0123456789abcdef usage-bootstrap-authentication=true expiration="$future" \
        auth-extra-groups=system:bootstrappers:worker,system:bootstrappers:a-b:c
token noauth 0123456789abcdef usage-bootstrap-signing=true
token expird 0123456789abcdef usage-bootstrap-authentication=true expiration="$past"
token badexp 0123456789abcdef usage-bootstrap-authentication=true expiration=tomorrow
token badgrp 0123456789abcdef usage-bootstrap-authentication=true auth-extra-groups=devs
token plain1 0123456789abcdef usage-bootstrap-authentication=true
token soon00 0123456789abcdef usage-bootstrap-authentication=true expiration="$soon"
token opaque 0123456789abcdef usage-bootstrap-authentication=true TYPE=Opaque
check_equal "create the token Secrets with kubectl" 8 "$(k create -f "$tmp/tokens.yaml" | grep -c created)"
check_equal "kubectl --token=<id>.<secret> auth whoami: system:bootstrap:<id> and its groups" \
        "Username system:bootstrap:abcdef Groups [system:bootstrappers system:bootstrappers:a-b:c system:bootstrappers:worker system:authenticated]" \
        "$(k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
                --token=abcdef.0123456789abcdef auth whoami | tail -n +2 | tr -s ' \n' ' ' | sed 's/ $//')"
check_equal "no auth-extra-groups: system:bootstrappers only" \
        '201 {"username":"system:bootstrap:plain1","groups":["system:bootstrappers","system:authenticated"]}' \
        "$(as_token plain1.0123456789abcdef)"
check_equal "a wrong secret: 401" '401 "Unauthorized"' "$(as_token abcdef.0123456789abcdee)"
check_equal "an expired token: 401" '401 "Unauthorized"' "$(as_token expird.0123456789abcdef)"
check_equal "an expiration that does not parse: expired, 401" '401 "Unauthorized"' \
        "$(as_token badexp.0123456789abcdef)"
check_equal "no usage-bootstrap-authentication: 401" '401 "Unauthorized"' \
        "$(as_token noauth.0123456789abcdef)"
check_equal "an extra group outside system:bootstrappers: 401" '401 "Unauthorized"' \
        "$(as_token badgrp.0123456789abcdef)"
check_equal "a Secret of type Opaque: 401" '401 "Unauthorized"' "$(as_token opaque.0123456789abcdef)"
check_equal "no Secret for the id: 401" '401 "Unauthorized"' "$(as_token zzzzzz.0123456789abcdef)"
check_equal "malformed tokens (upper case, short, no dot): 401" \
        '401 "Unauthorized" 401 "Unauthorized" 401 "Unauthorized"' \
        "$(as_token ABCDEF.0123456789abcdef) $(as_token abcdef.0123456789abcde) $(as_token abcdef0123456789abcdef)"
# TokenReview
review_body() {
        printf '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"%s","audiences":%s}}' \
                "$1" "${2:-null}"
}
review() { # review TOKEN [AUDIENCES-JSON]: the answer's status, through curl
        api POST /apis/authentication.k8s.io/v1/tokenreviews -H 'Content-Type: application/json' \
                -d "$(review_body "$@")" | jq -cS .status
}
check_equal "TokenReview of a bootstrap token (kubectl create -f -o json): authenticated, its user and groups" \
        '{"authenticated":true,"user":{"groups":["system:bootstrappers","system:bootstrappers:a-b:c","system:bootstrappers:worker","system:authenticated"],"username":"system:bootstrap:abcdef"}}' \
        "$(review_body abcdef.0123456789abcdef | k create -f - -o json | jq -cS .status)"
check_equal "TokenReview of a wrong secret: upstream's invalid bearer token" \
        '{"error":"invalid bearer token","user":{}}' "$(review abcdef.0123456789abcdee)"
check_equal "TokenReview of the admin token: the admin" \
        '{"authenticated":true,"user":{"groups":["system:masters","system:authenticated"],"username":"kubernetes-admin"}}' \
        "$(review "$(cat "$pki/admin.token")")"
check_equal "TokenReview for audiences: no authenticator is scoped to one, not authenticated" \
        '{"error":"invalid bearer token","user":{}}' "$(review abcdef.0123456789abcdef '["api"]')"
# protobuf: the answer to a JSON review, in protobuf, posted back as a protobuf review (spec.token
# and the status fields travel by upstream's numbers) answers the same in JSON
PB=application/vnd.kubernetes.protobuf
printf '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"abcdef.0123456789abcdef"}}' >"$tmp/tr.json"
check_equal "TokenReview answered in protobuf" "201 $PB" \
        "$(api POST /apis/authentication.k8s.io/v1/tokenreviews -H 'Content-Type: application/json' \
                -H "Accept: $PB" --data-binary @"$tmp/tr.json" -o "$tmp/tr.pb" -w '%{http_code} %{content_type}')"
check_equal "that protobuf posted back: the same user, read from spec.token" \
        '201 true system:bootstrap:abcdef' \
        "$(api POST /apis/authentication.k8s.io/v1/tokenreviews -H "Content-Type: $PB" \
                --data-binary @"$tmp/tr.pb" -o "$tmp/out" -w '%{http_code}'; echo " $(jq -r '.status.authenticated, .status.user.username' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')")"
check_equal "TokenReview without a token: 400 with upstream's message" \
        '400 "token is required for TokenReview in authentication"' \
        "$(api POST /apis/authentication.k8s.io/v1/tokenreviews -H 'Content-Type: application/json' \
                -d '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}' \
                -o "$tmp/out" -w '%{http_code}'; echo " $(jq -c .message "$tmp/out")")"
check_equal "GET tokenreviews: 405; discovery lists tokenreviews (create)" '405 ["create"]' \
        "$(api GET /apis/authentication.k8s.io/v1/tokenreviews -o /dev/null -w '%{http_code}') $(api GET /apis/authentication.k8s.io/v1 | jq -c '.resources[] | select(.name=="tokenreviews") | .verbs')"

# gone SECRET...: polls (up to 20 s) until none of the Secrets is left; prints what is left
gone() {
        local left n
        for _ in $(seq 40); do
                left=
                for n in "$@"; do
                        [ "$(api GET "/api/v1/namespaces/kube-system/secrets/$n" -o /dev/null \
                                -w '%{http_code}')" = 404 ] || left="$left $n"
                done
                [ -z "$left" ] && break
                sleep 0.5
        done
        echo "$left"
}
check_equal "the cleaner deletes the expired token Secrets (past and unparseable expiration)" "" \
        "$(gone bootstrap-token-expird bootstrap-token-badexp)"
check_equal "the cleaner keeps unexpired and never-expiring tokens, and other types" \
        "secret/bootstrap-token-abcdef secret/bootstrap-token-noauth secret/bootstrap-token-opaque" \
        "$(api GET /api/v1/namespaces/kube-system/secrets | jq -r '.items[].metadata.name | select(. == "bootstrap-token-abcdef" or . == "bootstrap-token-noauth" or . == "bootstrap-token-opaque") | "secret/" + .' | tr '\n' ' ' | sed 's/ $//')"
check_equal "a token that expires while the server runs: deleted once it has" "" \
        "$(gone bootstrap-token-soon00)"
check_equal "and no longer authenticates" '401 "Unauthorized"' "$(as_token soon00.0123456789abcdef)"

server_check_log
tap_done
