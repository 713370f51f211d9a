#!/usr/bin/env bash
# test-images.sh: container images (issue 15, part 3), as root through kubectl against `flexlet
# serve`. The test builds its images itself from the host's static busybox (no registry, no
# internet): a `docker save` archive of two layers (the second, zstd, whites out a file of the
# first, gzip, and makes a directory opaque) and an OCI image layout that shares the first layer.
# `flexlet image import` checks every blob and diffID and stores the shared layer once; pods run
# each image with the config's Entrypoint, Cmd, Env, WorkingDir and numeric User (args
# replacing Cmd as upstream), on an overlay of the layers, the whited-out file absent; `image ls` and `image rm`
# (which frees the layers no image uses); a layer with "../" refused and one whose absolute
# symbolic link tries to lead out of the root kept inside it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root
for tool in zstd sha256sum jq python3; do
        if ! command -v $tool >/dev/null; then
                echo "1..0 # SKIP $tool is missing (scripts/install-deps.sh installs it)"
                exit 0
        fi
done

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s
DATA=$SERVER_DIR/data
W=$SERVER_DIR/img
fx() { "$FLEXLET_BIN" "$@" --data-dir "$DATA"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }
# a reproducible tar of a folder
mktar() { tar --sort=name --mtime=@1700000000 --owner=0 --group=0 --numeric-owner -C "$1" -cf "$2" .; }

# --- the layers
l1=$W/l1 l2=$W/l2 l3=$W/l3
mkdir -p "$l1/bin" "$l1/etc" "$l1/data" "$l1/tmp" "$l2/etc" "$l2/data" "$l3"
cp /bin/busybox "$l1/bin/busybox"
for a in sh cat ls echo sleep test id; do ln -s busybox "$l1/bin/$a"; done
echo "the first layer's secret" >"$l1/etc/secret"
echo kept >"$l1/etc/kept"
echo old >"$l1/data/old"
: >"$l2/etc/.wh.secret"     # hides /etc/secret
: >"$l2/data/.wh..wh..opq"  # hides /data/old
echo new >"$l2/data/new"
echo "hello from layer 2" >"$l2/hello.txt"
echo "oci layer" >"$l3/oci.txt"
mktar "$l1" "$W/l1.tar" && gzip -n -c "$W/l1.tar" >"$W/l1.tar.gz"
mktar "$l2" "$W/l2.tar" && zstd -q -c "$W/l2.tar" >"$W/l2.tar.zst"
mktar "$l3" "$W/l3.tar"

# --- a docker save archive: manifest.json, blobs/sha256/<config, layers>
D=$W/docker
mkdir -p "$D/blobs/sha256"
cat >"$W/config1.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/bin/sh","-c"],
 "Cmd":["cat /hello.txt; echo data=\$(ls /data); test -e /etc/secret && echo secret-visible; echo wd=\$PWD greeting=\$GREETING; sleep 3600"],
 "Env":["PATH=/bin","GREETING=from-the-config"],"WorkingDir":"/data"},
 "rootfs":{"type":"layers","diff_ids":["sha256:$(sha "$W/l1.tar")","sha256:$(sha "$W/l2.tar")"]}}
JSON
for f in config1.json l1.tar.gz l2.tar.zst; do cp "$W/$f" "$D/blobs/sha256/$(sha "$W/$f")"; done
cat >"$D/manifest.json" <<JSON
[{"Config":"blobs/sha256/$(sha "$W/config1.json")","RepoTags":["example.com/test/two:1"],
  "Layers":["blobs/sha256/$(sha "$W/l1.tar.gz")","blobs/sha256/$(sha "$W/l2.tar.zst")"]}]
JSON
tar -C "$D" -cf "$W/docker.tar" .

# --- an OCI image layout sharing the first layer
O=$W/oci
mkdir -p "$O/blobs/sha256"
echo '{"imageLayoutVersion":"1.0.0"}' >"$O/oci-layout"
cat >"$W/config2.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Cmd":["sh","-c","cat /oci.txt; test -e /etc/secret && echo secret-here; echo uid=\$(id -u):\$(id -g); sleep 3600"],"Env":["PATH=/bin"],"User":"1000:1001"},
 "rootfs":{"type":"layers","diff_ids":["sha256:$(sha "$W/l1.tar")","sha256:$(sha "$W/l3.tar")"]}}
JSON
cat >"$W/manifest2.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$(sha "$W/config2.json")","size":$(size "$W/config2.json")},
 "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$(sha "$W/l1.tar.gz")","size":$(size "$W/l1.tar.gz")},
           {"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$(sha "$W/l3.tar")","size":$(size "$W/l3.tar")}]}
