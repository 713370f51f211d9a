#!/usr/bin/env bash
# run-pull-bench.sh: image pull and import time beside skopeo's copy of the same image, in one
# run, as root (issue 15's Performance: "Image import and pull time beside skopeo copy of the
# same image"). Debian's docker-registry serves on loopback an image this script builds: three
# gzip layers (the host's static busybox; 24 MiB of random bytes; 2,000 files of 4 KiB), pushed
# with skopeo. Each round, interleaved, each into a fresh folder:
#   - pull: bench/pull-bench.c, one registry_pull (what the node's image puller runs) into a new
#     node data dir: manifest, config and layers fetched, every blob checked against its
#     digest, each layer unpacked into the content-addressed store (layers/<diffID>/fs);
#   - skopeo pull: `skopeo copy docker://REG/bench:1 oci:DIR` (fetched, checked and written as
#     blobs, not unpacked: less work than ours);
#   - import: `flexlet image import` of the same image as a docker save archive (read, checked,
#     unpacked into the store);
#   - skopeo import: `skopeo copy docker-archive:FILE oci:DIR` (read and written as blobs).
# Times are wall clock around each command, process start included on both sides. The report
# goes to stdout and bench/results/pull-<UTC date>.md. Fails loudly when anything cannot be
# measured. Everything it starts and writes is removed on exit.
#
# Environment: ROUNDS (10), BUILD (build), FLEXLET_TEST_PORT_BASE (the loopback port range).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ROUNDS=${ROUNDS:-10}
BUILD=${BUILD:-build}

die() {
        echo "run-pull-bench.sh: $*" >&2
        exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (the store keeps layers' owners and device nodes)"
for tool in docker-registry skopeo gzip sha256sum curl; do
        command -v $tool >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done
commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- src)" ] || commit="$commit, with uncommitted changes in src/"
make BUILD="$BUILD" -j"$(nproc)" "$BUILD/flexlet" >/dev/null
make -C bench BUILD="$BUILD" "../$BUILD/bench/pull-bench" >/dev/null
PB="$ROOT/$BUILD/bench/pull-bench"
FX="$ROOT/$BUILD/flexlet"
set +eu
. tests/lib/server.sh # free_port
set -eu

R=$(mktemp -d /tmp/flexlet-pullbench.XXXXXX)
REGISTRY_PID=
cleanup() {
        local rc=$?
        [ -z "$REGISTRY_PID" ] || { kill "$REGISTRY_PID" 2>/dev/null; wait "$REGISTRY_PID" 2>/dev/null || true; }
        rm -rf "$R"
        return $rc
}
trap cleanup EXIT

RP=$(free_port)
REG=127.0.0.1:$RP
cat >"$R/config.yml" <<YAML
version: 0.1
log: {level: error}
storage: {filesystem: {rootdirectory: $R/store}}
http: {addr: "$REG"}
YAML
docker-registry serve "$R/config.yml" >"$R/registry.log" 2>&1 &
REGISTRY_PID=$!
code=
for _ in $(seq 1 100); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "http://$REG/v2/" 2>/dev/null || true)
        [ "$code" = 200 ] && break
        sleep 0.1
done
[ "$code" = 200 ] || die "the registry did not answer on $REG: $(cat "$R/registry.log")"

# --- the image, as an OCI layout: three gzip layers
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }
O=$R/oci
mkdir -p "$O/blobs/sha256" "$R/l1/bin" "$R/l2" "$R/l3/files"
cp /bin/busybox "$R/l1/bin/busybox"
for a in sh cat echo sleep; do ln -s busybox "$R/l1/bin/$a"; done
head -c $((24 << 20)) /dev/urandom >"$R/l2/random.bin"
for i in $(seq 1 2000); do head -c 4096 /dev/urandom >"$R/l3/files/f$i"; done
layers_json= diffs_json=
for l in l1 l2 l3; do
        tar --sort=name --mtime=@1700000000 --owner=0 --group=0 --numeric-owner -C "$R/$l" -cf "$R/$l.tar" .
        gzip -n -c "$R/$l.tar" >"$R/$l.tar.gz"
        cp "$R/$l.tar.gz" "$O/blobs/sha256/$(sha "$R/$l.tar.gz")"
        layers_json+="${layers_json:+,}{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$(sha "$R/$l.tar.gz")\",\"size\":$(size "$R/$l.tar.gz")}"
        diffs_json+="${diffs_json:+,}\"sha256:$(sha "$R/$l.tar")\""
