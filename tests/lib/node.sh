# node.sh: starts `flexlet serve` (a node agent that runs pods as root) for an end-to-end test and
# removes everything its pods made when the test ends, even when it fails or the server was
# killed: processes in the test's cgroups, the pods' network attachments (the CNI DELs the server
# did not run), mounts under the data dir (network namespaces among them), loop devices of files
# there, the cgroups, the data dir, the instance's bridge. Source after tap.sh and server.sh; then call node_start [flags...].

NODE_CGROUP_ROOT=${NODE_CGROUP_ROOT:-flexlet-e2e-$$}
FLEXLET_COMMAND=serve
SERVER_CLEANUP=node_cleanup

# The pods' bridge and CIDR, one per instance so that tests run side by side: a /24 of
# 10.128.0.0/9 picked from the shell's pid, skipping ranges a route already uses.
NODE_POD_BRIDGE=${NODE_POD_BRIDGE:-flx-$$}
if [ -z "${NODE_POD_CIDR:-}" ]; then
        for i in $(seq 0 63); do
                n=$(( ($$ + i * 997) % 32768 ))
                NODE_POD_CIDR="10.$((128 + n / 256)).$((n % 256)).0/24"
                [ -z "$(ip -4 route show root "$NODE_POD_CIDR" 2>/dev/null)" ] &&
                        [ -z "$(ip -4 route show match "${NODE_POD_CIDR%/24}" 2>/dev/null | grep -v '^default')" ] && break
        done
fi
NODE_POD_GATEWAY=${NODE_POD_CIDR%.0/24}.1

