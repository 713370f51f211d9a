#!/usr/bin/env bash
# test-image-pull.sh: pulling images from a registry (issue 15, part 3), as root through kubectl
# against `flexlet serve --insecure-registry 127.0.0.1:P`. The test starts Debian's
# docker-registry on loopback with htpasswd (basic) auth, builds a one-layer busybox image as an
# OCI layout and pushes it with skopeo twice: as it is (OCI media types) and converted to Docker
# schema 2. Then: a pod with a kubernetes.io/dockerconfigjson imagePullSecret runs from each
# (events Pulling and Pulled as upstream words them, the image recorded in the store); without
# the secret the pull fails as ErrImagePull then waits in ImagePullBackOff; a wrong digest
# fails with containerd's NotFound message; Never with the image absent is ErrImageNeverPull.
# Everything stays on 127.0.0.1; nothing comes from the internet.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
for tool in docker-registry skopeo htpasswd jq sha256sum; do
        if ! command -v $tool >/dev/null; then
                echo "1..0 # SKIP $tool is missing (scripts/install-deps.sh installs it)"
                exit 0
        fi
done

R=$(mktemp -d /tmp/flexlet-registry.XXXXXX)
REGISTRY_PID=
pull_cleanup() {
        if [ -n "$REGISTRY_PID" ]; then
                kill "$REGISTRY_PID" 2>/dev/null
                wait "$REGISTRY_PID" 2>/dev/null
        fi
        rm -rf "$R"
        node_cleanup
}
SERVER_CLEANUP=pull_cleanup
trap pull_cleanup EXIT

# --- the registry, on loopback, basic auth from an htpasswd file
RP=$(free_port)
REG=127.0.0.1:$RP
htpasswd -Bbn tester s3cret >"$R/htpasswd" 2>/dev/null
cat >"$R/config.yml" <<YAML
version: 0.1
log: {level: error}
storage: {filesystem: {rootdirectory: $R/store}}
http: {addr: "$REG"}
auth: {htpasswd: {realm: flexlet-test, path: $R/htpasswd}}
YAML
docker-registry serve "$R/config.yml" >"$R/registry.log" 2>&1 &
REGISTRY_PID=$!
for _ in $(seq 1 100); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "http://$REG/v2/" 2>/dev/null)
        [ "$code" = 401 ] && break
        sleep 0.1
done
check_equal "the registry answers on loopback and asks for credentials" "401" "$code"

# --- the image: one gzip layer of the host's static busybox, as an OCI layout
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }
L=$R/layer O=$R/oci
mkdir -p "$L/bin" "$L/tmp" "$O/blobs/sha256"
cp /bin/busybox "$L/bin/busybox"
for a in sh cat echo sleep; do ln -s busybox "$L/bin/$a"; done
echo "pulled from the registry" >"$L/hello.txt"
tar --sort=name --mtime=@1700000000 --owner=0 --group=0 --numeric-owner -C "$L" -cf "$R/layer.tar" .
gzip -n -c "$R/layer.tar" >"$R/layer.tar.gz"
cat >"$R/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Cmd":["sh","-c","cat /hello.txt; sleep 3600"],"Env":["PATH=/bin"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$(sha "$R/layer.tar")"]}}
JSON
cat >"$R/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$(sha "$R/config.json")","size":$(size "$R/config.json")},
 "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$(sha "$R/layer.tar.gz")","size":$(size "$R/layer.tar.gz")}]}
JSON
for f in config.json manifest.json layer.tar.gz; do cp "$R/$f" "$O/blobs/sha256/$(sha "$R/$f")"; done
echo '{"imageLayoutVersion":"1.0.0"}' >"$O/oci-layout"
cat >"$O/index.json" <<JSON
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "digest":"sha256:$(sha "$R/manifest.json")","size":$(size "$R/manifest.json"),
 "annotations":{"org.opencontainers.image.ref.name":"t"}}]}
JSON
push() { # TAG [skopeo flags]
        local tag=$1
        shift
        skopeo copy --quiet --insecure-policy --dest-creds tester:s3cret --dest-tls-verify=false "$@" \
                "oci:$O:t" "docker://$REG/busybox:$tag" >"$R/skopeo.log" 2>&1
}
check "skopeo pushes the OCI image" push oci
check "skopeo pushes it converted to Docker schema 2" push docker --format v2s2
check "skopeo pushes it under a tag only the secretless pod asks for" push private --format v2s2