done
cat >"$R/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Cmd":["sh"],"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":[$diffs_json]}}
JSON
cat >"$R/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$(sha "$R/config.json")","size":$(size "$R/config.json")},"layers":[$layers_json]}
JSON
for f in config.json manifest.json; do cp "$R/$f" "$O/blobs/sha256/$(sha "$R/$f")"; done
echo '{"imageLayoutVersion":"1.0.0"}' >"$O/oci-layout"
cat >"$O/index.json" <<JSON
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$(sha "$R/manifest.json")","size":$(size "$R/manifest.json"),"annotations":{"org.opencontainers.image.ref.name":"t"}}]}
JSON
skopeo copy --quiet --insecure-policy --dest-tls-verify=false "oci:$O:t" "docker://$REG/bench:1" >"$R/skopeo.log" 2>&1 ||
        die "skopeo push: $(cat "$R/skopeo.log")"
skopeo copy --quiet --insecure-policy "oci:$O:t" "docker-archive:$R/image.tar:example.com/bench:1" >"$R/skopeo.log" 2>&1 ||
        die "skopeo docker-archive: $(cat "$R/skopeo.log")"
compressed=$(($(size "$R/l1.tar.gz") + $(size "$R/l2.tar.gz") + $(size "$R/l3.tar.gz")))
unpacked=$(($(size "$R/l1.tar") + $(size "$R/l2.tar") + $(size "$R/l3.tar")))

# timed CMD...: the command's wall time in ms on stdout; its output in $R/out; dies if it fails
timed() {
        local t0=$EPOCHREALTIME
        "$@" >"$R/out" 2>&1 || die "$* failed: $(tail -5 "$R/out")"
        awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f\n", (b - a) * 1000}'
}
pull=() skpull=() import=() skimport=() incall=()
for i in $(seq 1 "$ROUNDS"); do
        d=$R/run-$i
        mkdir -p "$d"
        pull+=("$(timed "$PB" --data-dir "$d/pull" --image "$REG/bench:1" --insecure "$REG")")
        incall+=("$(sed -n 's/^pull.ms //p' "$R/out")")
        [ "$(sed -n 's/^pull.layers_new //p' "$R/out")" = 3 ] || die "pull $i did not fetch the 3 layers: $(cat "$R/out")"
        skpull+=("$(timed skopeo copy --quiet --insecure-policy --src-tls-verify=false "docker://$REG/bench:1" "oci:$d/skopeo-pull:t")")
        import+=("$(timed "$FX" image import --data-dir "$d/import" "$R/image.tar")")
        skimport+=("$(timed skopeo copy --quiet --insecure-policy "docker-archive:$R/image.tar" "oci:$d/skopeo-import:t")")
        rm -rf "$d"
done

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_pull=$(median "${pull[@]}") m_skpull=$(median "${skpull[@]}") m_import=$(median "${import[@]}")
m_skimport=$(median "${skimport[@]}") m_incall=$(median "${incall[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
out=bench/results/pull-$(date -u +%Y-%m-%d).md
{
        echo "# Image pull and import beside skopeo ($(date -u '+%Y-%m-%d %H:%M UTC'), $commit)"
        echo
        echo "bench/run-pull-bench.sh, $ROUNDS rounds interleaved, medians; load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs."
        echo "The image: 3 gzip layers, $((compressed >> 10)) KiB compressed, $((unpacked >> 10)) KiB as tar (busybox; 24 MiB random; 2,000 files of 4 KiB),"
        echo "served by Debian's docker-registry on 127.0.0.1; wall time, process start included on both sides."
        echo
        echo "| what | flexlet | skopeo copy | flexlet / skopeo |"
        echo "|---|---:|---:|---:|"
        echo "| pull from the registry (flexlet also unpacks each layer; skopeo writes blobs) | $m_pull ms | $m_skpull ms | $(ratio "$m_pull" "$m_skpull") |"
        echo "| import a docker save archive (same) | $m_import ms | $m_skimport ms | $(ratio "$m_import" "$m_skimport") |"
        echo
        echo "The pull inside pull-bench's process, around registry_pull alone: $m_incall ms (median)."
} | tee "$out"
