/* metrics.h: counters, gauges and histograms rendered in the Prometheus text exposition format
 * 0.0.4, as Kubernetes components serve them on /metrics (component-base/metrics over
 * prometheus/client_golang, text written by prometheus/common's expfmt).
 *
 * A registry holds metric families. A family has a type, a name, a help text and a fixed list
 * of label names; it keeps one child per tuple of label values, created on first use and kept
 * until the registry is freed (mind the cardinality of what you use as a label value). A family
 * without labels has its single child from the start, so it renders 0 before any update, as a
 * client_golang Counter does; a family with labels renders nothing until it has a child.
 *
 * Ownership: the registry owns every family (struct metric *) and every collector; those
 * pointers stay valid until metrics_registry_free. Names, help and label arrays passed in are
 * copied.
 *
 * Threads: metrics_add, metrics_set, metrics_observe and metrics_get may be called from any
 * number of threads at once, also during metrics_render; counter and gauge updates of an
 * existing child are lock-free (C11 atomics), child creation and histogram observations take
 * the family's mutex. Registration and rendering take the registry's mutex.
 *
 * Errors: -EINVAL for a bad name, label name, label value count, label value that is not UTF-8,
 * a negative counter increment or an operation the family's type does not have; -EEXIST for a
 * name registered twice or colliding with a histogram's _bucket/_sum/_count series. Constructors
 * explain in *reterr; the update calls are hot and only return the code. */
#ifndef FLEXLET_BASE_METRICS_H
#define FLEXLET_BASE_METRICS_H

#include <stddef.h>
#include "base/error.h"
#include "base/strbuf.h"

/* The Content-Type of metrics_render's output (expfmt.FmtText). */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum metric_type {
        METRIC_COUNTER,
        METRIC_GAUGE,
        METRIC_HISTOGRAM,
        METRIC_TYPE_MAX,
};

struct metrics_registry;
struct metric;
struct metrics_scrape;

struct metrics_registry *metrics_registry_new(void);
/* Frees every family and collector. Nothing may use the registry concurrently. */
struct metrics_registry *metrics_registry_free(struct metrics_registry *reg);
DEFINE_CLEANUP(struct metrics_registry, metrics_registry_free, metrics_registry)
#define cleanup_metrics_registry cleanup_of(metrics_registry_free)

/* Registers a family. name matches [a-zA-Z_:][a-zA-Z0-9_:]*; label_names is NULL or a
 * NULL-terminated array of distinct names matching [a-zA-Z_][a-zA-Z0-9_]* and not starting with
 * "__" (reserved). Kubernetes help texts start with the stability level ("[ALPHA] ",
 * "[STABLE] "); pass it as part of help. Returns the family, or NULL with *reterr set. */
struct metric *metrics_counter_new(struct metrics_registry *reg, const char *name, const char *help,
                                   const char *const *label_names, struct error **reterr);
struct metric *metrics_gauge_new(struct metrics_registry *reg, const char *name, const char *help,
                                 const char *const *label_names, struct error **reterr);
/* buckets are the upper bounds, strictly increasing; a last +Inf is dropped (it is implicit);
 * NULL/0 means metrics_def_buckets, as in client_golang. "le" is not a valid label name here. */
struct metric *metrics_histogram_new(struct metrics_registry *reg, const char *name,
                                     const char *help, const char *const *label_names,
                                     const double *buckets, size_t nbuckets, struct error **reterr);

/* The family registered under name, or NULL. */
struct metric *metrics_find(struct metrics_registry *reg, const char *name);

/* label_values is NULL or NULL-terminated and has one value per label name, in the order the
 * names were given (the exposition sorts labels by name, as client_golang does).
 *
 * Counter or gauge: value += delta. A counter refuses a negative or NaN delta (-EINVAL). */
int metrics_add(struct metric *m, const char *const *label_values, double delta);
/* Gauge only: value = v. */
int metrics_set(struct metric *m, const char *const *label_values, double v);
/* Histogram only: counts v in the first bucket whose upper bound is >= v and adds it to the
 * sum (client_golang's Observe; NaN lands in +Inf only and makes the sum NaN). */
