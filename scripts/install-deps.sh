#!/usr/bin/env bash
# install-deps.sh: installs the Debian packages flexlet builds, tests and runs with, and only
# those that are missing. The one place the project's dependencies are listed (docs/dependencies.md
# says why each was chosen).
set -euo pipefail

packages=(
        build-essential pkg-config clang clang-format cppcheck libclang-rt-14-dev
        libjansson-dev libsqlite3-dev libmicrohttpd-dev libgnutls28-dev libcurl4-gnutls-dev libnghttp2-dev
        libssh2-1-dev libjemalloc-dev libcmocka-dev libyaml-dev libseccomp-dev zlib1g-dev libarchive-dev
        openssl curl jq busybox-static protobuf-compiler zstd
        e2fsprogs xfsprogs btrfs-progs util-linux
        containernetworking-plugins iptables iproute2
        qemu-system-x86 linux-image-amd64 cpio
        etcd-server etcd-client nghttp2-client
        docker-registry skopeo apache2-utils
)

missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" -ne 0 ]; then
                echo "install-deps: missing packages: ${missing[*]} (run as root to install)" >&2
                exit 1
        fi
        echo "install-deps: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The second real client the API tests drive, @kubernetes/client-node 1.x, is not packaged by
# Debian: it comes from the npm registry into a cache folder outside the tree, once, with
# Debian's nodejs and npm. Test-only and optional: without it (no npm, no registry) the test that
# uses it says SKIP.
client_node_dir=/var/cache/flexlet/client-node
if [ ! -d "$client_node_dir/node_modules/@kubernetes/client-node" ] && command -v npm >/dev/null &&
        [ "$(id -u)" -eq 0 ]; then
        mkdir -p "$client_node_dir"
        if ! (cd "$client_node_dir" && timeout 300 npm install --no-audit --no-fund --silent \
                "@kubernetes/client-node@1" >/dev/null 2>&1); then
                echo "install-deps: could not install @kubernetes/client-node from npm (its test will SKIP)" >&2
        fi
fi
