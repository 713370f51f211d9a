/* metrics.c: the metrics registry, its families and children, scrape-time collectors, and the
 * Prometheus text exposition (0.0.4) written the way prometheus/common's expfmt writes it.
 * It does not serve HTTP: the API server and the node agent put metrics_render's text in their
 * /metrics responses. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/metrics.h"
#include "base/utf8.h"

/* One time series: a tuple of label values and its value. */
struct metric_child {
        char **values; /* one per label, in the family's sorted label-name order */
        /* Counter and gauge: the double's bits, updated by compare-and-swap (client_golang
         * keeps a float64 the same way). */
        _Atomic uint64_t bits;
        /* Histogram, under the family's lock: observations per bucket (not cumulative), the
         * last one for +Inf; their sum and count. */
        uint64_t *counts;
        double sum;
        uint64_t count;
};

/* Children sorted by label values, compared in label-name order (client_golang's
 * metricSorter over label pairs sorted by name). */
struct child_set {
        struct metric_child **items;
        size_t n, alloc;
};

struct metric {
        struct metrics_registry *reg;
        enum metric_type type;
        bool collected;
        char *name;
        char *help;
        size_t nlabels;
        char **label_names; /* sorted */
        size_t *order;      /* order[k]: index in the caller's label values of label_names[k] */
        double *bounds;     /* histogram upper bounds without +Inf */
        size_t nbounds;
        pthread_mutex_t lock; /* children membership and histogram counts */
        struct child_set children;
        struct child_set scraped; /* collected family: this render's values (registry lock) */
};

struct collector {
        metrics_collect_fn fn;
        void *userdata;
};

struct metrics_registry {
        pthread_mutex_t lock;
        struct metric **families; /* sorted by name */
        size_t nfamilies;
        struct collector *collectors;
        size_t ncollectors;
};

struct metrics_scrape {
        struct metrics_registry *reg;
        int r;               /* first failure of metrics_scrape_set, 0 if none */
        struct error *error; /* its explanation */
};

const double metrics_def_buckets[11] = { .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10 };

static const char *const metric_type_names[METRIC_TYPE_MAX] = {
        [METRIC_COUNTER] = "counter",
        [METRIC_GAUGE] = "gauge",
        [METRIC_HISTOGRAM] = "histogram",
};

const char *metric_type_to_string(enum metric_type t)
{
        if ((unsigned) t >= METRIC_TYPE_MAX)
                return NULL;
        return metric_type_names[t];
}

int metric_type_from_string(const char *s, enum metric_type *ret)
{
        for (size_t i = 0; i < METRIC_TYPE_MAX; i++)
                if (streq(s, metric_type_names[i])) {
                        *ret = (enum metric_type) i;
                        return 0;
                }
        return -EINVAL;
}

/* ---- doubles in atomics ---- */

static uint64_t double_bits(double d)
{
        uint64_t u;

        memcpy(&u, &d, sizeof(u));
        return u;
}

static double bits_double(uint64_t u)
{
        double d;

        memcpy(&d, &u, sizeof(d));
        return d;
}

static void atomic_add_double(_Atomic uint64_t *p, double delta)
{
        uint64_t old = atomic_load_explicit(p, memory_order_relaxed);

        while (!atomic_compare_exchange_weak_explicit(p, &old,
                                                      double_bits(bits_double(old) + delta),
                                                      memory_order_relaxed, memory_order_relaxed))
                ;
}

/* ---- names, label values ---- */

/* K8S: model.IsValidMetricName (legacy scheme): [a-zA-Z_:][a-zA-Z0-9_:]* */
static bool metric_name_valid(const char *s)
{
        if (!*s)
                return false;
        for (const char *p = s; *p; p++) {
                bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                             *p == ':';
                if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
                        return false;
        }
        return true;
}

/* K8S: client_golang checkLabelName: model.LabelName.IsValid ([a-zA-Z_][a-zA-Z0-9_]*) and no
 * reserved "__" prefix. */
static bool label_name_valid(const char *s)
{
        if (!*s || strncmp(s, "__", 2) == 0)
                return false;
        for (const char *p = s; *p; p++) {
                bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_';
                if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
                        return false;
        }
        return true;
}

