/* job-index.c: completion index sets of Indexed Jobs (job-index.h): parsing the interval
 * strings leniently (the controller) or strictly (validation), membership, insertion that keeps
 * the intervals merged, and the string upstream writes. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/job-index.h"
#include "base/alloc.h"
#include "base/strbuf.h"

/* K8S: strconv.Atoi: an optional sign then decimal digits, in range. */
static int atoi_strict(const char *s, size_t n, int *ret)
{
        char buf[32];
        char *end;
        long long v;

        if (n == 0 || n >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, s, n);
        buf[n] = '\0';
        if (!((buf[0] >= '0' && buf[0] <= '9') ||
              ((buf[0] == '+' || buf[0] == '-') && buf[1] >= '0' && buf[1] <= '9')))
                return -EINVAL;
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (errno || *end || v < INT_MIN || v > INT_MAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

/* One "x" or "x-y" piece: 0 with the interval, or -EINVAL with *ret_error (may be NULL). */
static int parse_interval(const char *s, size_t n, int completions, int *ret_first, int *ret_last,
                          char **ret_error)
{
        const char *dash = memchr(s, '-', n);
        size_t n1 = dash ? (size_t) (dash - s) : n;
        int x, y;

        if (dash && memchr(dash + 1, '-', n - n1 - 1)) {
                if (ret_error)
                        *ret_error = xasprintf(
                                "the fragment \"%.*s\" violates the requirement that an index interval can have at most two parts separated by '-'",
                                (int) n, s);
                return -EINVAL;
        }
        if (atoi_strict(s, n1, &x) < 0) {
                if (ret_error)
                        *ret_error =
                                xasprintf("cannot convert string to integer for index: \"%.*s\"",
                                          (int) n1, s);
                return -EINVAL;
        }
        if (x >= completions) {
                if (ret_error)
                        *ret_error = xasprintf("too large index: \"%.*s\"", (int) n1, s);
                return -EINVAL;
        }
        y = x;
        if (dash) {
                size_t n2 = n - n1 - 1;

                if (atoi_strict(dash + 1, n2, &y) < 0) {
                        if (ret_error)
                                *ret_error = xasprintf(
                                        "cannot convert string to integer for index: \"%.*s\"",
                                        (int) n2, dash + 1);
                        return -EINVAL;
                }
                if (y >= completions) {
                        if (ret_error)
                                *ret_error =
                                        xasprintf("too large index: \"%.*s\"", (int) n2, dash + 1);
                        return -EINVAL;
                }
                if (x >= y) {
                        if (ret_error)
                                *ret_error = xasprintf(
                                        "non-increasing order, previous: %d, current: %d", x, y);
                        return -EINVAL;
                }
        }
        *ret_first = x;
        *ret_last = y;
        return 0;
}

static void add_interval(struct job_index_set *set, int first, int last)
{
        size_t i = 0, j;

        if (first < 0)
                first = 0;
        if (last < first)
                return;
        /* the first interval that ends at or after first - 1 */
        while (i < set->n && set->items[i].last < first - 1)
                i++;
        /* merge every interval that starts at or before last + 1 */
        j = i;
        while (j < set->n && set->items[j].first <= last + 1) {
                if (set->items[j].first < first)
                        first = set->items[j].first;
                if (set->items[j].last > last)
                        last = set->items[j].last;
                j++;
        }
        if (j == i) {
                set->items = xrealloc(set->items, (set->n + 1) * sizeof(*set->items));
                memmove(set->items + i + 1, set->items + i, (set->n - i) * sizeof(*set->items));
                set->n++;
        } else if (j > i + 1) {
                memmove(set->items + i + 1, set->items + j, (set->n - j) * sizeof(*set->items));
                set->n -= j - i - 1;
        }
        set->items[i] = (struct job_index_interval){ first, last };
}

void job_index_set_parse(const char *s, int completions, struct job_index_set *ret)
{
        *ret = (struct job_index_set){ 0 };
        while (s && *s) {
                const char *comma = strchr(s, ',');
                size_t n = comma ? (size_t) (comma - s) : strlen(s);
                int x, y;

                /* K8S: a piece that does not parse is skipped (the API refuses it anyway) */
                if (parse_interval(s, n, completions, &x, &y, NULL) == 0)
                        add_interval(ret, x, y);
                s = comma ? comma + 1 : s + n;
        }
}

int job_index_set_validate(const char *s, int completions, long long *ret_total, char **ret_error)
{
        long long total = 0;
        bool have_last = false;
        int last = 0;

        /* K8S: an empty string is the empty set */
        if (!s || !*s) {
                *ret_total = 0;
                return 0;
        }
        for (;;) {
                const char *comma = strchr(s, ',');
                size_t n = comma ? (size_t) (comma - s) : strlen(s);
                int x, y;

                if (parse_interval(s, n, completions, &x, &y, ret_error) < 0)
                        return -EINVAL;
                if (have_last && last >= x) {
                        *ret_error = xasprintf("non-increasing order, previous: %d, current: %d",
                                               last, x);
                        return -EINVAL;
                }
                total += (long long) y - x + 1;
                last = y;
                have_last = true;
                if (!comma)
                        break;
                /* a trailing comma leaves an empty piece, which Atoi refuses */
                s = comma + 1;
        }
        *ret_total = total;
        return 0;
}

bool job_index_set_contains(const struct job_index_set *set, int i)
{
        for (size_t k = 0; k < set->n; k++)
                if (i >= set->items[k].first && i <= set->items[k].last)
                        return true;
        return false;
}

void job_index_set_add(struct job_index_set *set, int i)
{
        add_interval(set, i, i);
}

long long job_index_set_count(const struct job_index_set *set)
{
        long long n = 0;

        for (size_t k = 0; k < set->n; k++)
                n += (long long) set->items[k].last - set->items[k].first + 1;
        return n;
}

char *job_index_set_format(const struct job_index_set *set)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t k = 0; k < set->n; k++) {
                if (set->items[k].first == set->items[k].last)
                        strbuf_addf(&sb, "%s%d", k ? "," : "", set->items[k].first);
                else
                        strbuf_addf(&sb, "%s%d-%d", k ? "," : "", set->items[k].first,
                                    set->items[k].last);
        }
        return strbuf_detach(&sb);
}

void job_index_set_release(struct job_index_set *set)
{
        free(set->items);
        *set = (struct job_index_set){ 0 };
}
