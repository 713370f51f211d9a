#!/usr/bin/env bash
# test-job.sh: batch/v1 Jobs end to end, as root, through kubectl 1.32 with pods that really run:
# a Job of 3 completions with parallelism 2 completes (SuccessCriteriaMet, then Complete); a
# failing Job ends Failed with BackoffLimitExceeded; a FailJob rule of the pod failure policy
# fails a Job at its first matching exit code; Indexed Jobs (each pod's JOB_COMPLETION_INDEX,
# hostname, index annotation and label; completedIndexes; backoffLimitPerIndex failing an index
# and the Job with FailedIndexes; a successPolicy completing the Job early);
# ttlSecondsAfterFinished removes a finished Job
# and its pods; and the three cascades of `kubectl delete job`: orphan keeps the pods (their
# ownerReferences and tracking finalizer removed), background removes them, foreground removes
# the pods before the Job.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

# job NAME COMMAND [SPEC_EXTRA_JSON]: a Job of busybox running COMMAND, restartPolicy Never
job() {
        k create -f - >/dev/null <<JSON
{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"$1"},
 "spec":{${3:+$3,}"template":{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","$2"]}]}}}}
JSON
}
jobs_api=/apis/batch/v1/namespaces/default/jobs
job_code() { api GET "$jobs_api/$1" -o /dev/null -w '%{http_code}'; }
pods_of() { kv 1.32 get pods -l "batch.kubernetes.io/job-name=$1" -o name 2>/dev/null | wc -l; }
conditions() { api GET "$jobs_api/$1" | jq -r '[.status.conditions[] | "\(.type)/\(.reason)"] | join(" ")'; }

# --- completions and parallelism
job ok3 "sleep 1" '"completions":3,"parallelism":2'
check_output "a Job of 3 completions, parallelism 2, completes" "condition met" \
        kv 1.32 wait --for=condition=Complete job/ok3 --timeout=60s
check_equal "3 pods succeeded, none failed, SuccessCriteriaMet came first" \
        "3 null SuccessCriteriaMet/CompletionsReached Complete/CompletionsReached" \
        "$(api GET "$jobs_api/ok3" | jq -r '"\(.status.succeeded) \(.status.failed)"') $(conditions ok3)"
check_equal "get jobs: NAME STATUS COMPLETIONS (1.32's columns)" "ok3 Complete 3/3" \
        "$(kv 1.32 get job ok3 --no-headers | awk '{print $1, $2, $3}')"
check_equal "its pods carry the job labels, are owned by the Job and no longer tracked" \
        "3 true 0" \
        "$(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dok3' | jq -r '[.items | length, all(.[]; .metadata.ownerReferences[0].kind == "Job" and .metadata.ownerReferences[0].blockOwnerDeletion), ([.[].metadata.finalizers // [] | length] | add)] | join(" ")')"
check_output "describe job" "Pods Statuses:    0 Active (0 Ready) / 3 Succeeded / 0 Failed" kv 1.32 describe job ok3

# --- failures
job fail "exit 3" '"backoffLimit":1'
check_output "a failing Job ends Failed" "condition met" kv 1.32 wait --for=condition=Failed job/fail --timeout=60s
check_equal "with BackoffLimitExceeded after backoffLimit + 1 failures" \
        "2 FailureTarget/BackoffLimitExceeded Failed/BackoffLimitExceeded" \
        "$(api GET "$jobs_api/fail" | jq -r .status.failed) $(conditions fail)"
job policy "exit 42" '"backoffLimit":6,"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"operator":"In","values":[42]}}]}'
check_output "a FailJob rule fails the Job at the first matching exit code" "condition met" \
        kv 1.32 wait --for=condition=Failed job/policy --timeout=60s
check_output "... with reason PodFailurePolicy and upstream's message" \
        "PodFailurePolicy Container c for pod default/policy-" \
        jq -r '.status.conditions[] | select(.type == "Failed") | "\(.reason) \(.message)"' <<<"$(api GET "$jobs_api/policy")"
check_equal "... after one pod" "1" "$(api GET "$jobs_api/policy" | jq -r .status.failed)"

# --- Indexed Jobs: each pod knows its index (env, annotation, label, hostname)
job idx 'echo $JOB_COMPLETION_INDEX $(hostname) > /dev/termination-log' '"completionMode":"Indexed","completions":3,"parallelism":3'
check_output "an Indexed Job of 3 completes" "condition met" kv 1.32 wait --for=condition=Complete job/idx --timeout=60s
check_equal "completedIndexes 0-2, succeeded 3; get jobs unchanged" "0-2 3 idx Complete 3/3" \
        "$(api GET "$jobs_api/idx" | jq -r '"\(.status.completedIndexes) \(.status.succeeded)"') $(kv 1.32 get job idx --no-headers | awk '{print $1, $2, $3}')"
check_equal "each pod: JOB_COMPLETION_INDEX, hostname <job>-<index>, the index annotation and label, name <job>-<index>-" \
        "0 idx-0 0 0 yes|1 idx-1 1 1 yes|2 idx-2 2 2 yes" \
        "$(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Didx' | jq -r '[.items[] | .metadata.annotations["batch.kubernetes.io/job-completion-index"] as $i | "\(.status.containerStatuses[0].state.terminated.message | rtrimstr("\n")) \($i) \(.metadata.labels["batch.kubernetes.io/job-completion-index"]) \(if (.metadata.name | startswith("idx-" + $i + "-")) then "yes" else "no" end)"] | sort | join("|")')"
# index 1 always fails: backoffLimitPerIndex 0 fails it at once, the others complete
job perindex '[ $JOB_COMPLETION_INDEX = 1 ] && exit 5; true' '"completionMode":"Indexed","completions":3,"parallelism":3,"backoffLimitPerIndex":0'
check_output "backoffLimitPerIndex: a failing index fails the Job once the others are done" "condition met" \
        kv 1.32 wait --for=condition=Failed job/perindex --timeout=60s
check_equal "completedIndexes 0,2, failedIndexes 1, reason FailedIndexes" "0,2 1 1 FailureTarget/FailedIndexes Failed/FailedIndexes" \
        "$(api GET "$jobs_api/perindex" | jq -r '"\(.status.completedIndexes) \(.status.failedIndexes) \(.status.failed)"') $(conditions perindex)"
# successPolicy: index 0 alone suffices; the other index never ends and is deleted
job policy0 '[ $JOB_COMPLETION_INDEX = 0 ] && exit 0; sleep 300' '"completionMode":"Indexed","completions":2,"parallelism":2,"successPolicy":{"rules":[{"succeededIndexes":"0"}]}'
check_output "successPolicy: index 0 succeeding completes the Job" "condition met" \
        kv 1.32 wait --for=condition=Complete job/policy0 --timeout=60s
check_equal "SuccessCriteriaMet then Complete, reason SuccessPolicy, the running index deleted" \
        "SuccessCriteriaMet/SuccessPolicy Complete/SuccessPolicy 0" \
        "$(conditions policy0) $(api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dpolicy0' | jq '[.items[] | select(.status.phase == "Running" and .metadata.deletionTimestamp == null)] | length')"

# --- ttlSecondsAfterFinished
job ttl "true" '"ttlSecondsAfterFinished":0'
until_equal "ttlSecondsAfterFinished: 0 removes the finished Job" 404 job_code ttl
until_equal "... and its pods" 0 pods_of ttl

# --- cascades (kubectl 1.32 sends propagationPolicy)
job orph "sleep 300"
job bg "sleep 300"
job fg "sleep 300"
for j in orph bg fg; do
        until_equal "$j: its pod runs" Running kv 1.32 get pods -l "job-name=$j" -o 'jsonpath={.items[0].status.phase}'
done
check_output "delete --cascade=orphan" 'job.batch "orph" deleted' kv 1.32 delete job orph --cascade=orphan
orphan_state() { api GET '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dorph' | jq -r '.items[0] | "\(.status.phase) \(.metadata.ownerReferences) \(.metadata.finalizers)"'; }
until_equal "the orphaned pod keeps running, without ownerReferences or tracking finalizer" \
        "Running null null" orphan_state
check_output "delete (background)" 'job.batch "bg" deleted' kv 1.32 delete job bg --wait=false
until_equal "the background delete removes the Job's pods" 0 pods_of bg
check_output "delete --cascade=foreground" 'job.batch "fg" deleted' kv 1.32 delete job fg --cascade=foreground --wait=false
check_equal "the Job waits with the foregroundDeletion finalizer" '["foregroundDeletion"]' \
        "$(api GET "$jobs_api/fg" | jq -c .metadata.finalizers)"
for _ in $(seq 1 300); do [ "$(job_code fg)" = 404 ] && break; sleep 0.2; done
check_equal "the foreground delete removes the pods, then the Job" "404 0" "$(job_code fg) $(pods_of fg)"
check "delete the orphaned pod" kv 1.32 delete pods -l job-name=orph --timeout=30s
check "delete the remaining Jobs" k delete jobs --all --cascade=background --timeout=30s
server_check_log
tap_done
