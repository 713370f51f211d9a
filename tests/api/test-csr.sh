#!/usr/bin/env bash
# test-csr.sh: certificates.k8s.io/v1 CertificateSigningRequests through kubectl
# (docs/joining-nodes.md): validation with upstream's messages, the requestor taken from the
# authenticated user, `kubectl get csr`'s columns, `kubectl certificate approve|deny`, the
# signer issuing an approved kubelet client certificate, the approver leaving the admin's
# requests to a person, and CertificateSubjectRestriction.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit
W=$SERVER_DIR/work
mkdir -p "$W"

# until_equal WHAT WANT COMMAND...: COMMAND every 0.2 s, up to 30 s, until it prints WANT
until_equal() {
        local what=$1 want=$2 got=""
        shift 2
        for _ in $(seq 1 150); do
                got=$("$@" 2>/dev/null)
                [ "$got" = "$want" ] && break
                sleep 0.2
        done
        check_equal "$what" "$want" "$got"
}

# csr NAME ORG CN SIGNER USAGES(json) [EXTRA_SPEC_JSON]
csr() {
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -keyout "$W/$1.key" -subj "/O=$2/CN=$3" -out "$W/$1.csr" 2>/dev/null
        jq -n --arg n "$1" --arg r "$(base64 -w0 "$W/$1.csr")" --arg s "$4" --argjson u "$5" \
                --argjson x "${6:-{\}}" \
                '{apiVersion:"certificates.k8s.io/v1",kind:"CertificateSigningRequest",metadata:{name:$n},
                  spec:({request:$r,signerName:$s,usages:$u} + $x)}'
}

# --- validation
jq -n '{apiVersion:"certificates.k8s.io/v1",kind:"CertificateSigningRequest",metadata:{name:"bad"},
        spec:{request:"aGVsbG8=",signerName:"nodomain",expirationSeconds:60,usages:["client auth","bogus","client auth"]}}' >"$W/bad.json"
out=$(k create -f "$W/bad.json" 2>&1)
for want in 'spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must be CERTIFICATE REQUEST' \
        'spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth"' \
        'spec.usages[2]: Duplicate value: "client auth"' \
        "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'" \
        'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)'; do
        if [[ "$out" == *"$want"* ]]; then ok "refused: ${want%%:*}"; else not_ok "refused: ${want%%:*}" "want: $want" "got: $out"; fi
done

# --- the requestor is who asks
csr c1 system:nodes system:node:n1 kubernetes.io/kube-apiserver-client-kubelet \
        '["digital signature","client auth"]' '{"username":"mallory","groups":["system:masters"],"expirationSeconds":86400}' |
        k create -f - >/dev/null
check_equal "spec.username and groups are the authenticated user's, not the client's" \
        "kubernetes-admin system:masters,system:authenticated" \
        "$(k get csr c1 -o jsonpath='{.spec.username} {.spec.groups[0]},{.spec.groups[1]}')"
check_equal "kubectl get csr: upstream's columns; the admin's request waits for a person" \
        "NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION|c1 kubernetes.io/kube-apiserver-client-kubelet kubernetes-admin 24h Pending" \
        "$(k get csr c1 | tr -s ' ' | awk 'NR==1 {h=$0} NR==2 {$2=""; r=$0} END {print h "|" r}' | sed 's/  / /')"

# --- approve: the signer issues; deny: nothing issued
check_output "kubectl certificate approve" "approved" k certificate approve c1
until_equal "the approved kubelet client request is issued" "Approved,Issued" \
        sh -c "KUBECONFIG=$KUBECONFIG $KUBECTL get csr c1 --no-headers | awk '{print \$NF}'"
k get csr c1 -o jsonpath='{.status.certificate}' | base64 -d >"$W/c1.crt"
check_output "the certificate is the request's subject, signed by the cluster CA" "$W/c1.crt: OK" \
        openssl verify -CAfile "$SERVER_DIR/data/pki/ca.crt" "$W/c1.crt"
check_output "for the requested day, as a client certificate" "TLS Web Client Authentication" \
        openssl x509 -in "$W/c1.crt" -noout -ext extendedKeyUsage
csr c2 system:nodes system:node:n2 kubernetes.io/kube-apiserver-client-kubelet '["digital signature","client auth"]' |
        k create -f - >/dev/null
check_output "kubectl certificate deny" "denied" k certificate deny c2
check_equal "a denied request is never issued" "Denied" \
        "$(sleep 1; k get csr c2 --no-headers | awk '{print $NF}')"
k get csr c2 -o json | jq '.status.conditions = []' >"$W/c2.json"
check_output "a denial is not taken back" 'updates may not remove a condition of type \"Denied\"' \
        api PUT /apis/certificates.k8s.io/v1/certificatesigningrequests/c2/approval \
        -H 'Content-Type: application/json' --data-binary @"$W/c2.json"

# --- a request the signer refuses: Failed, SignerValidationFailure
csr c3 system:masters system:node:n3 kubernetes.io/kube-apiserver-client-kubelet '["digital signature","client auth"]' |
        k create -f - >/dev/null
k certificate approve c3 >/dev/null
until_equal "an approved request of the wrong shape fails with the signer's reason" \
        "SignerValidationFailure subject organization is not system:nodes" \
        sh -c "KUBECONFIG=$KUBECONFIG $KUBECTL get csr c3 -o json | jq -r '.status.conditions[] | select(.type==\"Failed\") | \"\(.reason) \(.message)\"'"

# --- CertificateSubjectRestriction
check_output "kube-apiserver-client for system:masters is refused" \
        'use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed' \
        sh -c "$(declare -f csr); W=$W csr c4 system:masters root kubernetes.io/kube-apiserver-client '[\"client auth\"]' | KUBECONFIG=$KUBECONFIG $KUBECTL create -f -"

server_check_log
tap_done