static size_t strv_length(const char *const *v)
{
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

/* ---- child sets ---- */

static int child_cmp(const struct metric *m, const struct metric_child *c,
                     const char *const *values)
{
        for (size_t k = 0; k < m->nlabels; k++) {
                int r = strcmp(c->values[k], values[m->order[k]]);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* Binary search: true and *ret_pos = its index if found, else false and *ret_pos = where it
 * belongs. */
static bool child_set_find(const struct metric *m, const struct child_set *set,
                           const char *const *values, size_t *ret_pos)
{
        size_t lo = 0, hi = set->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int r = child_cmp(m, set->items[mid], values);

                if (r == 0) {
                        *ret_pos = mid;
                        return true;
                }
                if (r < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_pos = lo;
        return false;
}

static struct metric_child *child_new(const struct metric *m, const char *const *values)
{
        struct metric_child *c = xcalloc(1, sizeof(*c));

        c->values = xcalloc(m->nlabels ? m->nlabels : 1, sizeof(char *));
        for (size_t k = 0; k < m->nlabels; k++)
                c->values[k] = xstrdup(values[m->order[k]]);
        atomic_init(&c->bits, double_bits(0));
        if (m->type == METRIC_HISTOGRAM)
                c->counts = xcalloc(m->nbounds + 1, sizeof(uint64_t));
        return c;
}

static void child_free(const struct metric *m, struct metric_child *c)
{
        if (!c)
                return;
        for (size_t k = 0; k < m->nlabels; k++)
                free(c->values[k]);
        free(c->values);
        free(c->counts);
        free(c);
}

static void child_set_insert(struct child_set *set, size_t pos, struct metric_child *c)
{
        if (set->n == set->alloc) {
                set->alloc = set->alloc ? 2 * set->alloc : 4;
                set->items = xrealloc(set->items, set->alloc * sizeof(*set->items));
        }
        memmove(set->items + pos + 1, set->items + pos, (set->n - pos) * sizeof(*set->items));
        set->items[pos] = c;
        set->n++;
}

static void child_set_clear(const struct metric *m, struct child_set *set)
{
        for (size_t i = 0; i < set->n; i++)
                child_free(m, set->items[i]);
        set->n = 0;
}

static int check_label_values(const struct metric *m, const char *const *values)
{
        if (strv_length(values) != m->nlabels)
                return -EINVAL;
        return 0;
}

/* The child for these label values, created if missing; NULL when values are not UTF-8.
 * Called with m->lock held. */
static struct metric_child *child_get_locked(struct metric *m, const char *const *values)
{
        struct metric_child *c;
        size_t pos;

        if (child_set_find(m, &m->children, values, &pos))
                return m->children.items[pos];
        /* K8S: client_golang validateLabelValues: "label value %q is not valid UTF-8". */
        for (size_t i = 0; i < m->nlabels; i++)
                if (!utf8_valid(values[i], strlen(values[i])))
                        return NULL;
        c = child_new(m, values);
        child_set_insert(&m->children, pos, c);
        return c;
}

/* ---- families ---- */

static void metric_free(struct metric *m)
{
        if (!m)
                return;
        child_set_clear(m, &m->children);
        free(m->children.items);
        child_set_clear(m, &m->scraped);
        free(m->scraped.items);
        for (size_t k = 0; k < m->nlabels; k++)
                free(m->label_names[k]);
        free(m->label_names);
        free(m->order);
        free(m->bounds);
        free(m->name);
        free(m->help);
        pthread_mutex_destroy(&m->lock);
        free(m);
}

struct metrics_registry *metrics_registry_new(void)
{
        struct metrics_registry *reg = xcalloc(1, sizeof(*reg));

        pthread_mutex_init(&reg->lock, NULL);
        return reg;
}

struct metrics_registry *metrics_registry_free(struct metrics_registry *reg)
{
        if (!reg)
                return NULL;
        for (size_t i = 0; i < reg->nfamilies; i++)
                metric_free(reg->families[i]);
        free(reg->families);
        free(reg->collectors);
        pthread_mutex_destroy(&reg->lock);
        free(reg);
        return NULL;
}

static const char *const histogram_suffixes[] = { "_bucket", "_sum", "_count" };

/* True if a is histogram h's name followed by one of its series suffixes. */
static bool is_histogram_series(const char *a, const struct metric *h)
{
        size_t len = strlen(h->name);

        if (h->type != METRIC_HISTOGRAM || strncmp(a, h->name, len) != 0)
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(histogram_suffixes); i++)
                if (streq(a + len, histogram_suffixes[i]))
                        return true;
        return false;
}

/* Adds m to reg's families (sorted by name); -EEXIST if its name or series collide. Called with
 * reg->lock held. */
static int registry_add_locked(struct metrics_registry *reg, struct metric *m,
                               struct error **reterr)
{
        size_t pos = 0;

        for (size_t i = 0; i < reg->nfamilies; i++) {
                const struct metric *o = reg->families[i];
                int r = strcmp(o->name, m->name);

                if (r == 0)
                        return error_set(reterr, EEXIST, "metric \"%s\": already registered",
                                         m->name);
                /* K8S: client_golang Gather's checkSuffixCollisions: a histogram's _bucket,
                 * _sum and _count series must not meet another family's name. */
                if (is_histogram_series(m->name, o) || is_histogram_series(o->name, m))
                        return error_set(reterr, EEXIST,
                                         "metric \"%s\": collides with histogram \"%s\"", m->name,
                                         o->type == METRIC_HISTOGRAM ? o->name : m->name);
                if (r < 0)
                        pos = i + 1;
        }
        reg->families = xrealloc(reg->families, (reg->nfamilies + 1) * sizeof(*reg->families));
        memmove(reg->families + pos + 1, reg->families + pos,
                (reg->nfamilies - pos) * sizeof(*reg->families));
        reg->families[pos] = m;
        reg->nfamilies++;
        return 0;
}

struct metric *metrics_find(struct metrics_registry *reg, const char *name)
{
        struct metric *found = NULL;

        pthread_mutex_lock(&reg->lock);
        for (size_t i = 0; i < reg->nfamilies && !found; i++)
                if (streq(reg->families[i]->name, name))
                        found = reg->families[i];
        pthread_mutex_unlock(&reg->lock);
        return found;
}

static struct metric *family_new(struct metrics_registry *reg, enum metric_type type,
                                 bool collected, const char *name, const char *help,
                                 const char *const *label_names, const double *buckets,
                                 size_t nbuckets, struct error **reterr)
{
        struct metric *m;
        size_t n = strv_length(label_names);
        int r;

        if (!name || !metric_name_valid(name)) {
                error_set(reterr, EINVAL, "\"%s\" is not a valid metric name", name ? name : "");
                return NULL;
        }
        for (size_t i = 0; i < n; i++) {
                if (!label_name_valid(label_names[i])) {
                        error_set(reterr, EINVAL,
                                  "\"%s\" is not a valid label name for metric \"%s\"",
                                  label_names[i], name);
                        return NULL;
                }
                /* K8S: client_golang errBucketLabelNotAllowed. */
                if (type == METRIC_HISTOGRAM && streq(label_names[i], "le")) {
                        error_set(
                                reterr, EINVAL,
                                "metric \"%s\": \"le\" is not allowed as label name in histograms",
                                name);
                        return NULL;
                }
                for (size_t j = 0; j < i; j++)
                        if (streq(label_names[i], label_names[j])) {
                                error_set(reterr, EINVAL, "duplicate label names for metric \"%s\"",
                                          name);
                                return NULL;
                        }
        }
        if (type == METRIC_HISTOGRAM) {
                if (!buckets || nbuckets == 0) {
                        buckets = metrics_def_buckets;
                        nbuckets = ARRAY_SIZE(metrics_def_buckets);
                }
                /* The +Inf bucket is implicit; client_golang drops a given one. */
                if (isinf(buckets[nbuckets - 1]) && buckets[nbuckets - 1] > 0)
                        nbuckets--;
                for (size_t i = 0; i < nbuckets; i++) {
                        if (isnan(buckets[i])) {
                                error_set(reterr, EINVAL, "metric \"%s\": histogram bucket is NaN",
                                          name);
                                return NULL;
                        }
                        /* K8S: client_golang newHistogram's message, %f and all. */
                        if (i > 0 && buckets[i - 1] >= buckets[i]) {
                                error_set(
                                        reterr, EINVAL,
                                        "metric \"%s\": histogram buckets must be in increasing order: %f >= %f",
                                        name, buckets[i - 1], buckets[i]);
                                return NULL;
                        }
                }
        }

        m = xcalloc(1, sizeof(*m));
        m->reg = reg;
        m->type = type;
        m->collected = collected;
        m->name = xstrdup(name);
        m->help = xstrdup(help ? help : "");
        m->nlabels = n;
        m->label_names = xcalloc(n ? n : 1, sizeof(char *));
        m->order = xcalloc(n ? n : 1, sizeof(size_t));
        /* Insertion sort of the label names, remembering where each came from. */
        for (size_t i = 0; i < n; i++) {
                size_t k = i;

                while (k > 0 && strcmp(m->label_names[k - 1], label_names[i]) > 0) {
                        m->label_names[k] = m->label_names[k - 1];
                        m->order[k] = m->order[k - 1];
                        k--;
                }
                m->label_names[k] = xstrdup(label_names[i]);
                m->order[k] = i;
        }
        if (type == METRIC_HISTOGRAM) {
                m->nbounds = nbuckets;
                m->bounds = xcalloc(nbuckets ? nbuckets : 1, sizeof(double));
                if (nbuckets)
                        memcpy(m->bounds, buckets, nbuckets * sizeof(double));
        }
        pthread_mutex_init(&m->lock, NULL);
        /* K8S: a metric without labels (client_golang's plain Counter, Gauge, Histogram) is
         * exported from registration on, with value 0. */
        if (n == 0 && !collected) {
                static const char *const no_values[] = { NULL };

                child_set_insert(&m->children, 0, child_new(m, no_values));
        }

        pthread_mutex_lock(&reg->lock);
        r = registry_add_locked(reg, m, reterr);
        pthread_mutex_unlock(&reg->lock);
        if (r < 0) {
                metric_free(m);
                return NULL;
        }
        return m;
}

struct metric *metrics_counter_new(struct metrics_registry *reg, const char *name, const char *help,
                                   const char *const *label_names, struct error **reterr)
{
        return family_new(reg, METRIC_COUNTER, false, name, help, label_names, NULL, 0, reterr);
}

struct metric *metrics_gauge_new(struct metrics_registry *reg, const char *name, const char *help,
                                 const char *const *label_names, struct error **reterr)
{
        return family_new(reg, METRIC_GAUGE, false, name, help, label_names, NULL, 0, reterr);
}

struct metric *metrics_histogram_new(struct metrics_registry *reg, const char *name,
                                     const char *help, const char *const *label_names,
                                     const double *buckets, size_t nbuckets, struct error **reterr)
{
        return family_new(reg, METRIC_HISTOGRAM, false, name, help, label_names, buckets, nbuckets,
                          reterr);
}

struct metric *metrics_collected_new(struct metrics_registry *reg, enum metric_type type,
                                     const char *name, const char *help,
                                     const char *const *label_names, struct error **reterr)
{
        if (type != METRIC_COUNTER && type != METRIC_GAUGE) {
                error_set(reterr, EINVAL,
                          "metric \"%s\": a collected family is a counter or a gauge",
                          name ? name : "");
                return NULL;
        }
        return family_new(reg, type, true, name, help, label_names, NULL, 0, reterr);
}

/* ---- updates ---- */

/* Adds delta to (or, set, stores v in) the child of a counter or gauge for values, created if
 * missing: -EINVAL on bad values. A labelled family's child is updated under the family's lock,
 * as metrics_delete_matching may free it. */
static int scalar_update(struct metric *m, const char *const *values, bool set, double v)
{
        struct metric_child *c;

        if (m->collected || check_label_values(m, values) < 0)
                return -EINVAL;
        /* The one child of a family without labels is never deleted: no lock needed. */
        if (m->nlabels == 0) {
                c = m->children.items[0];
        } else {
                pthread_mutex_lock(&m->lock);
                c = child_get_locked(m, values);
        }
        if (c && set)
                atomic_store_explicit(&c->bits, double_bits(v), memory_order_relaxed);
        else if (c)
                atomic_add_double(&c->bits, v);
        if (m->nlabels > 0)
                pthread_mutex_unlock(&m->lock);
        return c ? 0 : -EINVAL;
}

int metrics_add(struct metric *m, const char *const *label_values, double delta)
{
        if (m->type != METRIC_COUNTER && m->type != METRIC_GAUGE)
                return -EINVAL;
        /* K8S: client_golang's Counter.Add panics "counter cannot decrease in value". NaN is
         * refused as well: it would stick forever. */
        if (m->type == METRIC_COUNTER && !(delta >= 0))
                return -EINVAL;
        return scalar_update(m, label_values, false, delta);
}

int metrics_set(struct metric *m, const char *const *label_values, double v)
{
        if (m->type != METRIC_GAUGE)
                return -EINVAL;
        return scalar_update(m, label_values, true, v);
}

size_t metrics_delete_matching(struct metric *m, const char *const *label_names,
                               const char *const *label_values)
{
        size_t n_match = strv_length(label_names), *index, kept = 0, deleted;

        if (m->collected || m->nlabels == 0 || n_match == 0 || strv_length(label_values) != n_match)
                return 0;
        /* index[j]: where label_names[j] is among the family's sorted names */
        index = xcalloc(n_match, sizeof(*index));
        for (size_t j = 0; j < n_match; j++) {
                size_t k = 0;

                while (k < m->nlabels && strcmp(m->label_names[k], label_names[j]) != 0)
                        k++;
                if (k == m->nlabels) {
                        free(index);
                        return 0;
                }
                index[j] = k;
        }
        pthread_mutex_lock(&m->lock);
        for (size_t i = 0; i < m->children.n; i++) {
                struct metric_child *c = m->children.items[i];
                bool match = true;

                for (size_t j = 0; j < n_match && match; j++)
                        match = streq(c->values[index[j]], label_values[j]);
                if (match)
                        child_free(m, c);
                else
                        m->children.items[kept++] = c;
        }
        deleted = m->children.n - kept;
        m->children.n = kept;
        pthread_mutex_unlock(&m->lock);
        free(index);
        return deleted;
}

int metrics_observe(struct metric *m, const char *const *label_values, double v)
{
        struct metric_child *c;
        size_t lo = 0, hi;

        if (m->type != METRIC_HISTOGRAM || check_label_values(m, label_values) < 0)
                return -EINVAL;
        /* sort.SearchFloat64s: the first bound >= v; nbounds (the +Inf bucket) when none is,
         * which is also where NaN goes. */
        hi = m->nbounds;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (m->bounds[mid] >= v)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        pthread_mutex_lock(&m->lock);
        c = child_get_locked(m, label_values);
        if (c) {
                c->counts[lo]++;
                c->count++;
                c->sum += v;
        }
        pthread_mutex_unlock(&m->lock);
        return c ? 0 : -EINVAL;
}

int metrics_get(struct metric *m, const char *const *label_values, double *ret_value)
{
        size_t pos;
        bool found;
        double v = 0;

        if ((m->type != METRIC_COUNTER && m->type != METRIC_GAUGE) || m->collected ||
            check_label_values(m, label_values) < 0)
                return -EINVAL;
        pthread_mutex_lock(&m->lock);
        found = child_set_find(m, &m->children, label_values, &pos);
        if (found)
                v = bits_double(
                        atomic_load_explicit(&m->children.items[pos]->bits, memory_order_relaxed));
        pthread_mutex_unlock(&m->lock);
        if (!found)
                return -ENOENT;
        *ret_value = v;
        return 0;
}

/* ---- collectors ---- */

void metrics_collector_add(struct metrics_registry *reg, metrics_collect_fn fn, void *userdata)
{
        pthread_mutex_lock(&reg->lock);
        reg->collectors =
                xrealloc(reg->collectors, (reg->ncollectors + 1) * sizeof(*reg->collectors));
        reg->collectors[reg->ncollectors].fn = fn;
        reg->collectors[reg->ncollectors].userdata = userdata;
        reg->ncollectors++;
        pthread_mutex_unlock(&reg->lock);
}

void metrics_collector_remove(struct metrics_registry *reg, metrics_collect_fn fn, void *userdata)
{
        pthread_mutex_lock(&reg->lock);
        for (size_t i = 0; i < reg->ncollectors; i++) {
                if (reg->collectors[i].fn != fn || reg->collectors[i].userdata != userdata)
                        continue;
                memmove(&reg->collectors[i], &reg->collectors[i + 1],
                        (reg->ncollectors - i - 1) * sizeof(*reg->collectors));
                reg->ncollectors--;
                break;
        }
        pthread_mutex_unlock(&reg->lock);
}

static int scrape_fail(struct metrics_scrape *scrape, int errnum, const char *fmt, const char *a)
{
        if (scrape->r == 0)
                scrape->r = error_set(&scrape->error, errnum, fmt, a);
        return -errnum;
}

int metrics_scrape_set(struct metrics_scrape *scrape, struct metric *m,
                       const char *const *label_values, double v)
{
        struct metric_child *c;
        size_t pos;

        if (m->reg != scrape->reg || !m->collected)
                return scrape_fail(scrape, EINVAL, "metric \"%s\": not a collected metric",
                                   m->name);
        if (check_label_values(m, label_values) < 0)
                return scrape_fail(scrape, EINVAL, "metric \"%s\": wrong number of label values",
                                   m->name);
        if (child_set_find(m, &m->scraped, label_values, &pos))
                /* K8S: client_golang Gather: "collected metric ... was collected before with
                 * the same name and label values". */
                return scrape_fail(scrape, EEXIST,
                                   "metric \"%s\": collected before with the same label values",
                                   m->name);
        for (size_t i = 0; i < m->nlabels; i++)
                if (!utf8_valid(label_values[i], strlen(label_values[i])))
                        return scrape_fail(scrape, EINVAL,
                                           "metric \"%s\": label value is not valid UTF-8",
                                           m->name);
        c = child_new(m, label_values);
        atomic_init(&c->bits, double_bits(v));
        child_set_insert(&m->scraped, pos, c);
        return 0;
}

/* ---- exposition ---- */

/* Whether some p-digit decimal reads back as v (finite, > 0); if so, the one nearest v is
 * *ret_mant * 10^*ret_exp10 (p digits, or p-1 or p+1 after a neighbour step). */
static bool digits_at(double v, int p, unsigned long long *ret_mant, int *ret_exp10)
{
        char buf[40];
        const char *e;
        unsigned long long m = 0;
        int x;

        snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
        e = strchr(buf, 'e');
        for (const char *q = buf; q < e; q++)
                if (*q != '.')
                        m = m * 10 + (unsigned long long) (*q - '0');
        x = atoi(e + 1) - (p - 1);
        if (strtod(buf, NULL) == v) {
                *ret_mant = m;
                *ret_exp10 = x;
                return true;
        }
        /* The correctly rounded p digits are the nearest p-digit decimal, yet they can miss v's
         * rounding interval when it is lopsided (v a power of two); then only the neighbour on
         * the other side of v can be in it. */
        for (int d = -1; d <= 1; d += 2) {
                unsigned long long c = m + (unsigned long long) d;

                if (c == 0)
                        continue;
                snprintf(buf, sizeof(buf), "%llue%d", c, x);
                if (strtod(buf, NULL) == v) {
                        *ret_mant = c;
                        *ret_exp10 = x;
                        return true;
                }
        }
        return false;
}

/* Shortest decimal digits that read back as v (finite, > 0), the nearest to v among those of
 * that length, as Go's shortest formatting picks them: *ret_digits without trailing zeros and
 * *ret_dp such that v = 0.d1d2d3... * 10^dp (Go's decimalSlice). */
static void shortest_digits(double v, char ret_digits[24], int *ret_dp)
{
        unsigned long long mant;
        int exp10 = 0;

        if (v < 9007199254740992.0 && v == floor(v)) {
                /* Below 2^53 an integer's own digits are the shortest: any decimal with fewer
                 * significant digits is an integer at least 1 away, outside v's interval. */
                mant = (unsigned long long) v;
        } else {
                /* Having a p-digit decimal in v's interval holds for every p from the shortest
                 * length on, so the shortest length can be found by bisection; 17 always works. */
                int lo = 1, hi = 17;

                while (lo < hi) {
                        int mid = (lo + hi) / 2;

                        if (digits_at(v, mid, &mant, &exp10))
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                if (!digits_at(v, lo, &mant, &exp10))
                        abort(); /* 17 significant digits always read back */
        }
        while (mant % 10 == 0) {
                mant /= 10;
                exp10++;
        }
        snprintf(ret_digits, 24, "%llu", mant);
        *ret_dp = (int) strlen(ret_digits) + exp10;
}

const char *metrics_format_value(double v, char buf[METRICS_VALUE_MAX])
{
        char digits[24];
        int dp, nd, exp;
        size_t o = 0;

        /* expfmt writeFloat: 0 (also -0), NaN and the infinities are spelled out. */
        if (v == 0)
                return strcpy(buf, "0");
        if (isnan(v))
                return strcpy(buf, "NaN");
        if (isinf(v))
                return strcpy(buf, v > 0 ? "+Inf" : "-Inf");
        if (v < 0) {
                buf[o++] = '-';
                v = -v;
        }
        shortest_digits(v, digits, &dp);
        nd = (int) strlen(digits);
        exp = dp - 1;
        /* Go's %g with the shortest precision: exponent form when exp < -4 or exp >= 6
         * (eprec is 6 for the shortest formatting), at least two exponent digits. */
        if (exp < -4 || exp >= 6) {
                buf[o++] = digits[0];
                if (nd > 1) {
                        buf[o++] = '.';
                        memcpy(buf + o, digits + 1, (size_t) nd - 1);
                        o += (size_t) nd - 1;
                }
                snprintf(buf + o, METRICS_VALUE_MAX - o, "e%c%02d", exp < 0 ? '-' : '+',
                         exp < 0 ? -exp : exp);
                return buf;
        }
        if (dp > 0) {
                for (int i = 0; i < dp; i++)
                        buf[o++] = i < nd ? digits[i] : '0';
        } else {
                buf[o++] = '0';
        }
        if (nd > dp) {
                buf[o++] = '.';
                for (int i = dp; i < nd; i++)
                        buf[o++] = i < 0 ? '0' : digits[i];
        }
        buf[o] = '\0';
        return buf;
}

static void add_value(struct strbuf *out, double v)
{
        char buf[METRICS_VALUE_MAX];

        strbuf_addstr(out, metrics_format_value(v, buf));
}

/* expfmt's escaping: backslash and newline always, the double quote inside label values. */
static void add_escaped(struct strbuf *out, const char *s, bool quote)
{
        for (; *s; s++) {
                if (*s == '\\')
                        strbuf_addstr(out, "\\\\");
                else if (*s == '\n')
                        strbuf_addstr(out, "\\n");
                else if (*s == '"' && quote)
                        strbuf_addstr(out, "\\\"");
                else
                        strbuf_addch(out, *s);
        }
}

/* name{label="value",...,le="bound"} value\n; le only when bound is not NULL. */
static void add_sample(struct strbuf *out, const struct metric *m, const char *suffix,
                       const struct metric_child *c, const double *le, double v)
{
        strbuf_addstr(out, m->name);
        strbuf_addstr(out, suffix);
        if (m->nlabels > 0 || le) {
                const char *sep = "{";

                for (size_t k = 0; k < m->nlabels; k++) {
                        strbuf_addf(out, "%s%s=\"", sep, m->label_names[k]);
                        add_escaped(out, c->values[k], true);
                        strbuf_addch(out, '"');
                        sep = ",";
                }
                if (le) {
                        strbuf_addf(out, "%sle=\"", sep);
                        add_value(out, *le);
                        strbuf_addch(out, '"');
                }
                strbuf_addch(out, '}');
        }
        strbuf_addch(out, ' ');
        add_value(out, v);
        strbuf_addch(out, '\n');
}

static void render_family(struct strbuf *out, struct metric *m)
{
        const struct child_set *set = m->collected ? &m->scraped : &m->children;

        pthread_mutex_lock(&m->lock);
        /* K8S: client_golang NormalizeMetricFamilies drops families without metrics. */
        if (set->n == 0) {
                pthread_mutex_unlock(&m->lock);
                return;
        }
        strbuf_addf(out, "# HELP %s ", m->name);
        add_escaped(out, m->help, false);
        strbuf_addf(out, "\n# TYPE %s %s\n", m->name, metric_type_to_string(m->type));
        for (size_t i = 0; i < set->n; i++) {
                const struct metric_child *c = set->items[i];
                uint64_t cumulative = 0;
                const double inf = INFINITY;

                if (m->type != METRIC_HISTOGRAM) {
                        add_sample(
                                out, m, "", c, NULL,
                                bits_double(atomic_load_explicit(&c->bits, memory_order_relaxed)));
                        continue;
                }
                for (size_t b = 0; b < m->nbounds; b++) {
                        cumulative += c->counts[b];
                        add_sample(out, m, "_bucket", c, &m->bounds[b], (double) cumulative);
                }
                add_sample(out, m, "_bucket", c, &inf, (double) c->count);
                add_sample(out, m, "_sum", c, NULL, c->sum);
                add_sample(out, m, "_count", c, NULL, (double) c->count);
        }
        pthread_mutex_unlock(&m->lock);
}

/* Hands *e over to *reterr (or frees it when the caller did not ask). */
static void error_move(struct error **reterr, struct error **e)
{
        if (reterr) {
                error_free(*reterr);
                *reterr = TAKE_PTR(*e);
        } else {
                *e = error_free(*e);
        }
}

int metrics_render(struct metrics_registry *reg, struct strbuf *out, struct error **reterr)
{
        struct metrics_scrape scrape = { .reg = reg };
        size_t start = out->len;
        int r = 0;

        pthread_mutex_lock(&reg->lock);
        for (size_t i = 0; i < reg->ncollectors; i++) {
                cleanup_error struct error *err = NULL;

                r = reg->collectors[i].fn(&scrape, reg->collectors[i].userdata, &err);
                /* A refused report fails the scrape even when the collector ignored it, and
                 * explains better than whatever the collector made of it. */
                if (scrape.r < 0) {
                        r = scrape.r;
                        error_move(reterr, &scrape.error);
                        break;
                }
                if (r < 0) {
                        if (err)
                                error_move(reterr, &err);
                        else
                                error_set(reterr, -r, "metrics collector: %s", strerror(-r));
                        break;
                }
        }
        if (r >= 0)
                for (size_t i = 0; i < reg->nfamilies; i++)
                        render_family(out, reg->families[i]);
        for (size_t i = 0; i < reg->nfamilies; i++)
                child_set_clear(reg->families[i], &reg->families[i]->scraped);
        pthread_mutex_unlock(&reg->lock);
        error_free(scrape.error);
        if (r < 0) {
                out->len = start;
                out->buf[start] = '\0';
                return r;
        }
        return 0;
}

/* ---- buckets ---- */

int metrics_exponential_buckets(double start, double factor, size_t count, double *ret_buckets)
{
        /* K8S: prometheus.ExponentialBuckets panics on the same conditions. */
        if (count < 1 || !(start > 0) || !(factor > 1))
                return -EINVAL;
        for (size_t i = 0; i < count; i++) {
                ret_buckets[i] = start;
                start *= factor;
        }
        return 0;
}

int metrics_linear_buckets(double start, double width, size_t count, double *ret_buckets)
{
        if (count < 1)
                return -EINVAL;
        for (size_t i = 0; i < count; i++) {
                ret_buckets[i] = start;
                start += width;
        }
        return 0;
}