# node_cni_del RECORD: the DELs a flexlet whose pod network record this is would have run, for
# a server that was killed before it could (portmap's iptables rules, the IP, the veth):
# each list's plugins in reverse order, as the CNI specification says.
node_cni_del() {
        local rec=$1 cni_path netns id args i
        local -a f
        # one jq for the whole record (a process start costs hundreds of ms in tests/vm/run.sh's
        # guest): cniPath, netns, containerId, args, then ifname, type, config per plugin
        mapfile -d '' f < <(jq -j '
                (.cniPath // "/usr/lib/cni"), "\u0000", .netns, "\u0000", .containerId, "\u0000",
                (.args | join(";")), "\u0000",
                (. as $r | ["conflist", "eth0"], ["loopback", "lo"] | . as [$l, $ifn]
                 | ($r[$l] // {plugins: []}) as $c | range(($c.plugins | length) - 1; -1; -1) as $i
                 | $c.plugins[$i] as $p
                 | $ifn, "\u0000", $p.type, "\u0000",
                   (($p | del(.capabilities)) + {cniVersion: $c.cniVersion, name: $c.name}
                    + (if ($p.capabilities.portMappings // false) and ($r.capabilities.portMappings // null) != null
                       then {runtimeConfig: {portMappings: $r.capabilities.portMappings}} else {} end)
                    + (if $r.results[$ifn] then {prevResult: $r.results[$ifn]} else {} end) | tojson), "\u0000")' "$rec")
        [ "${#f[@]}" -ge 4 ] || return 0
        cni_path=${f[0]} netns=${f[1]} id=${f[2]} args=${f[3]}
        mountpoint -q "$netns" 2>/dev/null || netns=""
        for ((i = 4; i + 2 < ${#f[@]}; i += 3)); do
                echo "${f[$((i + 2))]}" | CNI_COMMAND=DEL CNI_CONTAINERID=$id CNI_NETNS=$netns \
                        CNI_IFNAME=${f[$i]} CNI_ARGS=$args CNI_PATH=$cni_path \
                        "$cni_path/${f[$((i + 1))]}" >/dev/null 2>&1
        done
}

node_cleanup() {
        local d pid
        # the fake nodes' lease loops (server.sh's node_lease_keep)
        for pid in "${NODE_LEASE_PIDS[@]}"; do
                kill "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        server_stop
        for _ in 1 2 3 4 5; do
                for d in /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT"; do
                        [ -d "$d" ] || continue
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
                done
                sleep 0.2
                for d in /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT"; do
                        [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
                done
                ls -d /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT" >/dev/null 2>&1 || break
        done
        if [ -n "${SERVER_DIR:-}" ]; then
                local rec
                for rec in "$SERVER_DIR"/data/pods/*/network/network.json; do
                        [ -f "$rec" ] && node_cni_del "$rec"
                done
                awk -v dir="$SERVER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo |
                        sort -r | xargs -r -n1 umount -l 2>/dev/null
                # loop devices of the claims' volume files
                losetup -a 2>/dev/null | awk -F: -v dir="$SERVER_DIR/" 'index($0, dir) {print $1}' |
                        xargs -r -n1 losetup -d 2>/dev/null
                rm -rf "$SERVER_DIR"
        fi
        ip link del "$NODE_POD_BRIDGE" 2>/dev/null
        return 0
}

# node_start [flags...]: a single-node cluster on this machine, its cgroups below
# NODE_CGROUP_ROOT, with allocatable cpu=4, memory=4Gi unless the flags say otherwise.
node_start() {
        server_start --allocatable cpu=4,memory=4Gi --cgroup-root "$NODE_CGROUP_ROOT" \
                --pod-cidr "$NODE_POD_CIDR" --pod-bridge "$NODE_POD_BRIDGE" "$@"
}

# node_require_root: skips the whole test (one TAP plan of zero) when not root.
node_require_root() {
        if [ "$(id -u)" -ne 0 ]; then
                echo "1..0 # SKIP the node agent needs root (cgroups, mounts, namespaces)"
                exit 0
        fi
}

# node_test_start [flags...]: node_start for a test: a server that does not start is the test's
# one failure, and the test ends there.
node_test_start() {
        if ! node_start "$@"; then
                not_ok "server starts with a node"
                tap_done
                exit 1
        fi
}

# until_equal WHAT WANT COMMAND...: runs COMMAND every 0.2 s, up to 60 s, until it prints WANT;
# then checks it (what the kernel and the API reach asynchronously).
until_equal() {
        local what=$1 want=$2 got=""
        shift 2
        for _ in $(seq 1 300); do
                got=$("$@" 2>/dev/null)
                [ "$got" = "$want" ] && break
                sleep 0.2
        done
        check_equal "$what" "$want" "$got"
}

# --- the cgroup files of either version, for tests that run on v1 hosts and in the v2 guest
# (tests/vm/run.sh). Limits are compared in the kernel's own files; these helpers pick them.

# CGROUP_V2: 1 when /sys/fs/cgroup is the unified hierarchy, empty on v1/hybrid.
CGROUP_V2=
[ -f /sys/fs/cgroup/cgroup.controllers ] && CGROUP_V2=1

# cg_root memory|cpu: the folder of NODE_CGROUP_ROOT holding that controller's files.
cg_root() {
        if [ -n "$CGROUP_V2" ]; then
                echo "/sys/fs/cgroup/$NODE_CGROUP_ROOT"
        elif [ "$1" = memory ]; then
                echo "/sys/fs/cgroup/memory/$NODE_CGROUP_ROOT"
        else
                ls -d /sys/fs/cgroup/cpu,cpuacct/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/cpu/"$NODE_CGROUP_ROOT" 2>/dev/null | head -1
        fi
}

# cg_dirs: every folder of NODE_CGROUP_ROOT (one on v2, one per hierarchy on v1).
cg_dirs() {
        ls -d /sys/fs/cgroup/*/"$NODE_CGROUP_ROOT" /sys/fs/cgroup/"$NODE_CGROUP_ROOT" 2>/dev/null
}

# cg_get DIR memory|quota|cpu: a limit of the cgroup at DIR as the kernel holds it:
#   memory  bytes, -1 unlimited (v1 memory.limit_in_bytes, v2 memory.max)
#   quota   CFS quota in µs, -1 unlimited (v1 cpu.cfs_quota_us, v2 cpu.max's first field)
#   cpu     v1 cpu.shares, v2 cpu.weight (compare with cpu_want)
cg_get() {
        local dir=$1 v
        case $2:$CGROUP_V2 in
        memory:1) v=$(cat "$dir/memory.max" 2>/dev/null) && { [ "$v" = max ] && echo -1 || echo "$v"; } ;;
        memory:) v=$(cat "$dir/memory.limit_in_bytes" 2>/dev/null) && { [ "$v" -ge 9223372036854000000 ] && echo -1 || echo "$v"; } ;;
        quota:1) v=$(cut -d' ' -f1 "$dir/cpu.max" 2>/dev/null) && { [ "$v" = max ] && echo -1 || echo "$v"; } ;;
        quota:) cat "$dir/cpu.cfs_quota_us" 2>/dev/null ;;
        cpu:1) cat "$dir/cpu.weight" 2>/dev/null ;;
        cpu:) cat "$dir/cpu.shares" 2>/dev/null ;;
        esac
}

# cpu_want SHARES: what cg_get reads as "cpu" in a container cgroup given SHARES: SHARES on v1;
# on v2 the OCI runtimes' cpu.weight, ceil(10^((l²+125l)/612 - 7/34)), l = log2(SHARES),
# clamped to 1..10000 (opencontainers/cgroups ConvertCPUSharesToCgroupV2Value, runc 1.3.2,
# crun 1.23; src/api/pod-resources.h). A result within 1e-9 of an integer is that integer:
# awk's log2 is not exact (1024 shares is weight 100 exactly).
cpu_want() {
        if [ -z "$CGROUP_V2" ]; then
                echo "$1"
                return
        fi
        awk -v s="$1" 'BEGIN {
                if (s <= 2) { print 1; exit }
                if (s >= 262144) { print 10000; exit }
                l = log(s) / log(2); p = exp(((l * l + 125 * l) / 612 - 7 / 34) * log(10))
                w = int(p); if (p - w > 1e-9) w++; print w }'
}