# --- the cluster
node_test_start --insecure-registry "$REG"
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s
until_equal "the root CA publisher has made kube-root-ca.crt" "kube-root-ca.crt" \
        k get configmap kube-root-ca.crt -o 'jsonpath={.metadata.name}'
check "a docker-registry secret is made" k create secret docker-registry regcred \
        --docker-server="$REG" --docker-username=tester --docker-password=s3cret
pod() { # NAME IMAGE [SECRET] [POLICY]
        local extra=""
        [ -n "${3:-}" ] && extra=",\"imagePullSecrets\":[{\"name\":\"$3\"}]"
        local policy=""
        [ -n "${4:-}" ] && policy=",\"imagePullPolicy\":\"$4\""
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"terminationGracePeriodSeconds":1%s,"containers":[{"name":"c","image":"%s"%s}]}}' \
                "$1" "$extra" "$2" "$policy" | k create -f - >/dev/null
}
waiting() { k get pod "$1" -o 'jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}'; }
wrong=sha256:$(printf '0%.0s' $(seq 1 64))
pod oci "$REG/busybox:oci" regcred
pod docker "$REG/busybox:docker" regcred
pod nosecret "$REG/busybox:private"
pod wrongdigest "$REG/busybox@$wrong" regcred
pod never "$REG/busybox:absent" regcred Never

for p in oci docker; do
        if k wait --for=jsonpath='{.status.phase}'=Running "pod/$p" --timeout=60s >/dev/null 2>&1; then
                ok "pod $p runs from the image pulled with its imagePullSecret"
        else
                not_ok "pod $p runs from the image pulled with its imagePullSecret" "$(k describe pod "$p" | tail -20)"
        fi
done
until_equal "the pulled image's Cmd runs" "pulled from the registry" k logs oci
check_equal "the Pulling event is upstream's" "Pulling image \"$REG/busybox:oci\"" \
        "$(k get events --field-selector involvedObject.name=oci,reason=Pulling -o 'jsonpath={.items[0].message}')"
check_output "the Pulled event is upstream's (time and image size)" \
        "Successfully pulled image \"$REG/busybox:oci\" in " \
        k get events --field-selector involvedObject.name=oci,reason=Pulled -o 'jsonpath={.items[*].message}'
check_equal "both images are in the store, sharing their one layer" \
        "$REG/busybox:docker|$REG/busybox:oci|1" \
        "$("$FLEXLET_BIN" image ls --data-dir "$SERVER_DIR/data" | awk -v r="$REG/" 'index($1, r) == 1 {print $1}' | sort | paste -sd'|')|$(ls "$SERVER_DIR/data/images/layers" | grep -c "$(sha "$R/layer.tar")")"

until_equal "without the secret the pull fails: ErrImagePull with the registry's refusal" \
        "ErrImagePull|rpc error: code = Unknown desc = failed to pull and unpack image \"$REG/busybox:private\": failed to resolve reference \"$REG/busybox:private\": pull access denied, repository does not exist or may require authorization: unexpected status from GET request to http://$REG/v2/busybox/manifests/private: 401" \
        waiting nosecret
until_equal "then it waits in ImagePullBackOff" "ImagePullBackOff|Back-off pulling image \"$REG/busybox:private\"" waiting nosecret
check_equal "with upstream's Failed and BackOff events" "Warning Failed|Normal BackOff" \
        "$(k get events --field-selector involvedObject.name=nosecret,reason=Failed -o 'jsonpath={.items[0].type} {.items[0].reason}')|$(k get events --field-selector involvedObject.name=nosecret,reason=BackOff -o 'jsonpath={.items[0].type} {.items[0].reason}')"
until_equal "a wrong digest fails as upstream: ErrImagePull, NotFound" \
        "ErrImagePull|rpc error: code = NotFound desc = failed to pull and unpack image \"$REG/busybox@$wrong\": failed to resolve reference \"$REG/busybox@$wrong\": $REG/busybox@$wrong: not found" \
        waiting wrongdigest
until_equal "then ImagePullBackOff" "ImagePullBackOff|Back-off pulling image \"$REG/busybox@$wrong\"" waiting wrongdigest
until_equal "Never with the image absent: ErrImageNeverPull, no pull" \
        "ErrImageNeverPull|Container image \"$REG/busybox:absent\" is not present with pull policy of Never" waiting never
check_equal "the Never pod made no Pulling event" "" \
        "$(k get events --field-selector involvedObject.name=never,reason=Pulling -o 'jsonpath={.items[*].reason}')"

k delete pod oci docker nosecret wrongdigest never --wait=true --timeout=60s >/dev/null 2>&1
tap_done
