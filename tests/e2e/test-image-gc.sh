#!/usr/bin/env bash
# test-image-gc.sh: the kubelet's image garbage collection (issue 15), as root against `flexlet
# serve` whose image store is a 96 MiB ext4 of its own (a loop device, 82 MiB usable), collected
# every second from 80 % down to 50 %: below the high threshold nothing is removed; above it the
# images no container uses go and the one a running pod stands on stays; when nothing can be
# freed, the Node gets upstream's FreeDiskSpaceFailed event, then ImageGCFailed for the failure
# repeated. The disk crosses the high threshold only by a file allocated in one call once every
# image is in the store: an image being imported fills the disk before it is listed, and a
# collection then cannot count it (the kubelet's, racing a pull, cannot either).
# Bad thresholds are refused with the kubelet's message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

check_output "thresholds are checked as the kubelet checks them" \
        "invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 80" \
        "$FLEXLET_BIN" serve --image-gc-high-threshold 80 --image-gc-low-threshold 90
check_output "flexlet apiserver refuses a node agent flag" \
        "flexlet apiserver: --image-gc-period: a node agent flag (flexlet serve or flexlet node)" \
        "$FLEXLET_BIN" apiserver --image-gc-period 1s

# the store on a filesystem of its own (node_cleanup unmounts it and frees the loop device)
SERVER_DIR=$(mktemp -d /tmp/flexlet-api.XXXXXX)
DATA=$SERVER_DIR/data
truncate -s 96M "$SERVER_DIR/images.img"
mkfs.ext4 -q -F -m 0 "$SERVER_DIR/images.img"
mkdir -p "$DATA/images"
mount -o loop "$SERVER_DIR/images.img" "$DATA/images"
node_test_start --image-gc-high-threshold 80 --image-gc-low-threshold 50 \
        --image-minimum-gc-age 0s --image-gc-period 1s
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# image NAME MIB: a root filesystem image of the host's busybox and MIB MiB of random bytes
image() {
        local dir=$SERVER_DIR/img-$1
        mkdir -p "$dir/bin"
        cp /bin/busybox "$dir/bin/busybox"
        ln -s busybox "$dir/bin/sh" && ln -s busybox "$dir/bin/sleep"
        head -c "$(($2 << 20))" /dev/urandom >"$dir/ballast"
        tar -C "$dir" -cf "$dir.tar" . && rm -rf "$dir"
        "$FLEXLET_BIN" image import "example.com/gc/$1:1" "$dir.tar" --data-dir "$DATA" >/dev/null
        rm -f "$dir.tar"
}
images() { "$FLEXLET_BIN" image ls --data-dir "$DATA" | awk 'NR > 1 && $1 ~ /gc/ {sub("example.com/gc/", "", $1); print $1}' | sort | tr '\n' ' '; }
used() { df --output=pcent "$DATA/images" | tail -1 | tr -dc 0-9; }
pod() {
        k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: example.com/gc/$1:1, command: [sleep, "3600"]}]
YAML
}

# each image 17 MiB (15 MiB and busybox): three fill 61 %, 20 MiB more 86 %, one and those 45 %
image keeper 15
pod keeper
check_output "a pod runs from the first image" "condition met" k wait --for=condition=Ready pod/keeper --timeout=60s
image old1 15
image old2 15
sleep 3 # three collections
check_equal "below the high threshold nothing is collected" "keeper:1 old1:1 old2:1 " "$(images)"
fallocate -l 20M "$DATA/images/filler"
until_equal "above it, the images no container uses are removed" "keeper:1 " images
check "down to the low threshold (50 %)" [ "$(used)" -le 50 ]
check_equal "the pod on the kept image still runs" "Running" "$(k get pod keeper -o jsonpath='{.status.phase}')"

# nothing left to free: the image in use is the only one, the rest of the disk is other data
fallocate -l 35M "$DATA/images/filler2"
node_events() { k get events --field-selector "involvedObject.kind=Node,involvedObject.name=test-node,reason=$1" -o jsonpath='{range .items[*]}{.type} {.source.component} {.message}{"\n"}{end}' | head -1; }
until_equal "nothing eligible: the Node gets FreeDiskSpaceFailed" "Warning kubelet Failed to garbage collect required amount of images." \
        eval 'node_events FreeDiskSpaceFailed | sed "s/ Attempted.*//"'
check_output "with upstream's message" "but only found 0 bytes eligible to free." node_events FreeDiskSpaceFailed
until_equal "the failure repeated: ImageGCFailed" "Warning" eval 'node_events ImageGCFailed | cut -d" " -f1'
check_equal "and the image in use stays" "keeper:1 " "$(images)"
rm -f "$DATA/images/filler" "$DATA/images/filler2"

server_check_log
tap_done
