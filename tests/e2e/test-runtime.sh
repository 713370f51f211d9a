#!/usr/bin/env bash
# test-runtime.sh: `flexlet image` and `flexlet supervise` through the real binary, as root:
# root filesystems tarred by GNU tar in its gnu, pax and ustar formats import byte for byte
# (long names, links, owners, set-id modes), tarballs that try to leave the root or are
# compressed are refused and leave nothing behind, and the internal supervise command rejects
# bad arguments. Everything lives in one temporary folder, removed on exit. The runtime's
# namespaces, mounts and containers are tested by tests/unit/node/test-runtime-e2e.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
FLEXLET_BIN=${FLEXLET_BIN:-$here/../../build/flexlet}

if [ "$(id -u)" -ne 0 ]; then
        echo "# skipped: importing images keeps owners, which needs root"
        ok "# SKIP not root"
        tap_done
        exit 0
fi
if [ ! -x "$FLEXLET_BIN" ]; then
        not_ok "flexlet binary at $FLEXLET_BIN" "build it first (make)"
        tap_done
        exit 1
fi

D=$(mktemp -d /tmp/flexlet-rt-sh-XXXXXX)
cleanup() { rm -rf "$D"; }
trap cleanup EXIT
DATA=$D/data
fx() { "$FLEXLET_BIN" "$@"; }

# --- a root filesystem with the awkward parts
src=$D/src
long_dir=$src/usr/share/a-directory-name-that-is-quite-long/and-another-one-that-is-also-long/and-more
mkdir -p "$src/bin" "$src/etc" "$src/tmp" "$long_dir"
cp /bin/busybox "$src/bin/busybox"
ln -s busybox "$src/bin/sh"
ln "$src/bin/busybox" "$src/bin/hardlinked"
ln -s /etc/hosts "$src/etc/absolute-link"
echo "motd" >"$src/etc/motd"
printf 'spaces\n' >"$src/etc/a file with spaces"
echo deep >"$long_dir/a-file-whose-own-name-is-longer-than-one-hundred-characters-so-gnu-needs-a-long-name-entry.txt"
echo owned >"$src/etc/owned"
chown 1234:5678 "$src/etc/owned"
chmod 4755 "$src/bin/busybox"
chmod 1777 "$src/tmp"

for format in gnu posix; do
        tar --format=$format -C "$src" -cf "$D/$format.tar" .
        check "import a $format tarball" fx image import "local/rootfs:$format" "$D/$format.tar" --data-dir "$DATA" --cmd sh
        root=$DATA/images/docker.io/local/rootfs/$format/rootfs
        check "the $format import matches the source tree" diff -r --no-dereference "$src" "$root"
        check_equal "$format: owner kept" "1234:5678" "$(stat -c %u:%g "$root/etc/owned")"
        check_equal "$format: set-uid mode kept" "4755" "$(stat -c %a "$root/bin/busybox")"
        check_equal "$format: sticky /tmp kept" "1777" "$(stat -c %a "$root/tmp")"
        check_equal "$format: hard link kept" "$(stat -c %i "$root/bin/busybox")" "$(stat -c %i "$root/bin/hardlinked")"
        check_equal "$format: absolute symlink kept as written" "/etc/hosts" "$(readlink "$root/etc/absolute-link")"
done
# ustar cannot hold a 100+ character file name: without that file
rm "$long_dir"/a-file-whose-own-name*
tar --format=ustar -C "$src" -cf "$D/ustar.tar" .
check "import a ustar tarball (long path split into prefix and name)" fx image import local/rootfs:ustar "$D/ustar.tar" --data-dir "$DATA"
check "the ustar import matches the source tree" diff -r --no-dereference "$src" "$DATA/images/docker.io/local/rootfs/ustar/rootfs"
check "import from stdin" sh -c "'$FLEXLET_BIN' image import local/rootfs:stdin - --data-dir '$DATA' <'$D/ustar.tar'"

check_output "image list shows the imports" "docker.io/local/rootfs:gnu" fx image list --data-dir "$DATA"
check_equal "the config records --cmd" '{"reference":"docker.io/local/rootfs:gnu","Entrypoint":[],"Cmd":["sh"],"Env":[],"WorkingDir":""}' \
        "$(cat "$DATA/images/docker.io/local/rootfs/gnu/config.json")"

# --- tarballs that are refused, leaving nothing behind
mkdir -p "$D/evil/a"
echo x >"$D/evil/a/x"
(cd "$D/evil/a" && tar --absolute-names -cf "$D/evil.tar" ../a/x)
check_output "a name with .. is refused" 'import "local/evil:1": "../a/x": the name leads out of the root' \
        fx image import local/evil:1 "$D/evil.tar" --data-dir "$DATA"
check_fails "the refused import fails" fx image import local/evil:1 "$D/evil.tar" --data-dir "$DATA"
check_equal "no partial image or temporary folder is left" "docker.io docker.io/local" \
        "$(cd "$DATA/images" && find . -mindepth 1 -maxdepth 3 -not -path './docker.io/local/rootfs*' -printf '%P\n' | sort | xargs)"
gzip -c "$D/ustar.tar" >"$D/img.tar.gz"
check "a gzip tarball imports (libarchive reads it)" fx image import local/gz:1 "$D/img.tar.gz" --data-dir "$DATA"
check "the gzip import matches the source tree" diff -r --no-dereference "$src" "$DATA/images/docker.io/local/gz/1/rootfs"
if command -v xz >/dev/null; then
        xz -c "$D/ustar.tar" >"$D/img.tar.xz"
        check_output "an xz tarball is refused with a hint" "decompress bzip2 or xz first" \
                fx image import local/xz:1 "$D/img.tar.xz" --data-dir "$DATA"
fi
check_output "a missing file" 'open "/nonexistent.tar": No such file or directory' \
        fx image import local/x:1 /nonexistent.tar --data-dir "$DATA"
check_output "an invalid image name" 'couldn'"'"'t parse image name "Bad/Name": invalid reference format' \
        fx image import Bad/Name "$D/ustar.tar" --data-dir "$DATA"

# --- the internal supervise command
check_output "supervise without a state dir prints its usage" "usage: supervise" fx supervise
fx supervise >/dev/null 2>&1
rc=$?
check_equal "supervise without a state dir exits 2" "2" "$rc"
mkdir "$D/empty-state"
check_output "supervise of a dir without a spec says so" "supervisor: read spec.json" fx supervise "$D/empty-state"

tap_done
