/* inflight.h: kube-apiserver's max-in-flight limits (--max-requests-inflight and
 * --max-mutating-requests-inflight): at most so many read-only and so many mutating requests
 * are handled at once; one past the limit is refused with 429, Retry-After: 1. Long-running
 * requests (watches, pods/log and the other streaming subresources) are not counted, as
 * upstream (k8s.io/apiserver filters/maxinflight.go with BasicLongRunningRequestCheck).
 *
 * Threads: inflight_enter and inflight_leave may be called from any thread. */
#ifndef FLEXLET_APISERVER_INFLIGHT_H
#define FLEXLET_APISERVER_INFLIGHT_H

#include <stdatomic.h>
#include <stdbool.h>

#include "http/http.h"

/* K8S: the defaults of kube-apiserver's flags. */
#define INFLIGHT_DEFAULT_READONLY 400
#define INFLIGHT_DEFAULT_MUTATING 200

enum inflight_kind {
        INFLIGHT_LONG_RUNNING, /* not counted */
        INFLIGHT_READONLY,
        INFLIGHT_MUTATING,
};

struct inflight {
        unsigned max[3]; /* by kind; 0: no limit */
        atomic_uint count[3];
};

/* Limits of 0 mean no limit (as upstream's flags). */
void inflight_init(struct inflight *f, unsigned max_readonly, unsigned max_mutating);

/* K8S: how upstream classifies a request: GET/HEAD are read-only (verbs get, list, watch),
 * anything else mutating; a watch (watch=true|1, or a /watch/ path) and the subresources
 * log, exec, attach, portforward and proxy are long-running. */
enum inflight_kind inflight_classify(const char *method, const char *path, const char *watch_param);

/* Takes a slot of kind; false (nothing taken) when the kind is at its limit. */
bool inflight_enter(struct inflight *f, enum inflight_kind kind);
/* Gives back a slot inflight_enter took. */
void inflight_leave(struct inflight *f, enum inflight_kind kind);

/* The refusal: 429 TooManyRequests Status, Retry-After: 1 (K8S: maxinflight.go's
 * tooManyRequests; a Status body as every other error here). */
void inflight_refuse(struct http_response *resp);

#endif
