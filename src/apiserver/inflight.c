/* inflight.c: the max-in-flight limits: classifying a request as upstream does and counting
 * the requests being handled, per kind. Nothing here waits: past the limit is a 429 now. */
#include <errno.h>
#include <string.h>

#include "apiserver/inflight.h"
#include "apiserver/status.h"
#include "base/alloc.h"

void inflight_init(struct inflight *f, unsigned max_readonly, unsigned max_mutating)
{
        f->max[INFLIGHT_LONG_RUNNING] = 0;
        f->max[INFLIGHT_READONLY] = max_readonly;
        f->max[INFLIGHT_MUTATING] = max_mutating;
        for (size_t i = 0; i < ARRAY_SIZE(f->count); i++)
                atomic_init(&f->count[i], 0);
}

/* Whether the n-th '/'-separated segment of path (n from 0) is word. */
static bool segment_is(const char *path, int n, const char *word)
{
        const char *p = path;

        for (;;) {
                size_t len;

                while (*p == '/')
                        p++;
                if (!*p)
                        return false;
                len = strcspn(p, "/");
                if (n-- == 0)
                        return word && len == strlen(word) && strncmp(p, word, len) == 0;
                p += len;
        }
}

/* The number of segments of path. */
static int segments(const char *path)
{
        int n = 0;

        for (const char *p = path; *p;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                n++;
                p += strcspn(p, "/");
        }
        return n;
}

/* K8S: k8s.io/apiserver/pkg/endpoints/request/requestinfo.go: after /api/VERSION or
 * /apis/GROUP/VERSION come an optional "watch", an optional namespaces/NS (unless the path
 * names the namespace's own status or finalize), then RESOURCE/NAME/SUBRESOURCE. The index of
 * the subresource segment, or -1 for a path that is not a resource's. */
static int subresource_index(const char *path, bool *watch_prefix)
{
        int n = segments(path), i;

        *watch_prefix = false;
        if (segment_is(path, 0, "api"))
                i = 2;
        else if (segment_is(path, 0, "apis"))
                i = 3;
        else
                return -1;
        if (segment_is(path, i, "watch")) {
                *watch_prefix = true;
                i++;
        }
        if (segment_is(path, i, "namespaces") && n > i + 2 && !segment_is(path, i + 2, "status") &&
            !segment_is(path, i + 2, "finalize"))
                i += 2;
        return n > i + 2 ? i + 2 : -1;
}

enum inflight_kind inflight_classify(const char *method, const char *path, const char *watch_param)
{
        static const char *const long_running[] = { "log", "exec", "attach", "portforward",
                                                    "proxy" };
        bool readonly = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
        bool watch_prefix;
        int sub = subresource_index(path, &watch_prefix);

        if (readonly && (watch_prefix || (watch_param && (strcmp(watch_param, "true") == 0 ||
                                                          strcmp(watch_param, "1") == 0))))
                return INFLIGHT_LONG_RUNNING;
        for (size_t i = 0; sub >= 0 && i < ARRAY_SIZE(long_running); i++)
                if (segment_is(path, sub, long_running[i]))
                        return INFLIGHT_LONG_RUNNING;
        return readonly ? INFLIGHT_READONLY : INFLIGHT_MUTATING;
}

bool inflight_enter(struct inflight *f, enum inflight_kind kind)
{
        unsigned max = f->max[kind];

        if (kind == INFLIGHT_LONG_RUNNING)
                return true;
        if (atomic_fetch_add(&f->count[kind], 1) < max || max == 0)
                return true;
        atomic_fetch_sub(&f->count[kind], 1);
        return false;
}

void inflight_leave(struct inflight *f, enum inflight_kind kind)
{
        if (kind != INFLIGHT_LONG_RUNNING)
                atomic_fetch_sub(&f->count[kind], 1);
}

void inflight_refuse(struct http_response *resp)
{
        json_t *details = json_pack("{s:i}", "retryAfterSeconds", 1);

        status_respond(resp, EAGAIN, "Too many requests, please try again later.", details);
        resp->retry_after_s = 1;
}
