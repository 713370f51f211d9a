/* job-index.h: the sets of completion indexes of an Indexed Job as upstream writes them in
 * status.completedIndexes, status.failedIndexes and successPolicy's succeededIndexes (K8S:
 * pkg/controller/job/indexed_job_utils.go orderedIntervals, pkg/apis/batch/validation
 * validateIndexesFormat): ascending, non-overlapping intervals "1,3-5,7", a single index alone,
 * two or more consecutive ones as "first-last". Pure; the set owns its array. */
#ifndef FLEXLET_API_JOB_INDEX_H
#define FLEXLET_API_JOB_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/* K8S: the pod annotation and label carrying a pod's index, and the annotation counting the
 * failures of its index (backoffLimitPerIndex). */
#define JOB_COMPLETION_INDEX_KEY     "batch.kubernetes.io/job-completion-index"
#define JOB_INDEX_FAILURE_COUNT_KEY  "batch.kubernetes.io/job-index-failure-count"
#define JOB_COMPLETION_INDEX_ENV_VAR "JOB_COMPLETION_INDEX"

struct job_index_interval {
        int first, last;
};

struct job_index_set {
        struct job_index_interval *items; /* ascending, disjoint, not adjacent */
        size_t n;
};

/* K8S: parseIndexesFromString, lenient as the controller is: pieces that do not parse, or
 * that reach completions or beyond, are left out; the result is sorted and merged. s may be
 * NULL or "". */
void job_index_set_parse(const char *s, int completions, struct job_index_set *ret);
/* K8S: validateIndexesFormat and parseIndexInterval, strict as the API is: 0 with *ret_total
 * the number of indexes, or -EINVAL with *ret_error (caller frees) in upstream's words: "cannot
 * convert string to integer for index: \"x\"", "the fragment \"1-2-3\" violates the requirement
 * that an index interval can have at most two parts separated by '-'", "too large index:
 * \"9\"", "non-increasing order, previous: 5, current: 3" (a range "4-2" or "3-3" too). */
int job_index_set_validate(const char *s, int completions, long long *ret_total, char **ret_error);
bool job_index_set_contains(const struct job_index_set *set, int i);
void job_index_set_add(struct job_index_set *set, int i);
/* The number of indexes in the set. */
long long job_index_set_count(const struct job_index_set *set);
/* "1,3-5,7" ("" for the empty set); caller frees. */
char *job_index_set_format(const struct job_index_set *set);
void job_index_set_release(struct job_index_set *set);

#endif
