#!/usr/bin/env bash
# test-hardening.sh: what a hostile or crowded client meets. The request line is read exactly:
# every query parameter counts, however many there are; an escaped NUL or invalid UTF-8 in the
# path or a parameter is refused with a Status and acts on nothing; a body in a media type the
# server cannot decode is 415. Concurrent patches without a resourceVersion all apply (no 409).
# (test-large-object.sh: memory under a 2.5 MB object patched 1,000 times.) A 100 KB
# URL or header is answered by the API; a 2 MiB head is 431.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"

server_start_or_exit --watch-cache-bytes 8Mi
ok "server starts"

pod() { printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}' "$1" "${2:-x}"; }
create() { api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' -d "$(pod "$@")" -o /dev/null -w '%{http_code}'; }
status_of() { jq -r '"\(.kind) \(.code) \(.reason)"'; }
exists() { api GET "/api/v1/namespaces/default/pods/$1" -o /dev/null -w '%{http_code}'; }

check_equal "pod victim is created" 201 "$(create victim)"
check_equal "pod other is created" 201 "$(create other other)"

# K8S: a NUL once cut the name short, and this deleted pod "victim"
check_equal "DELETE of a name with an escaped NUL is a 400 Status" "Status 400 BadRequest" \
        "$(api DELETE '/api/v1/namespaces/default/pods/victim%00not-victim' | status_of)"
check_equal "... and deletes nothing" 200 "$(exists victim)"
check_equal "an escaped NUL in the namespace segment is a 400 Status" "Status 400 BadRequest" \
        "$(api DELETE '/api/v1/namespaces/default%00x/pods/victim' | status_of)"
check_equal "invalid UTF-8 in the path is a 400 Status" "Status 400 BadRequest" \
        "$(api GET '/api/v1/namespaces/default/pods/%ff%fe' | status_of)"
check_equal "an escaped NUL in a query value is a 400 Status" "Status 400 BadRequest" \
        "$(api GET '/api/v1/namespaces/default/pods?labelSelector=app%3Dother%00' | status_of)"
check_equal "a well-formed UTF-8 name is only not found" "Status 404 NotFound" \
        "$(api GET '/api/v1/namespaces/default/pods/%C3%A9t%C3%A9' | status_of)"

# The request head: a 100 KB URL (kube-apiserver takes heads up to 1 MiB) reaches the handler
# and is answered as any other, with a Status; a head past the HTTP library's per-connection pool
# is 431 (docs/api.md, "Connections and load")
long=$(head -c 102400 /dev/zero | tr '\0' a)
check_equal "a 100 KB URL is answered by the API: 404 NotFound Status" "Status 404 NotFound" \
        "$(api GET "/api/v1/namespaces/default/pods/$long" | status_of)"
check_equal "a 100 KB header is answered by the API too" "Status 404 NotFound" \
        "$(api GET /api/v1/namespaces/default/pods/absent -H @<(printf 'X-Pad: %s\r\n' "$long") | status_of)"
head_status() { # a GET whose one header is $1 bytes: the status line's code
        python3 - "$SERVER_PORT" "$1" <<'PY'
import socket, ssl, sys
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20))
try:
    s.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: " + b"a" * int(sys.argv[2]) + b"\r\n\r\n")
except OSError:
    pass  # the server may answer and close before reading it all
buf = b""
while b"\r\n" not in buf:
    d = s.recv(4096)
    if not d:
        break
    buf += d
print(buf.split(b" ")[1].decode() if buf.startswith(b"HTTP/") else "none")
PY
}
check_equal "a 2 MiB request head is refused with 431" 431 "$(head_status 2097152)"

# K8S: only the verbs a resource's descriptor lists are served (this once deleted every namespace)
check_equal "DELETE of the namespace collection is 405" "Status 405 MethodNotAllowed" \
        "$(api DELETE /api/v1/namespaces | status_of)"
check_equal "... and every namespace is still there" "default kube-node-lease kube-public kube-system" \
        "$(api GET /api/v1/namespaces | jq -r '[.items[].metadata.name] | sort | join(" ")')"
check_equal "POST to a named pod is 405" "Status 405 MethodNotAllowed" \
        "$(api POST /api/v1/namespaces/default/pods/victim -H 'Content-Type: application/json' -d "$(pod victim)" | status_of)"

# 80 parameters: the ones past the 64th were once dropped, a dryRun=All with them
filler=$(for i in $(seq 1 79); do printf 'p%d=%d&' "$i" "$i"; done)
check_equal "a create whose 80th parameter is dryRun=All answers 201" 201 \
        "$(api POST "/api/v1/namespaces/default/pods?${filler}dryRun=All" -H 'Content-Type: application/json' \
                -d "$(pod dry)" -o /dev/null -w '%{http_code}')"
check_equal "... and is a dry run: nothing is stored" 404 "$(exists dry)"
check_equal "a labelSelector as the 80th parameter filters the list" "other" \
        "$(api GET "/api/v1/namespaces/default/pods?${filler}labelSelector=app%3Dother" | jq -r '[.items[].metadata.name] | join(",")')"

# K8S: the body's media type must be one the server decodes
check_equal "a create with Content-Type text/plain is 415" "Status 415 UnsupportedMediaType" \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type: text/plain' -d "$(pod plain)" | status_of)"
check_equal "a create without Content-Type is 415" "Status 415 UnsupportedMediaType" \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type:' -d "$(pod none)" | status_of)"
check_equal "... and neither was stored" "404 404" "$(exists plain) $(exists none)"
check_equal "a create with application/json;charset=utf-8 is accepted" 201 \
        "$(api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json; charset=utf-8' \
                -d "$(pod charset)" -o /dev/null -w '%{http_code}')"

# K8S: a patch without a resourceVersion precondition is retried until it applies
check_equal "pod patched is created" 201 "$(create patched)"
api_patches_config patched 1 400 n
check_equal "400 label patches from 40 connections at once all apply" "200x400 " "$(api_patch_codes 40)"

server_check_log
tap_done
