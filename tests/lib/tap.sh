# tap.sh: TAP output for black-box shell tests. Source it; call `ok NAME`, `not_ok NAME DETAIL`,
# or the check helpers; `tap_done` prints the plan and exits non-zero if anything failed.

TAP_N=0
TAP_FAILED=0

ok() {
        TAP_N=$((TAP_N + 1))
        echo "ok $TAP_N - $1"
}

not_ok() {
        TAP_N=$((TAP_N + 1))
        TAP_FAILED=$((TAP_FAILED + 1))
        echo "not ok $TAP_N - $1"
        shift
        printf '%s\n' "$@" | sed 's/^/#   /'
}

# check NAME COMMAND...: passes when the command exits 0.
check() {
        local name=$1 out
        shift
        if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "command: $*" "$out"; fi
}

# check_fails NAME COMMAND...: passes when the command exits non-zero.
check_fails() {
        local name=$1 out
        shift
        if out=$("$@" 2>&1); then not_ok "$name" "command succeeded: $*" "$out"; else ok "$name"; fi
}

# check_output NAME EXPECTED_SUBSTRING COMMAND...: passes when the combined output contains
# the expected text (exit status ignored: error messages are checked this way).
check_output() {
        local name=$1 want=$2 out
        shift 2
        out=$("$@" 2>&1)
        if [[ "$out" == *"$want"* ]]; then
                ok "$name"
        else
                not_ok "$name" "command: $*" "expected to contain: $want" "got: $out"
        fi
}

# check_equal NAME EXPECTED ACTUAL
check_equal() {
        if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "got: $3"; fi
}

tap_done() {
        echo "1..$TAP_N"
        [ "$TAP_FAILED" -eq 0 ]
}