JSON
for f in config2.json manifest2.json l1.tar.gz l3.tar; do cp "$W/$f" "$O/blobs/sha256/$(sha "$W/$f")"; done
cat >"$O/index.json" <<JSON
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "digest":"sha256:$(sha "$W/manifest2.json")","size":$(size "$W/manifest2.json"),
 "platform":{"architecture":"amd64","os":"linux"},
 "annotations":{"io.containerd.image.name":"example.com/test/oci:1","org.opencontainers.image.ref.name":"1"}}]}
JSON
tar -C "$O" -cf "$W/oci.tar" .

# --- import
check_output "the docker save archive imports under its RepoTags" "imported example.com/test/two:1" fx image import "$W/docker.tar"
check_output "the OCI layout (a directory) imports under its image name annotation" "imported example.com/test/oci:1" fx image import "$O"
check_output "the OCI layout as a tar imports under a name given" "imported example.com/test/oci-tar:2" fx image import "$W/oci.tar" example.com/test/oci-tar:2
check_equal "three layers stored: the shared one once" "3" "$(ls "$DATA/images/layers" | wc -l)"
check "each layer is kept by its diffID" test -d "$DATA/images/layers/$(sha "$W/l1.tar")/fs"
check_equal "the whiteout is an overlayfs whiteout (a character device 0/0)" "character special file 0,0" \
        "$(stat -c '%F %t,%T' "$DATA/images/layers/$(sha "$W/l2.tar")/fs/etc/secret")"
check_equal "the opaque directory carries trusted.overlay.opaque=y" "y" \
        "$(getfattr --only-values -n trusted.overlay.opaque "$DATA/images/layers/$(sha "$W/l2.tar")/fs/data" 2>/dev/null ||
                python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], "trusted.overlay.opaque").decode())' \
                        "$DATA/images/layers/$(sha "$W/l2.tar")/fs/data")"
ls_out=$(fx image ls)
check_equal "image ls lists each image with its id and layers" \
        "example.com/test/oci-tar:2 2|example.com/test/oci:1 2|example.com/test/two:1 2" \
        "$(echo "$ls_out" | awk '/^example.com/ {print $1, $3}' | sort | paste -sd'|')"

# --- pods on the images
pod() { # NAME IMAGE [ARGS_JSON]
        local args=""
        [ -n "${3:-}" ] && args=",\"args\":$3"
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"%s"%s}]}}' \
                "$1" "$2" "$args" | k create -f - >/dev/null
}
# every pod mounts its service account token with kube-root-ca.crt: wait for the publisher
until_equal "the root CA publisher has made kube-root-ca.crt" "kube-root-ca.crt" \
        k get configmap kube-root-ca.crt -o 'jsonpath={.metadata.name}'
pod two example.com/test/two:1
pod args example.com/test/two:1 '["echo args replace the cmd: $GREETING; sleep 3600"]'
pod oci example.com/test/oci:1
logs_joined() { k logs "$1" 2>/dev/null | paste -sd'|'; }
for p in two args oci; do
        if k wait --for=jsonpath='{.status.phase}'=Running "pod/$p" --timeout=60s >/dev/null 2>&1; then
                ok "pod $p is Running"
        else
                not_ok "pod $p is Running" "$(k describe pod "$p" | tail -20)"
        fi
done
until_equal "Entrypoint and Cmd run; the layers stack; the whited-out file and the opaque dir's old file are absent; WorkingDir and Env apply" \
        "hello from layer 2|data=new|wd=/data greeting=from-the-config" \
        logs_joined two
until_equal "args replace the image's Cmd, the Entrypoint stays (upstream's rule)" \
        "args replace the cmd: from-the-config" k logs args
until_equal "the OCI image runs its Cmd as its numeric User on the shared layer, whose file is not whited out there" \
        "oci layer|secret-here|uid=1000:1001" logs_joined oci
check_equal "the container's root is an overlay of the image's layers, not a copy" "2" \
        "$(k exec two -- cat /proc/self/mountinfo 2>/dev/null | awk '$5 == "/"' | grep -o "$DATA/images/layers/[0-9a-f]*/fs" | sort -u | wc -l)"
check_equal "the pod's status names the image" "example.com/test/two:1" "$(k get pod two -o jsonpath='{.status.containerStatuses[0].image}')"

