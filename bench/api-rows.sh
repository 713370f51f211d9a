# api-rows.sh: sourced by the bench runners that read api-bench's report (run-scaleout-bench.sh,
# run-etcd-writes-bench.sh). The caller declares the associative array R and a die function.
# api_rows PREFIX REPORT: api-bench's table rows for create and PATCH, as
# R[PREFIX.<op><clients>.{n,rate,p50,p99}] (n: requests made); errors fail the benchmark.
api_rows() {
        local op clients n errors rate p50 p99
        while IFS='|' read -r _ op clients n errors rate p50 p99 _; do
                op=$(echo "$op" | xargs) clients=$(echo "$clients" | xargs)
                case "$op" in
                "POST pod (create)") op="create" ;;
                "PATCH pods/x/resize") op="patch" ;;
                *) continue ;;
                esac
                [ "$(echo "$errors" | xargs)" = 0 ] || die "api-bench on $1: $op with $clients clients had $errors errors"
                R[$1.$op$clients.n]=$(echo "$n" | xargs)
                R[$1.$op$clients.rate]=$(echo "$rate" | xargs)
                R[$1.$op$clients.p50]=$(echo "$p50" | xargs)
                R[$1.$op$clients.p99]=$(echo "$p99" | xargs)
        done < <(grep '^| ' "$2")
}
