/* workload.c: the pod-template-hash, the rolling update's fenceposts and pod availability
 * (workload.h). Pure: the controllers and validation call these; nothing here does I/O. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/error.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"

#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME  16777619u

static uint32_t fnv32a(uint32_t h, const void *data, size_t n)
{
        const unsigned char *p = data;

        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= FNV32_PRIME;
        }
        return h;
}

char *workload_template_hash(const json_t *tmpl, const int32_t *collision_count)
{
        /* K8S: rand.SafeEncodeString's alphabet: no vowels, no 0/1/3 (no words, no look-alikes) */
        static const char alphanums[] = "bcdfghjklmnpqrstvwxz2456789";
        cleanup_free char *text = json_dumps(tmpl, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        uint32_t h = FNV32_OFFSET;
        char digits[16];
        size_t n;

        if (text)
                h = fnv32a(h, text, strlen(text));
        if (collision_count) {
                uint32_t c = (uint32_t) *collision_count;
                unsigned char le[8] = { (unsigned char) c, (unsigned char) (c >> 8),
                                        (unsigned char) (c >> 16), (unsigned char) (c >> 24) };
                h = fnv32a(h, le, sizeof(le));
        }
        n = (size_t) snprintf(digits, sizeof(digits), "%u", h);
        for (size_t i = 0; i < n; i++)
                digits[i] = alphanums[(unsigned char) digits[i] % (sizeof(alphanums) - 1)];
        return xstrdup(digits);
}

int workload_scaled_value(const json_t *v, int total, bool round_up, int *ret)
{
        const char *s;
        char *end;
        long long pct;
        size_t n;

        if (json_is_integer(v)) {
                json_int_t i = json_integer_value(v);
                if (i < INT_MIN || i > INT_MAX)
                        return -EINVAL;
                *ret = (int) i;
                return 0;
        }
        s = json_string_value(v);
        n = s ? strlen(s) : 0;
        if (n < 2 || s[n - 1] != '%' || s[0] == '+' || s[0] == '-' || s[0] == ' ')
                return -EINVAL;
        errno = 0;
        pct = strtoll(s, &end, 10);
        if (errno || end != s + n - 1 || pct > INT_MAX)
                return -EINVAL;
        /* K8S: math.Ceil / math.Floor of float64(value) * float64(total) / 100 */
        {
                long long prod = pct * (long long) total;
                long long q = prod / 100, r = prod % 100;
                if (round_up && r > 0)
                        q++;
                if (q > INT_MAX)
                        return -EINVAL;
                *ret = (int) q;
        }
        return 0;
}

int workload_resolve_fenceposts(const json_t *max_surge, const json_t *max_unavailable, int desired,
                                int *ret_surge, int *ret_unavailable)
{
        int surge = 0, unavailable = 0;

        if (max_surge && workload_scaled_value(max_surge, desired, true, &surge) < 0)
                return -EINVAL;
        if (max_unavailable &&
            workload_scaled_value(max_unavailable, desired, false, &unavailable) < 0)
                return -EINVAL;
        if (surge == 0 && unavailable == 0)
                /* K8S: "Validation should never allow the user to explicitly use zero values for
                 * both maxSurge maxUnavailable. Due to rounding down maxUnavailable though, it
                 * may resolve to zero. If both fenceposts resolve to zero, then we should set
                 * maxUnavailable to 1 on the basis that we will always have at least one
                 * available pod." (ResolveFenceposts) */
                unavailable = 1;
        *ret_surge = surge;
        *ret_unavailable = unavailable;
        return 0;
}

static const json_t *ready_condition(const json_t *pod)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                if (type && streq(type, "Ready"))
                        return c;
        }
        return NULL;
}

bool workload_pod_ready(const json_t *pod)
{
        const json_t *c = ready_condition(pod);
        const char *status = c ? json_string_value(json_object_get(c, "status")) : NULL;

        return status && streq(status, "True");
}

bool workload_pod_available(const json_t *pod, int min_ready_seconds, time_t now)
{
        const json_t *c = ready_condition(pod);
        const char *since;
        time_t t;

        if (!workload_pod_ready(pod))
                return false;
        if (min_ready_seconds <= 0)
                return true;
        since = json_string_value(json_object_get(c, "lastTransitionTime"));
        if (!since || time_parse_rfc3339(since, &t) < 0)
                return false;
        return t + min_ready_seconds <= now;
}

/* Whether two resource list values (strings or numbers) name the same quantity. */
static bool same_quantity(const json_t *a, const json_t *b)
{
        cleanup_error struct error *ea = NULL, *eb = NULL;
        struct quantity qa, qb;
        const char *sa = json_string_value(a), *sb = json_string_value(b);

        if (!sa || !sb)
                return json_equal(a, b);
        if (quantity_parse(sa, &qa, &ea) < 0 || quantity_parse(sb, &qb, &eb) < 0)
                return streq(sa, sb);
        return quantity_cmp(&qa, &qb) == 0;
}

char *workload_pod_resize_diff(const json_t *tmpl, const json_t *pod)
{
        static const char *const kinds[] = { "requests", "limits" };
        static const char *const names[] = { "cpu", "memory" };
        struct strbuf sb;
        size_t i, j;
        json_t *cs, *c;

        strbuf_init(&sb);
        json_array_foreach(json_path(pod, "status.containerStatuses"), i, cs) {
                const char *name = json_string_value(json_object_get(cs, "name"));
                const json_t *have = json_object_get(cs, "resources");
                const json_t *want = NULL;

                if (!name || !json_is_object(have))
                        continue;
                json_array_foreach(json_path(tmpl, "spec.containers"), j, c) {
                        if (streq(json_string_value(json_object_get(c, "name")) ?: "", name))
                                want = json_object_get(c, "resources");
                }
                for (size_t k = 0; k < 2; k++)
                        for (size_t n = 0; n < 2; n++) {
                                const json_t *h =
                                        json_object_get(json_object_get(have, kinds[k]), names[n]);
                                const json_t *w =
                                        json_object_get(json_object_get(want, kinds[k]), names[n]);

                                if (!h && !w)
                                        continue;
                                if (h && w && same_quantity(h, w))
                                        continue;
                                strbuf_addf(&sb, "%s%s %s.%s %s (template %s)", sb.len ? ", " : "",
                                            name, kinds[k], names[n],
                                            json_string_value(h) ?: "none",
                                            json_string_value(w) ?: "none");
                        }
        }
        if (!sb.len) {
                strbuf_release(&sb);
                return NULL;
        }
        return strbuf_detach(&sb);
}