# hostUsers: false: each layer idmapped into the pod's user namespace on its own
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"userns"},"spec":{"hostUsers":false,"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"example.com/test/two:1","args":["cat /hello.txt; echo data=$(ls /data); sleep 3600"]}]}}' |
        k create -f - >/dev/null
failed=$TAP_FAILED
until_equal "a hostUsers: false pod runs on the stacked layers, idmapped" "hello from layer 2|data=new" \
        logs_joined userns
[ "$TAP_FAILED" = "$failed" ] || k describe pod userns 2>&1 | tail -15 | sed 's/^/#   /'

# imagePullPolicy: Never with the image absent: upstream's ErrImageNeverPull, reason and message
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"never"},"spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"example.com/test/absent:1","imagePullPolicy":"Never"}]}}' |
        k create -f - >/dev/null
until_equal "Never with the image absent waits as ErrImageNeverPull with upstream's message" \
        'ErrImageNeverPull|Container image "example.com/test/absent:1" is not present with pull policy of Never' \
        k get pod never -o 'jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}'
until_equal "and its event is ErrImageNeverPull" "Warning ErrImageNeverPull" \
        k get events --field-selector involvedObject.name=never,reason=ErrImageNeverPull -o 'jsonpath={.items[0].type} {.items[0].reason}'

# --- removal: a name goes; its layers go only when no other image has them
k delete pod two args oci userns never --wait=true --timeout=60s >/dev/null 2>&1
check_output "image rm removes the name and frees its own layer" "removed example.com/test/two:1 (1 layers, 1 blobs freed)" \
        fx image rm example.com/test/two:1
check_equal "the shared layer stays for the OCI images" "yes" "$([ -d "$DATA/images/layers/$(sha "$W/l1.tar")" ] && echo yes)"
check_output "a removed image is gone" "not found in the local image store" fx image rm example.com/test/two:1
check_output "the built-in busybox cannot be removed" "is built in" fx image rm busybox

# --- hostile layers
E=$W/evil
mkdir -p "$E/x/a" "$E/blobs/sha256"
echo escaped >"$E/x/a/f"
(cd "$E/x/a" && tar --absolute-names -cf "$W/dotdot.tar" ../a/f)
python3 - "$W/abslink.tar" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    l = tarfile.TarInfo("link"); l.type = tarfile.SYMTYPE; l.linkname = "/"; t.addfile(l)
    l = tarfile.TarInfo("up"); l.type = tarfile.SYMTYPE; l.linkname = "../../../../../.."; t.addfile(l)
    for name in ("link/flexlet-test-images-escaped", "up/flexlet-test-images-escaped2"):
        f = tarfile.TarInfo(name); f.size = 8; t.addfile(f, io.BytesIO(b"escaped\n"))
PY
evil_archive() { # LAYER.tar NAME [DIFFID]: a docker save archive (older layout) of that one layer
        local cfg=$W/evil-config.json
        printf '{"architecture":"amd64","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
                "${3:-$(sha "$1")}" >"$cfg"
        rm -rf "$E/arch" && mkdir -p "$E/arch"
        cp "$cfg" "$E/arch/config.json" && cp "$1" "$E/arch/layer.tar"
        printf '[{"Config":"config.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$2" >"$E/arch/manifest.json"
        tar -C "$E/arch" -cf "$W/$2.tar" .
}
evil_archive "$W/dotdot.tar" evil1
check_output "a layer with \"../\" is refused" '"../a/f": the name leads out of the root' fx image import "$W/evil1.tar"
check_equal "and leaves no layer behind" "2" "$(ls "$DATA/images/layers" | wc -l)"
evil_archive "$W/abslink.tar" evil2
check "a layer whose absolute and ../ symbolic links point out imports" fx image import "$W/evil2.tar"
check_equal "what it wrote through them stayed inside the layer's root" "escaped|escaped" \
        "$(cat "$DATA/images/layers/$(sha "$W/abslink.tar")/fs/flexlet-test-images-escaped" \
                "$DATA/images/layers/$(sha "$W/abslink.tar")/fs/flexlet-test-images-escaped2" | paste -sd'|')"
check "nothing was written outside" test ! -e /flexlet-test-images-escaped -a ! -e /flexlet-test-images-escaped2
zstd -q -c "$W/l3.tar" >"$D/blobs/sha256/$(sha "$W/l2.tar.zst")" # another layer's bytes
tar -C "$D" -cf "$W/docker-bad.tar" .
check_output "a layer blob that is not its digest is refused" "not sha256:$(sha "$W/l2.tar.zst")" fx image import "$W/docker-bad.tar"
evil_archive "$W/l3.tar" wrongdiff "$(sha "$W/l2.tar")"
check_output "a layer that is not its config's diffID is refused" "the config says sha256:$(sha "$W/l2.tar")" \
        fx image import "$W/wrongdiff.tar"
check_output "a plain root filesystem tarball still imports under a name" "imported docker.io/local/plain:1" \
        fx image import "$W/l1.tar" local/plain:1

tap_done
