#!/usr/bin/env bash
# test-authn.sh: who a request comes from, through the real kubectl and curl against `flexlet
# apiserver`: the admin kubeconfig's client certificate, certificates the cluster CA signed
# (CN the user, O the groups) and ones it did not, expired or server-only ones, the static token
# file (--token-auth-file, upstream's CSV), the admin token, garbage and missing credentials
# (401 Status), and `kubectl auth whoami` (SelfSubjectReview, JSON and protobuf).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
tmp=$SERVER_DIR/files
mkdir -p "$tmp"
printf 'tok-alice,alice,uid-1,"devs,ops"\n\n,nobody,0\ntok-bob,bob,2\n' >"$tmp/tokens.csv"
server_start_or_exit --token-auth-file "$tmp/tokens.csv"
ok "server starts with a token file and answers /readyz"
url=https://127.0.0.1:$SERVER_PORT
pki=$SERVER_DIR/data/pki

# the kubeconfig carries the admin's client certificate, no token
check_equal "the kubeconfig names a client certificate and no token" "1 0" \
        "$(grep -c 'client-certificate-data:' "$KUBECONFIG") $(grep -c 'token:' "$KUBECONFIG")"
check_equal "whoami (1.32): the admin certificate's user and groups" \
        "Username kubernetes-admin Groups [system:masters system:authenticated]" \
        "$(k auth whoami | tail -n +2 | tr -s ' \n' ' ' | sed 's/ $//')"
check_equal "whoami (1.33, protobuf): the same" "kubernetes-admin" \
        "$(kv 1.33 auth whoami -o jsonpath='{.status.userInfo.username}')"
check_equal "whoami -o json: a SelfSubjectReview" \
        '"authentication.k8s.io/v1" "SelfSubjectReview" ["system:masters","system:authenticated"]' \
        "$(k auth whoami -o json | jq -c '.apiVersion, .kind, .status.userInfo.groups' | tr '\n' ' ' | sed 's/ $//')"

# certificates: one the CA signed for carol (O team-a, team-b), one from another CA, an expired
# one, one for servers only, one without a CN
cert() { # cert NAME SUBJ SIGNER_CRT SIGNER_KEY DAYS EKU
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$2" \
                -keyout "$tmp/$1.key" -out "$tmp/$1.csr" >/dev/null 2>&1 &&
                printf 'extendedKeyUsage=%s\n' "$6" >"$tmp/$1.ext" &&
                openssl x509 -req -in "$tmp/$1.csr" -CA "$3" -CAkey "$4" -CAcreateserial \
                        -days "$5" -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" >/dev/null 2>&1
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=other-ca \
        -days 2 -keyout "$tmp/other-ca.key" -out "$tmp/other-ca.crt" >/dev/null 2>&1
check "issue test certificates" bash -c "$(declare -f cert); tmp=$tmp
        cert carol '/CN=carol/O=team-a/O=team-b' $pki/ca.crt $pki/ca.key 1 clientAuth &&
        cert mallory '/CN=mallory/O=system:masters' $tmp/other-ca.crt $tmp/other-ca.key 1 clientAuth &&
        cert server '/CN=srv/O=system:masters' $pki/ca.crt $pki/ca.key 1 serverAuth &&
        cert nocn '/O=system:masters' $pki/ca.crt $pki/ca.key 1 clientAuth &&
        cert old '/CN=old/O=system:masters' $pki/ca.crt $pki/ca.key -1 clientAuth"
as_cert() { # as_cert NAME PATH: the HTTP status and the body's username or reason
        curl -sk --cert "$tmp/$1.crt" --key "$tmp/$1.key" -o "$tmp/out" -w '%{http_code}' \
                -X POST -H 'Content-Type: application/json' \
                -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
                "$url/apis/authentication.k8s.io/v1/selfsubjectreviews"
        echo " $(jq -c 'if .kind == "Status" then .reason else .status.userInfo end' "$tmp/out")"
}
check_equal "a certificate the CA signed: CN the user, each O a group" \
        '201 {"username":"carol","groups":["team-a","team-b","system:authenticated"]}' \
        "$(as_cert carol)"
check_equal "kubectl with that certificate: whoami" "carol" \
        "$(k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
                --client-certificate="$tmp/carol.crt" --client-key="$tmp/carol.key" \
                auth whoami -o jsonpath='{.status.userInfo.username}')"
check_equal "another CA's certificate: 401" '401 "Unauthorized"' "$(as_cert mallory)"
check_equal "a certificate for servers only: 401" '401 "Unauthorized"' "$(as_cert server)"
check_equal "a certificate without a CN: 401" '401 "Unauthorized"' "$(as_cert nocn)"
check_equal "an expired certificate: 401" '401 "Unauthorized"' "$(as_cert old)"

# tokens
as_token() { # as_token TOKEN: HTTP status and username or reason of a SelfSubjectReview
        curl -sk -H "Authorization: Bearer $1" -o "$tmp/out" -w '%{http_code}' -X POST \
                -H 'Content-Type: application/json' -d '{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"}' \
                "$url/apis/authentication.k8s.io/v1/selfsubjectreviews"
        echo " $(jq -c 'if .kind == "Status" then .reason else .status.userInfo end' "$tmp/out")"
}
check_equal "a token of the file: its user, uid and groups" \
        '201 {"username":"alice","uid":"uid-1","groups":["devs","ops","system:authenticated"]}' \
        "$(as_token tok-alice)"
check_equal "kubectl --token: whoami" "bob" \
        "$(k --kubeconfig=/dev/null --server="$url" --certificate-authority="$pki/ca.crt" \
                --token=tok-bob auth whoami -o jsonpath='{.status.userInfo.username}')"
check_equal "the admin token: the admin" \
        '201 {"username":"kubernetes-admin","groups":["system:masters","system:authenticated"]}' \
        "$(as_token "$(cat "$pki/admin.token")")"
check_equal "a garbage token: 401 Status" \
        '401 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}' \
        "$(curl -sk -H 'Authorization: Bearer garbage' -w '%{http_code}' -o "$tmp/out" "$url/api/v1/namespaces"; echo " $(jq -c . "$tmp/out")")"
check_equal "no credentials: 401" "401" \
        "$(curl -sk -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces")"
check_equal "a garbage token beside a valid certificate: the certificate's user (x509 first)" \
        "carol" \
        "$(curl -sk --cert "$tmp/carol.crt" --key "$tmp/carol.key" -H 'Authorization: Bearer garbage' \
                -X POST -H 'Content-Type: application/json' -d '{}' \
                "$url/apis/authentication.k8s.io/v1/selfsubjectreviews" | jq -r .status.userInfo.username)"

# the resource: create only, in discovery
check_equal "GET selfsubjectreviews: 405" "405" \
        "$(api GET /apis/authentication.k8s.io/v1/selfsubjectreviews -o /dev/null -w '%{http_code}')"
check_equal "discovery lists selfsubjectreviews (create)" '["create"]' \
        "$(api GET /apis/authentication.k8s.io/v1 | jq -c '.resources[] | select(.name=="selfsubjectreviews") | .verbs')"

# a token file upstream would refuse stops the server with upstream's words
printf 'tok,only-two\n' >"$tmp/bad.csv"
out=$("$FLEXLET_BIN" apiserver --data-dir "$SERVER_DIR/data2" --listen 127.0.0.1:1 \
        --token-auth-file "$tmp/bad.csv" 2>&1)
check_equal "a 2-column token file is refused at start" \
        "flexlet apiserver: --token-auth-file: token file '$tmp/bad.csv' must have at least 3 columns (token, user name, user uid), found 2" \
        "$out"

server_check_log
tap_done
