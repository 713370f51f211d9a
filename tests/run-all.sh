#!/usr/bin/env bash
# run-all.sh: the whole test suite, as `make test` runs it:
#   0. clang-format and cppcheck over the sources;
#   1. the cmocka unit tests;
#   2. the same unit tests built with clang under AddressSanitizer + UBSan;
#   3. a short libFuzzer run of every fuzz target over its seed corpus;
#   4. black-box API tests: `flexlet serve` on loopback driven by the real kubectl, the plain
#      and the ASan build's runs side by side;
#   5. end-to-end node tests as root (they skip, saying why, when not root);
#   6. the node's end-to-end suites again on cgroup v2, in a qemu guest (tests/vm/run.sh; one
#      failure saying why when this machine cannot boot it), started first, right after
#      build/flexlet is built, and running beside steps 0-5.
# Every step reports TAP lines ("ok N - name" / "not ok N - name"); this script counts them and
# ends with "N passed, N failed". A binary that dies without reporting counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=() # one line per failed runner, repeated at the end (CI shows the output's tail)
log_dir=$(mktemp -d /tmp/flexlet-tests.XXXXXX)

# count_tap NAME LOGFILE EXIT_CODE: adds the TAP results of one runner to the totals.
count_tap() {
        local name=$1 log=$2 rc=$3 ok notok
        ok=$(grep -cE '^ok ' "$log" || true)
        notok=$(grep -cE '^not ok ' "$log" || true)
        passed=$((passed + ok))
        failed=$((failed + notok))
        if [ "$notok" -gt 0 ]; then
                echo "--- $name: $notok failed"
                grep -E '^not ok |^# ' "$log" | head -40
                failures+=("$name: $(grep -E '^not ok ' "$log" | head -3 | tr '\n' ';')")
        fi
        if [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
                failed=$((failed + 1))
                echo "--- $name: exited $rc without reporting a failure"
                tail -20 "$log"
                failures+=("$name: exited $rc without reporting a failure")
        fi
}

# build_step NAME COMMAND...: a build that fails counts as one failure.
build_step() {
        local name=$1
        shift
        if "$@" >"$log_dir/$name.build" 2>&1; then
                return 0
        fi
        echo "--- build $name failed"
        tail -30 "$log_dir/$name.build"
        failed=$((failed + 1))
        failures+=("build $name failed")
        return 1
}

run_units() {
        local dir=$1 label=$2 t log
        for t in $(find "$dir/tests/unit" -type f -perm -u+x -name 'test-*' 2>/dev/null | sort); do
                log="$log_dir/$label-$(basename "$t").log"
                CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
                count_tap "$label $(basename "$t")" "$log" $?
        done
}

nproc=$(nproc 2>/dev/null || echo 2)

# The node's end-to-end suites on cgroup v2 run in a qemu guest (tests/vm/run.sh) on build/flexlet,
# beside everything below, so it is built and the guest started before anything else: the guest
# is CPU-bound emulation, the host's suites mostly wait on processes. The issue's suites first
# (node, resize, resize crash, persistent volumes), the usage metrics `kubectl top` reads from
# the cgroups, then the kernel's behaviour and serve's
# setup checks: a suite not started 30 minutes after boot is skipped, saying so; one that starts
# and does not end by 36 minutes 40 seconds fails. The host's part takes longer than that (about
# 50 minutes), so the guest's budget does not lengthen the run.
# Its exit code goes to a file, as the API suites' do: `wait PID` cannot be trusted for it half
# an hour later (bash forgets a finished job's status once a new child of its own reuses the
# PID, and the suites fork through this machine's 32768 PIDs several times).
vm_pid=
main_built=
if build_step main make -j"$nproc" all; then
        main_built=1
        {
                bash tests/vm/run.sh -t 2200 -b 1800 -o "$log_dir/vm" tests/e2e/test-node.sh \
                        tests/e2e/test-resize.sh tests/e2e/test-resize-crash.sh tests/e2e/test-pv-node.sh \
                        tests/e2e/test-top.sh tests/e2e/test-cgroup-kernel.sh tests/vm/test-v2-setup.sh >"$log_dir/vm.log" 2>&1
                echo $? >"$log_dir/vm.rc"
        } &
        vm_pid=$!
fi

echo "== static checks"
for check in format-check lint; do
        if make -s "$check" >"$log_dir/$check.log" 2>&1; then
                echo "ok 1 - make $check" >"$log_dir/$check.tap"
        else
                { echo "not ok 1 - make $check"; tail -20 "$log_dir/$check.log" | sed 's/^/# /'; } >"$log_dir/$check.tap"
        fi
        count_tap "make $check" "$log_dir/$check.tap" 0
done

echo "== unit tests"
if [ -n "$main_built" ] && build_step unit make -j"$nproc" unit-tests; then
        run_units build unit
fi

echo "== unit tests under ASan+UBSan"
if build_step asan make -j"$nproc" test-asan; then
        ASAN_OPTIONS=detect_leaks=1 run_units build-asan asan
fi

echo "== fuzz smoke"
if build_step fuzz make -j"$nproc" fuzz-build; then
        for f in build-fuzz/tests/fuzz/fuzz-*; do
                [ -x "$f" ] || continue
                name=$(basename "$f")
                corpus="tests/fuzz/corpus/${name#fuzz-}"
                work=$(mktemp -d)
                cp -r "$corpus"/. "$work"/ 2>/dev/null
                if "$f" -max_total_time=15 -rss_limit_mb=1024 "$work" >"$log_dir/$name.log" 2>&1; then
                        echo "ok 1 - $name" >"$log_dir/$name.tap"
                else
                        echo "not ok 1 - $name" >"$log_dir/$name.tap"
                        tail -30 "$log_dir/$name.log" | sed 's/^/# /' >>"$log_dir/$name.tap"
                fi
                rm -rf "$work"
                count_tap "$name" "$log_dir/$name.tap" 0
        done
fi

echo "== API tests (real kubectl against flexlet serve, plain and under ASan+UBSan)"
# The two builds' suites run at the same time, each server on its own data dir and a port from
# its own range (FLEXLET_TEST_PORT_BASE): they mostly wait on kubectl and the server, so together
# they take little more than the ASan half alone. Each run leaves its log and exit code; the
# counting is after both, in order.
api_suites() {
        local bin=$1 port_base=$2 t log
        for t in tests/api/test-*.sh; do
                [ -f "$t" ] || continue
                log="$log_dir/$(basename "$t")-$(dirname "$bin").log"
                FLEXLET_BIN="$PWD/$bin" FLEXLET_TEST_PORT_BASE=$port_base ASAN_OPTIONS=detect_leaks=1 \
                        bash "$t" >"$log" 2>&1
                echo $? >"$log.rc"
        done
}
api_pids=()
port_base=10000 # 10000-19999 and 20000-29999: below the kernel's ephemeral ports (32768 up)
for bin in build/flexlet build-asan/flexlet; do
        [ -x "$bin" ] || continue
        api_suites "$bin" "$port_base" &
        api_pids+=($!)
        port_base=$((port_base + 10000))
done
for pid in "${api_pids[@]}"; do
        wait "$pid"
done
for bin in build/flexlet build-asan/flexlet; do
        [ -x "$bin" ] || continue
        for t in tests/api/test-*.sh; do
                [ -f "$t" ] || continue
                log="$log_dir/$(basename "$t")-$(dirname "$bin").log"
                count_tap "$(basename "$t") ($bin)" "$log" "$(cat "$log.rc" 2>/dev/null || echo 1)"
        done
done

echo "== end-to-end tests (root: real processes, cgroups, mounts)"
for t in tests/e2e/test-*.sh; do
        [ -f "$t" ] || continue
        log="$log_dir/$(basename "$t").log"
        bash "$t" >"$log" 2>&1
        count_tap "$(basename "$t")" "$log" $?
done

echo "== end-to-end tests on cgroup v2, in the qemu guest started after the build"
if [ -n "$vm_pid" ]; then
        wait "$vm_pid"
        count_tap "cgroup v2 guest" "$log_dir/vm.log" "$(cat "$log_dir/vm.rc" 2>/dev/null || echo 1)"
        grep -E '^1\.\.0 # SKIP|^ok .*# SKIP' "$log_dir/vm.log" | sed 's/^/--- cgroup v2 guest: /'
else
        echo "not ok 1 - cgroup v2 guest: not started, build/flexlet was not built" >"$log_dir/vm.log"
        count_tap "cgroup v2 guest" "$log_dir/vm.log" 0
fi

echo "logs: $log_dir"
for f in "${failures[@]}"; do
        echo "--- failed: $f"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