int metrics_observe(struct metric *m, const char *const *label_values, double v);
/* Counter or gauge: the current value; -ENOENT when that child was never created. */
int metrics_get(struct metric *m, const char *const *label_values, double *ret_value);
/* Deletes every child (time series) of a labelled counter, gauge or histogram whose labels
 * label_names (NULL-terminated, a subset of the family's) have label_values, so that it is no
 * longer rendered (client_golang's MetricVec.DeletePartialMatch: the kubelet drops a probe's
 * series when its worker stops). Returns how many went; 0 for a name the family lacks. */
size_t metrics_delete_matching(struct metric *m, const char *const *label_names,
                               const char *const *label_values);

/* Values computed at scrape time (kernel counters, pods running, volume capacity).
 *
 * metrics_collected_new registers a counter or gauge family that has no stored children: each
 * metrics_render calls every collector, in the order added, and the family renders exactly what
 * they report through metrics_scrape_set during that call. A collector may report into any
 * collected family of its registry and may update ordinary families, but must not register,
 * render or report from another thread. A collector that fails (< 0) fails the render; a
 * collector that can read only part of its values should report those and return 0. */
typedef int (*metrics_collect_fn)(struct metrics_scrape *scrape, void *userdata,
                                  struct error **reterr);
struct metric *metrics_collected_new(struct metrics_registry *reg, enum metric_type type,
                                     const char *name, const char *help,
                                     const char *const *label_names, struct error **reterr);
void metrics_collector_add(struct metrics_registry *reg, metrics_collect_fn fn, void *userdata);
/* Removes the collector added with fn and userdata; once it returns no render calls it any more
 * (a render in progress finishes first), so userdata may be freed. */
void metrics_collector_remove(struct metrics_registry *reg, metrics_collect_fn fn, void *userdata);
/* Reports one value. -EINVAL for a family that is not a collected family of this registry or
 * bad label values, -EEXIST when these label values were reported before in this scrape
 * (client_golang's Gather refuses such a duplicate). Any failure also fails the render. */
int metrics_scrape_set(struct metrics_scrape *scrape, struct metric *m,
                       const char *const *label_values, double v);

/* Appends the exposition of every family with at least one child to out: families sorted by
 * name, each "# HELP name help" (backslash and newline escaped), "# TYPE name type", then one
 * line per child sorted by label values; histograms as cumulative name_bucket{...,le="..."}
 * lines ending with le="+Inf", then name_sum and name_count. On failure (a collector failed)
 * out is left as it was and *reterr explains. */
int metrics_render(struct metrics_registry *reg, struct strbuf *out, struct error **reterr);

/* Long enough for any metrics_format_value output. */
#define METRICS_VALUE_MAX 32
/* A sample value as expfmt writes it: Go's strconv.FormatFloat(v, 'g', -1, 64), the shortest
 * text that reads back as v ("0.1", "1e-07", "1.23456789e+08", "100000"), with "+Inf", "-Inf",
 * "NaN", and "0" for -0. Returns buf. */
const char *metrics_format_value(double v, char buf[METRICS_VALUE_MAX]);

/* "counter", "gauge", "histogram"; NULL if out of range. */
const char *metric_type_to_string(enum metric_type t);
/* Inverse of metric_type_to_string; -EINVAL for anything else. */
int metric_type_from_string(const char *s, enum metric_type *ret);

/* prometheus.DefBuckets: request latencies in seconds. */
extern const double metrics_def_buckets[11];
/* prometheus.ExponentialBuckets: count bounds start, start*factor, start*factor^2, ... (each
 * the previous times factor, so the doubles match upstream's). -EINVAL unless count >= 1,
 * start > 0 and factor > 1. */
int metrics_exponential_buckets(double start, double factor, size_t count, double *ret_buckets);
/* prometheus.LinearBuckets: count bounds start, start+width, ... (each the previous plus width).
 * -EINVAL unless count >= 1. */
int metrics_linear_buckets(double start, double width, size_t count, double *ret_buckets);

#endif
