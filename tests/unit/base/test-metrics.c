/* test-metrics.c: the metrics registry and its Prometheus text exposition.
 *
 * Expected texts are what prometheus/client_golang with prometheus/common's expfmt writes for
 * the same metrics (MetricFamilyToText, NormalizeMetricFamilies); the float table was printed by
 * Go's strconv.FormatFloat(v, 'g', -1, 64). Also: name and label rules, refused updates,
 * scrape-time collectors, and exact counts under concurrent updates. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/metrics.h"

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void assert_render(struct metrics_registry *reg, const char *expect)
{
        struct strbuf sb;
        struct error *err = NULL;
        int r;

        strbuf_init(&sb);
        r = metrics_render(reg, &sb, &err);
        if (r < 0)
                fail_msg("render failed: %d %s", r, err ? err->message : "?");
        assert_null(err);
        if (strcmp(sb.buf, expect) != 0)
                fail_msg("expected:\n%s\ngot:\n%s", expect, sb.buf);
        strbuf_release(&sb);
}

/* Constructor expected to fail with errnum and exactly message. */
static void assert_error(struct metric *m, struct error *err, int errnum, const char *message)
{
        assert_null(m);
        assert_non_null(err);
        assert_int_equal(err->errnum, errnum);
        if (strcmp(err->message, message) != 0)
                fail_msg("expected message \"%s\", got \"%s\"", message, err->message);
        error_free(err);
}

static void test_format_value(void **state)
{
        /* Printed by Go 1.19 strconv.FormatFloat(v, 'g', -1, 64); expfmt's writeFloat
         * spells 0 (also -0), NaN and the infinities itself. */
        static const struct {
                double v;
                const char *text;
        } table[] = {
                { 0.1, "0.1" },
                { 1e-07, "1e-07" },
                { 1e+21, "1e+21" },
                { 123456789, "1.23456789e+08" },
                { 2.5, "2.5" },
                { -0.0, "0" },
                { 0, "0" },
                { 1, "1" },
                { -1, "-1" },
                { 5, "5" },
                { 0.005, "0.005" },
                { 1e-05, "1e-05" },
                { -1e-05, "-1e-05" },
                { 0.0001, "0.0001" },
                { 0.00012345, "0.00012345" },
                { 100000, "100000" },
                { 123456, "123456" },
                { 1e+06, "1e+06" },
                { 1234567, "1.234567e+06" },
                { 1e+20, "1e+20" },
                { 1e+23, "1e+23" },
                { 1.5e+300, "1.5e+300" },
                { -2.5, "-2.5" },
                { 1.0 / 3, "0.3333333333333333" },
                { 2.0 / 3, "0.6666666666666666" },
                { 0x1p53, "9.007199254740992e+15" },
                { 0x1p60, "1.152921504606847e+18" },
                { 0x1p-44, "5.684341886080802e-14" },
                /* Powers of two whose correctly rounded shortest digits miss: Go takes the
                 * neighbour. */
                { 0x1p-1017, "7.120236347223045e-307" },
                { 0x1p-705, "5.940911144672375e-213" },
                { 5e-324, "5e-324" },
                { DBL_MIN, "2.2250738585072014e-308" },
                { DBL_MAX, "1.7976931348623157e+308" },
                { -DBL_MAX, "-1.7976931348623157e+308" },
                { NAN, "NaN" },
                { INFINITY, "+Inf" },
                { -INFINITY, "-Inf" },
        };
        char buf[METRICS_VALUE_MAX];

        for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
                const char *got = metrics_format_value(table[i].v, buf);

                assert_ptr_equal(got, buf);
                if (strcmp(got, table[i].text) != 0)
                        fail_msg("%.17g: expected \"%s\", got \"%s\"", table[i].v, table[i].text,
                                 got);
        }
        /* Runtime sums, as an accumulating counter or histogram sum produces them. */
        {
                volatile double a = 0.1, b = 0.2;

                assert_string_equal(metrics_format_value(a + b, buf), "0.30000000000000004");
        }
}

static void test_counter(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct error *err = NULL;
        struct metric *m;
        double v = -1;

        /* Declared as (verb, code): the exposition sorts label names, children sort by
         * their values in that order, bytewise ("10" < "9", "GET" < "get"). */
        m = metrics_counter_new(reg, "apiserver_request_total",
                                "[STABLE] Counter of apiserver requests.", L("verb", "code"), &err);
        assert_non_null(m);
        assert_null(err);
        assert_render(reg, "");

        assert_int_equal(metrics_add(m, L("get", "200"), 1), 0);
        assert_int_equal(metrics_add(m, L("LIST", "200"), 2), 0);
        assert_int_equal(metrics_add(m, L("get", "200"), 1.5), 0);
        assert_int_equal(metrics_add(m, L("get", "404"), 0), 0);
        assert_int_equal(metrics_add(m, L("get", "1000"), 1e6), 0);
        assert_int_equal(metrics_add(m, L("get", "9"), 1), 0);
        assert_render(reg,
                      "# HELP apiserver_request_total [STABLE] Counter of apiserver requests.\n"
                      "# TYPE apiserver_request_total counter\n"
                      "apiserver_request_total{code=\"1000\",verb=\"get\"} 1e+06\n"
                      "apiserver_request_total{code=\"200\",verb=\"LIST\"} 2\n"
                      "apiserver_request_total{code=\"200\",verb=\"get\"} 2.5\n"
                      "apiserver_request_total{code=\"404\",verb=\"get\"} 0\n"
                      "apiserver_request_total{code=\"9\",verb=\"get\"} 1\n");
        assert_int_equal(metrics_get(m, L("get", "200"), &v), 0);
        assert_true(v == 2.5);
        assert_int_equal(metrics_get(m, L("get", "500"), &v), -ENOENT);

        /* K8S: a counter cannot decrease (client_golang panics); NaN is refused too. */
        assert_int_equal(metrics_add(m, L("get", "200"), -1), -EINVAL);
        assert_int_equal(metrics_add(m, L("get", "200"), NAN), -EINVAL);
        assert_int_equal(metrics_set(m, L("get", "200"), 7), -EINVAL);
        assert_int_equal(metrics_observe(m, L("get", "200"), 7), -EINVAL);
        /* Label value count must match. */
        assert_int_equal(metrics_add(m, L("get"), 1), -EINVAL);
        assert_int_equal(metrics_add(m, L("get", "200", "x"), 1), -EINVAL);
        assert_int_equal(metrics_add(m, NULL, 1), -EINVAL);
        assert_int_equal(metrics_get(m, L("get"), &v), -EINVAL);
        /* K8S: client_golang validateLabelValues refuses values that are not UTF-8. */
        assert_int_equal(metrics_add(m, L("get", "\xff"), 1), -EINVAL);
        assert_int_equal(metrics_add(m, L("get", "\xc0\xaf"), 1), -EINVAL);     /* overlong */
        assert_int_equal(metrics_add(m, L("get", "\xed\xa0\x80"), 1), -EINVAL); /* surrogate */
        assert_int_equal(metrics_add(m, L("get", "\xf4\x90\x80\x80"), 1), -EINVAL);
        assert_int_equal(metrics_add(m, L("get", "caf\xc3\xa9"), 1), 0);
        assert_int_equal(metrics_get(m, L("get", "caf\xc3\xa9"), &v), 0);
        assert_true(v == 1);
        assert_int_equal(metrics_add(m, L("get", "200"), INFINITY), 0);
        assert_int_equal(metrics_get(m, L("get", "200"), &v), 0);
        assert_true(isinf(v) && v > 0);
}

/* MetricVec.DeletePartialMatch: every series whose given labels match goes, whatever its
 * other labels; a name the family lacks deletes nothing. */
static void test_delete_matching(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct metric *c, *h, *plain;
        double v;

        c = metrics_counter_new(reg, "prober_probe_total", "[BETA] Probes.",
                                L("probe_type", "result", "pod", "pod_uid"), NULL);
        h = metrics_histogram_new(reg, "prober_probe_duration_seconds", "[ALPHA] Durations.",
                                  L("probe_type", "pod"), (const double[]){ 1 }, 1, NULL);
        plain = metrics_counter_new(reg, "plain_total", "Plain.", NULL, NULL);
        assert_non_null(c);
        assert_non_null(h);
        assert_non_null(plain);
        assert_int_equal(metrics_add(c, L("Readiness", "successful", "a", "u1"), 3), 0);
        assert_int_equal(metrics_add(c, L("Readiness", "failed", "a", "u1"), 1), 0);
        assert_int_equal(metrics_add(c, L("Liveness", "successful", "a", "u1"), 1), 0);
        assert_int_equal(metrics_add(c, L("Readiness", "successful", "b", "u2"), 5), 0);
        assert_int_equal(metrics_observe(h, L("Readiness", "a"), 0.5), 0);
        assert_int_equal(metrics_observe(h, L("Readiness", "b"), 2), 0);
        assert_int_equal(metrics_add(plain, NULL, 1), 0);

        assert_int_equal(metrics_delete_matching(c, L("nosuch"), L("u1")), 0);
        assert_int_equal(metrics_delete_matching(c, L("pod_uid"), L("u3")), 0);
        assert_int_equal(metrics_delete_matching(c, L("pod_uid", "pod"), L("u1")), 0);
        assert_int_equal(metrics_delete_matching(plain, L("pod"), L("a")), 0);
        assert_int_equal(metrics_delete_matching(c, L("pod_uid"), L("u1")), 3);
        assert_int_equal(metrics_get(c, L("Readiness", "successful", "a", "u1"), &v), -ENOENT);
        assert_int_equal(metrics_get(c, L("Readiness", "successful", "b", "u2"), &v), 0);
        assert_true(v == 5);
        assert_int_equal(metrics_delete_matching(h, L("pod", "probe_type"), L("a", "Readiness")),
                         1);
        assert_render(reg,
                      "# HELP plain_total Plain.\n"
                      "# TYPE plain_total counter\n"
                      "plain_total 1\n"
                      "# HELP prober_probe_duration_seconds [ALPHA] Durations.\n"
                      "# TYPE prober_probe_duration_seconds histogram\n"
                      "prober_probe_duration_seconds_bucket{pod=\"b\",probe_type=\"Readiness\","
                      "le=\"1\"} 0\n"
                      "prober_probe_duration_seconds_bucket{pod=\"b\",probe_type=\"Readiness\","
                      "le=\"+Inf\"} 1\n"
                      "prober_probe_duration_seconds_sum{pod=\"b\",probe_type=\"Readiness\"} 2\n"
                      "prober_probe_duration_seconds_count{pod=\"b\",probe_type=\"Readiness\"} 1\n"
                      "# HELP prober_probe_total [BETA] Probes.\n"
                      "# TYPE prober_probe_total counter\n"
                      "prober_probe_total{pod=\"b\",pod_uid=\"u2\",probe_type=\"Readiness\","
                      "result=\"successful\"} 5\n");
        /* a deleted series starts again from zero */
        assert_int_equal(metrics_add(c, L("Readiness", "successful", "a", "u1"), 1), 0);
        assert_int_equal(metrics_get(c, L("Readiness", "successful", "a", "u1"), &v), 0);
        assert_true(v == 1);
}

static void test_gauge_and_escaping(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct metric *g, *plain;
        double v;

        g = metrics_gauge_new(reg, "node:volume_bytes",
                              "Help with a \\ backslash,\na newline and \"quotes\".", L("path"),
                              NULL);
        assert_non_null(g);
        plain = metrics_gauge_new(reg, "a_plain_gauge", "", NULL, NULL);
        assert_non_null(plain);
        /* A family without labels is there from the start with value 0. */
        assert_int_equal(metrics_get(plain, NULL, &v), 0);
        assert_true(v == 0);
        assert_render(reg, "# HELP a_plain_gauge \n"
                           "# TYPE a_plain_gauge gauge\n"
                           "a_plain_gauge 0\n");

        assert_int_equal(metrics_set(g, L("C:\\dir\n\"x\""), 1.5e9), 0);
        assert_int_equal(metrics_set(g, L(""), -3), 0);
        assert_int_equal(metrics_add(g, L(""), -0.25), 0);
        assert_int_equal(metrics_set(plain, L("x"), 3), -EINVAL);
        assert_int_equal(metrics_set(plain, (const char *const[]){ NULL }, 3), 0);
        assert_int_equal(metrics_add(plain, NULL, -4.5), 0);
        assert_int_equal(metrics_observe(g, L(""), 1), -EINVAL);
        assert_render(
                reg,
                "# HELP a_plain_gauge \n"
                "# TYPE a_plain_gauge gauge\n"
                "a_plain_gauge -1.5\n"
                "# HELP node:volume_bytes Help with a \\\\ backslash,\\na newline and \"quotes\".\n"
                "# TYPE node:volume_bytes gauge\n"
                "node:volume_bytes{path=\"\"} -3.25\n"
                "node:volume_bytes{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1.5e+09\n");
        assert_int_equal(metrics_set(g, L(""), NAN), 0);
        assert_int_equal(metrics_set(plain, NULL, -INFINITY), 0);
        assert_render(
                reg,
                "# HELP a_plain_gauge \n"
                "# TYPE a_plain_gauge gauge\n"
                "a_plain_gauge -Inf\n"
                "# HELP node:volume_bytes Help with a \\\\ backslash,\\na newline and \"quotes\".\n"
                "# TYPE node:volume_bytes gauge\n"
                "node:volume_bytes{path=\"\"} NaN\n"
                "node:volume_bytes{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1.5e+09\n");
}

static void test_histogram(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        static const double buckets[] = { 0.25, 0.5, 1, 2.5, INFINITY };
        struct metric *h, *plain;

        /* The given +Inf is implicit and dropped; "le" comes after every label, also after
         * names that sort later ("resource"). */
        h = metrics_histogram_new(reg, "request_duration_seconds", "Latency.",
                                  L("verb", "resource"), buckets, ARRAY_SIZE(buckets), NULL);
        assert_non_null(h);
        assert_render(reg, "");
        assert_int_equal(metrics_observe(h, L("GET", "pods"), 0.25), 0); /* le is <= */
        assert_int_equal(metrics_observe(h, L("GET", "pods"), 0.5), 0);
        assert_int_equal(metrics_observe(h, L("GET", "pods"), 0.75), 0);
        assert_int_equal(metrics_observe(h, L("GET", "pods"), 3), 0);
        assert_int_equal(metrics_observe(h, L("GET", "nodes"), 0.1), 0);
        assert_int_equal(metrics_observe(h, L("GET", "nodes"), 0.2), 0);
        assert_int_equal(metrics_observe(h, L("GET"), 1), -EINVAL);
        assert_int_equal(metrics_add(h, L("GET", "pods"), 1), -EINVAL);
        assert_int_equal(metrics_set(h, L("GET", "pods"), 1), -EINVAL);
        assert_render(
                reg,
                "# HELP request_duration_seconds Latency.\n"
                "# TYPE request_duration_seconds histogram\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"0.25\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"0.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"1\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"2.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"+Inf\"} 2\n"
                "request_duration_seconds_sum{resource=\"nodes\",verb=\"GET\"} 0.30000000000000004\n"
                "request_duration_seconds_count{resource=\"nodes\",verb=\"GET\"} 2\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"0.25\"} 1\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"0.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"1\"} 3\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"2.5\"} 3\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"+Inf\"} 4\n"
                "request_duration_seconds_sum{resource=\"pods\",verb=\"GET\"} 4.5\n"
                "request_duration_seconds_count{resource=\"pods\",verb=\"GET\"} 4\n");

        /* No labels and no buckets given: prometheus.DefBuckets, exported from the start. NaN
         * goes to +Inf only and makes the sum NaN (sort.SearchFloat64s); -Inf to the first. */
        plain = metrics_histogram_new(reg, "a_seconds", "Default buckets.", NULL, NULL, 0, NULL);
        assert_non_null(plain);
        assert_int_equal(metrics_observe(plain, NULL, 7), 0);
        assert_int_equal(metrics_observe(plain, NULL, 0.005), 0);
        assert_int_equal(metrics_observe(plain, NULL, 11), 0);
        assert_int_equal(metrics_observe(plain, NULL, 1e6), 0);
        assert_render(
                reg,
                "# HELP a_seconds Default buckets.\n"
                "# TYPE a_seconds histogram\n"
                "a_seconds_bucket{le=\"0.005\"} 1\n"
                "a_seconds_bucket{le=\"0.01\"} 1\n"
                "a_seconds_bucket{le=\"0.025\"} 1\n"
                "a_seconds_bucket{le=\"0.05\"} 1\n"
                "a_seconds_bucket{le=\"0.1\"} 1\n"
                "a_seconds_bucket{le=\"0.25\"} 1\n"
                "a_seconds_bucket{le=\"0.5\"} 1\n"
                "a_seconds_bucket{le=\"1\"} 1\n"
                "a_seconds_bucket{le=\"2.5\"} 1\n"
                "a_seconds_bucket{le=\"5\"} 1\n"
                "a_seconds_bucket{le=\"10\"} 2\n"
                "a_seconds_bucket{le=\"+Inf\"} 4\n"
                "a_seconds_sum 1.000018005e+06\n"
                "a_seconds_count 4\n"
                "# HELP request_duration_seconds Latency.\n"
                "# TYPE request_duration_seconds histogram\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"0.25\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"0.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"1\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"2.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"nodes\",verb=\"GET\",le=\"+Inf\"} 2\n"
                "request_duration_seconds_sum{resource=\"nodes\",verb=\"GET\"} 0.30000000000000004\n"
                "request_duration_seconds_count{resource=\"nodes\",verb=\"GET\"} 2\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"0.25\"} 1\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"0.5\"} 2\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"1\"} 3\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"2.5\"} 3\n"
                "request_duration_seconds_bucket{resource=\"pods\",verb=\"GET\",le=\"+Inf\"} 4\n"
                "request_duration_seconds_sum{resource=\"pods\",verb=\"GET\"} 4.5\n"
                "request_duration_seconds_count{resource=\"pods\",verb=\"GET\"} 4\n");
}

static void test_histogram_nan_and_linear_buckets(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        double b[5];
        struct metric *h;

        /* prometheus.LinearBuckets(0.1, 0.1, 5) adds as it goes: Go prints the third bound as
         * 0.30000000000000004. */
        assert_int_equal(metrics_linear_buckets(0.1, 0.1, 5, b), 0);
        h = metrics_histogram_new(reg, "x", "h", NULL, b, 5, NULL);
        assert_non_null(h);
        assert_int_equal(metrics_observe(h, NULL, NAN), 0);
        assert_int_equal(metrics_observe(h, NULL, -INFINITY), 0);
        assert_render(reg, "# HELP x h\n"
                           "# TYPE x histogram\n"
                           "x_bucket{le=\"0.1\"} 1\n"
                           "x_bucket{le=\"0.2\"} 1\n"
                           "x_bucket{le=\"0.30000000000000004\"} 1\n"
                           "x_bucket{le=\"0.4\"} 1\n"
                           "x_bucket{le=\"0.5\"} 1\n"
                           "x_bucket{le=\"+Inf\"} 2\n"
                           "x_sum NaN\n"
                           "x_count 2\n");
}

static void test_buckets(void **state)
{
        double b[6];

        assert_int_equal(ARRAY_SIZE(metrics_def_buckets), 11);
        assert_true(metrics_def_buckets[0] == 0.005 && metrics_def_buckets[10] == 10);
        assert_int_equal(metrics_exponential_buckets(0.005, 2.5, 6, b), 0);
        {
                /* Go: ExponentialBuckets(0.005, 2.5, 6). */
                static const char *const want[] = { "0.005",    "0.0125",    "0.03125",
                                                    "0.078125", "0.1953125", "0.48828125" };
                char buf[METRICS_VALUE_MAX];

                for (size_t i = 0; i < 6; i++)
                        assert_string_equal(metrics_format_value(b[i], buf), want[i]);
        }
        assert_int_equal(metrics_exponential_buckets(1, 2, 4, b), 0);
        assert_true(b[0] == 1 && b[1] == 2 && b[2] == 4 && b[3] == 8);
        /* K8S: ExponentialBuckets panics on these. */
        assert_int_equal(metrics_exponential_buckets(1, 2, 0, b), -EINVAL);
        assert_int_equal(metrics_exponential_buckets(0, 2, 3, b), -EINVAL);
        assert_int_equal(metrics_exponential_buckets(-1, 2, 3, b), -EINVAL);
        assert_int_equal(metrics_exponential_buckets(1, 1, 3, b), -EINVAL);
        assert_int_equal(metrics_exponential_buckets(NAN, 2, 3, b), -EINVAL);
        assert_int_equal(metrics_linear_buckets(1, 1, 0, b), -EINVAL);
        assert_int_equal(metrics_linear_buckets(-1, 0.5, 3, b), 0);
        assert_true(b[0] == -1 && b[1] == -0.5 && b[2] == 0);
}

static void test_families_sorted_and_empty_omitted(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct metric *z, *a, *m, *empty;

        z = metrics_counter_new(reg, "z_total", "Z.", NULL, NULL);
        a = metrics_gauge_new(reg, "A_upper", "Upper case sorts first.", NULL, NULL);
        m = metrics_counter_new(reg, "m_total", "M.", L("x"), NULL);
        empty = metrics_histogram_new(reg, "b_seconds", "Never observed.", L("x"), NULL, 0, NULL);
        assert_non_null(z);
        assert_non_null(a);
        assert_non_null(m);
        assert_non_null(empty);
        assert_int_equal(metrics_add(z, NULL, 3), 0);
        assert_int_equal(metrics_add(m, L("b"), 1), 0);
        assert_int_equal(metrics_add(m, L("a"), 1), 0);
        assert_render(reg, "# HELP A_upper Upper case sorts first.\n"
                           "# TYPE A_upper gauge\n"
                           "A_upper 0\n"
                           "# HELP m_total M.\n"
                           "# TYPE m_total counter\n"
                           "m_total{x=\"a\"} 1\n"
                           "m_total{x=\"b\"} 1\n"
                           "# HELP z_total Z.\n"
                           "# TYPE z_total counter\n"
                           "z_total 3\n");
}

static void test_registration_errors(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        static const double decreasing[] = { 1, 0.5 };
        static const double equal[] = { 1, 1 };
        static const double with_nan[] = { 1, NAN };
        static const struct {
                const char *name;
                bool valid;
        } names[] = {
                { "a", true },    { "_", true },    { ":", true },         { "a:b_c9", true },
                { "A_Z", true },  { "", false },    { "9a", false },       { "a-b", false },
                { "a b", false }, { "a.b", false }, { "\xc3\xa9", false }, { "a\n", false },
        };
        static const struct {
                const char *name;
                bool valid;
        } labels[] = {
                { "a", true },    { "_a", true }, { "a9_B", true }, { "__a", false },
                { "__", false },  { "", false },  { "9a", false },  { "a:b", false },
                { "a-b", false }, { "le", true }, { "_", true },
        };
        struct error *err = NULL;
        struct metric *m;

        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
                cleanup_metrics_registry struct metrics_registry *r = metrics_registry_new();

                err = NULL;
                m = metrics_counter_new(r, names[i].name, "h", NULL, &err);
                if (names[i].valid) {
                        if (!m)
                                fail_msg("\"%s\": %s", names[i].name, err->message);
                } else {
                        char want[64];

                        snprintf(want, sizeof(want), "\"%s\" is not a valid metric name",
                                 names[i].name);
                        assert_error(m, err, EINVAL, want);
                }
        }
        for (size_t i = 0; i < ARRAY_SIZE(labels); i++) {
                cleanup_metrics_registry struct metrics_registry *r = metrics_registry_new();

                err = NULL;
                m = metrics_gauge_new(r, "g", "h", L("ok", labels[i].name), &err);
                if (labels[i].valid) {
                        if (!m)
                                fail_msg("\"%s\": %s", labels[i].name, err->message);
                } else {
                        char want[64];

                        snprintf(want, sizeof(want),
                                 "\"%s\" is not a valid label name for metric \"g\"",
                                 labels[i].name);
                        assert_error(m, err, EINVAL, want);
                }
        }

        err = NULL;
        m = metrics_counter_new(reg, "c", "h", L("a", "b", "a"), &err);
        assert_error(m, err, EINVAL, "duplicate label names for metric \"c\"");
        err = NULL;
        m = metrics_histogram_new(reg, "h", "h", L("le"), NULL, 0, &err);
        assert_error(m, err, EINVAL,
                     "metric \"h\": \"le\" is not allowed as label name in histograms");
        err = NULL;
        m = metrics_histogram_new(reg, "h", "h", NULL, decreasing, 2, &err);
        assert_error(
                m, err, EINVAL,
                "metric \"h\": histogram buckets must be in increasing order: 1.000000 >= 0.500000");
        err = NULL;
        m = metrics_histogram_new(reg, "h", "h", NULL, equal, 2, &err);
        assert_error(
                m, err, EINVAL,
                "metric \"h\": histogram buckets must be in increasing order: 1.000000 >= 1.000000");
        err = NULL;
        m = metrics_histogram_new(reg, "h", "h", NULL, with_nan, 2, &err);
        assert_error(m, err, EINVAL, "metric \"h\": histogram bucket is NaN");
        err = NULL;
        m = metrics_collected_new(reg, METRIC_HISTOGRAM, "h", "h", NULL, &err);
        assert_error(m, err, EINVAL, "metric \"h\": a collected family is a counter or a gauge");

        /* Names are unique in a registry, whatever the type; a histogram's series names too. */
        assert_non_null(metrics_counter_new(reg, "dup", "h", NULL, NULL));
        err = NULL;
        m = metrics_gauge_new(reg, "dup", "h", NULL, &err);
        assert_error(m, err, EEXIST, "metric \"dup\": already registered");
        err = NULL;
        m = metrics_collected_new(reg, METRIC_GAUGE, "dup", "h", NULL, &err);
        assert_error(m, err, EEXIST, "metric \"dup\": already registered");
        assert_non_null(metrics_histogram_new(reg, "lat", "h", NULL, NULL, 0, NULL));
        err = NULL;
        m = metrics_counter_new(reg, "lat_count", "h", NULL, &err);
        assert_error(m, err, EEXIST, "metric \"lat_count\": collides with histogram \"lat\"");
        assert_non_null(metrics_gauge_new(reg, "size_sum", "h", NULL, NULL));
        err = NULL;
        m = metrics_histogram_new(reg, "size", "h", NULL, NULL, 0, &err);
        assert_error(m, err, EEXIST, "metric \"size\": collides with histogram \"size\"");
        /* Neither is a collision: a prefix without a series suffix. */
        assert_non_null(metrics_counter_new(reg, "lat_total", "h", NULL, NULL));
        assert_non_null(metrics_counter_new(reg, "lat_bucket_total", "h", NULL, NULL));

        /* Refused registrations leave nothing behind. */
        assert_render(reg, "# HELP dup h\n"
                           "# TYPE dup counter\n"
                           "dup 0\n"
                           "# HELP lat h\n"
                           "# TYPE lat histogram\n"
                           "lat_bucket{le=\"0.005\"} 0\n"
                           "lat_bucket{le=\"0.01\"} 0\n"
                           "lat_bucket{le=\"0.025\"} 0\n"
                           "lat_bucket{le=\"0.05\"} 0\n"
                           "lat_bucket{le=\"0.1\"} 0\n"
                           "lat_bucket{le=\"0.25\"} 0\n"
                           "lat_bucket{le=\"0.5\"} 0\n"
                           "lat_bucket{le=\"1\"} 0\n"
                           "lat_bucket{le=\"2.5\"} 0\n"
                           "lat_bucket{le=\"5\"} 0\n"
                           "lat_bucket{le=\"10\"} 0\n"
                           "lat_bucket{le=\"+Inf\"} 0\n"
                           "lat_sum 0\n"
                           "lat_count 0\n"
                           "# HELP lat_bucket_total h\n"
                           "# TYPE lat_bucket_total counter\n"
                           "lat_bucket_total 0\n"
                           "# HELP lat_total h\n"
                           "# TYPE lat_total counter\n"
                           "lat_total 0\n"
                           "# HELP size_sum h\n"
                           "# TYPE size_sum gauge\n"
                           "size_sum 0\n");
}

static void test_type_strings(void **state)
{
        enum metric_type t;

        assert_string_equal(metric_type_to_string(METRIC_COUNTER), "counter");
        assert_string_equal(metric_type_to_string(METRIC_GAUGE), "gauge");
        assert_string_equal(metric_type_to_string(METRIC_HISTOGRAM), "histogram");
        assert_null(metric_type_to_string(METRIC_TYPE_MAX));
        assert_int_equal(metric_type_from_string("histogram", &t), 0);
        assert_int_equal(t, METRIC_HISTOGRAM);
        assert_int_equal(metric_type_from_string("summary", &t), -EINVAL);
}

/* ---- collectors ---- */

struct pods_state {
        struct metric *running;   /* collected gauge, label phase */
        struct metric *cpu;       /* collected counter, no labels */
        struct metric *scrapes;   /* ordinary counter the collector bumps */
        struct metric *other_reg; /* a collected family of another registry */
        int npods;
        int mode; /* 0 ok, 1 duplicate, 2 fail with message, 3 fail bare, 4 wrong family,
                   * 5 ignore a refused report, 6 wrong label count, 7 label value not UTF-8 */
};

static int collect_pods(struct metrics_scrape *scrape, void *userdata, struct error **reterr)
{
        struct pods_state *s = userdata;
        int r;

        assert_int_equal(metrics_add(s->scrapes, NULL, 1), 0);
        if (s->mode == 2)
                return error_set(reterr, EIO, "read \"/proc/stat\": input/output error");
        if (s->mode == 3)
                return -ENOMEM;
        if (s->mode == 4)
                return metrics_scrape_set(scrape, s->scrapes, NULL, 1);
        if (s->mode == 5) {
                assert_int_equal(metrics_scrape_set(scrape, s->other_reg, NULL, 1), -EINVAL);
                return 0;
        }
        /* Reported out of order: the exposition sorts. */
        r = metrics_scrape_set(scrape, s->running, L("Running"), s->npods);
        if (r < 0)
                return r;
        r = metrics_scrape_set(scrape, s->running, L("Pending"), 1);
        if (r < 0)
                return r;
        if (s->mode == 1)
                return metrics_scrape_set(scrape, s->running, L("Running"), 2);
        if (s->mode == 6)
                return metrics_scrape_set(scrape, s->running, L("a", "b"), 1);
        if (s->mode == 7)
                return metrics_scrape_set(scrape, s->running, L("\xff"), 1);
        return 0;
}

static int collect_cpu(struct metrics_scrape *scrape, void *userdata, struct error **reterr)
{
        struct pods_state *s = userdata;

        return metrics_scrape_set(scrape, s->cpu, NULL, 12345.678);
}

static void assert_render_fails(struct metrics_registry *reg, int errnum, const char *message)
{
        struct strbuf sb;
        struct error *err = NULL;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "kept");
        assert_int_equal(metrics_render(reg, &sb, &err), -errnum);
        assert_string_equal(sb.buf, "kept");
        assert_int_equal(sb.len, 4);
        assert_non_null(err);
        assert_int_equal(err->errnum, errnum);
        assert_string_equal(err->message, message);
        error_free(err);
        /* Without reterr it still fails. */
        assert_int_equal(metrics_render(reg, &sb, NULL), -errnum);
        assert_string_equal(sb.buf, "kept");
        strbuf_release(&sb);
}

static void test_collectors(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        cleanup_metrics_registry struct metrics_registry *reg2 = metrics_registry_new();
        struct pods_state s = { .npods = 3 };
        double v;

        s.running = metrics_collected_new(reg, METRIC_GAUGE, "kubelet_running_pods",
                                          "[ALPHA] Number of pods.", L("phase"), NULL);
        s.cpu = metrics_collected_new(reg, METRIC_COUNTER, "node_cpu_usage_seconds_total",
                                      "[ALPHA] CPU.", NULL, NULL);
        s.scrapes = metrics_counter_new(reg, "scrapes_total", "Scrapes.", NULL, NULL);
        s.other_reg = metrics_collected_new(reg2, METRIC_GAUGE, "other", "o", NULL, NULL);
        assert_non_null(s.running);
        assert_non_null(s.cpu);
        assert_non_null(s.scrapes);
        assert_non_null(s.other_reg);
        /* Collected families take values only from collectors. */
        assert_int_equal(metrics_set(s.running, L("Running"), 1), -EINVAL);
        assert_int_equal(metrics_add(s.cpu, NULL, 1), -EINVAL);
        assert_int_equal(metrics_get(s.cpu, NULL, &v), -EINVAL);

        /* No collector yet: collected families have no children and are omitted. */
        assert_render(reg, "# HELP scrapes_total Scrapes.\n"
                           "# TYPE scrapes_total counter\n"
                           "scrapes_total 0\n");
        metrics_collector_add(reg, collect_pods, &s);
        metrics_collector_add(reg, collect_cpu, &s);
        /* Collectors run first, so a counter they bump shows the current scrape. */
        assert_render(reg, "# HELP kubelet_running_pods [ALPHA] Number of pods.\n"
                           "# TYPE kubelet_running_pods gauge\n"
                           "kubelet_running_pods{phase=\"Pending\"} 1\n"
                           "kubelet_running_pods{phase=\"Running\"} 3\n"
                           "# HELP node_cpu_usage_seconds_total [ALPHA] CPU.\n"
                           "# TYPE node_cpu_usage_seconds_total counter\n"
                           "node_cpu_usage_seconds_total 12345.678\n"
                           "# HELP scrapes_total Scrapes.\n"
                           "# TYPE scrapes_total counter\n"
                           "scrapes_total 1\n");
        /* Each render reports afresh. */
        s.npods = 0;
        assert_render(reg, "# HELP kubelet_running_pods [ALPHA] Number of pods.\n"
                           "# TYPE kubelet_running_pods gauge\n"
                           "kubelet_running_pods{phase=\"Pending\"} 1\n"
                           "kubelet_running_pods{phase=\"Running\"} 0\n"
                           "# HELP node_cpu_usage_seconds_total [ALPHA] CPU.\n"
                           "# TYPE node_cpu_usage_seconds_total counter\n"
                           "node_cpu_usage_seconds_total 12345.678\n"
                           "# HELP scrapes_total Scrapes.\n"
                           "# TYPE scrapes_total counter\n"
                           "scrapes_total 2\n");

        /* A removed collector is not called again; the other stays. */
        metrics_collector_remove(reg, collect_pods, &s);
        assert_render(reg, "# HELP node_cpu_usage_seconds_total [ALPHA] CPU.\n"
                           "# TYPE node_cpu_usage_seconds_total counter\n"
                           "node_cpu_usage_seconds_total 12345.678\n"
                           "# HELP scrapes_total Scrapes.\n"
                           "# TYPE scrapes_total counter\n"
                           "scrapes_total 2\n");
        metrics_collector_remove(reg, collect_cpu, &s);
        metrics_collector_add(reg, collect_pods, &s);
        metrics_collector_add(reg, collect_cpu, &s);
        s.npods = 0;

        /* K8S: client_golang's Gather refuses the same label values twice in one scrape. */
        s.mode = 1;
        assert_render_fails(
                reg, EEXIST,
                "metric \"kubelet_running_pods\": collected before with the same label values");
        s.mode = 2;
        assert_render_fails(reg, EIO, "read \"/proc/stat\": input/output error");
        s.mode = 3;
        assert_render_fails(reg, ENOMEM, "metrics collector: Cannot allocate memory");
        s.mode = 4;
        assert_render_fails(reg, EINVAL, "metric \"scrapes_total\": not a collected metric");
        /* A refused report fails the render even when the collector returns 0. */
        s.mode = 5;
        assert_render_fails(reg, EINVAL, "metric \"other\": not a collected metric");
        s.mode = 6;
        assert_render_fails(reg, EINVAL,
                            "metric \"kubelet_running_pods\": wrong number of label values");
        s.mode = 7;
        assert_render_fails(reg, EINVAL,
                            "metric \"kubelet_running_pods\": label value is not valid UTF-8");

        /* Failed renders leave nothing behind for the next one. */
        s.mode = 0;
        s.npods = 7;
        assert_render(reg, "# HELP kubelet_running_pods [ALPHA] Number of pods.\n"
                           "# TYPE kubelet_running_pods gauge\n"
                           "kubelet_running_pods{phase=\"Pending\"} 1\n"
                           "kubelet_running_pods{phase=\"Running\"} 7\n"
                           "# HELP node_cpu_usage_seconds_total [ALPHA] CPU.\n"
                           "# TYPE node_cpu_usage_seconds_total counter\n"
                           "node_cpu_usage_seconds_total 12345.678\n"
                           "# HELP scrapes_total Scrapes.\n"
                           "# TYPE scrapes_total counter\n"
                           "scrapes_total 17\n");
}

/* ---- threads ---- */

#define NTHREADS 8
#define NINCS    50000

struct worker {
        struct metric *counter, *plain, *gauge, *hist;
        int id;
};

static void *work(void *arg)
{
        struct worker *w = arg;
        char own[16];

        snprintf(own, sizeof(own), "t%d", w->id);
        for (int i = 0; i < NINCS; i++) {
                /* A value every thread shares, one of its own, and ten created in a race. */
                char race[8];

                snprintf(race, sizeof(race), "r%d", i % 10);
                if (metrics_add(w->counter, L("shared"), 1) < 0 ||
                    metrics_add(w->counter, L(own), 0.5) < 0 ||
                    metrics_add(w->counter, L(race), 1) < 0 || metrics_add(w->plain, NULL, 1) < 0 ||
                    metrics_add(w->gauge, NULL, (i % 2) ? -1 : 1) < 0 ||
                    metrics_observe(w->hist, NULL, (i % 2) ? 0.5 : 2) < 0)
                        return (void *) 1;
        }
        return NULL;
}

static void *scrape_loop(void *arg)
{
        struct metrics_registry *reg = arg;

        for (int i = 0; i < 50; i++) {
                struct strbuf sb;

                strbuf_init(&sb);
                if (metrics_render(reg, &sb, NULL) < 0)
                        return (void *) 1;
                strbuf_release(&sb);
        }
        return NULL;
}

static void test_threads(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        static const double bounds[] = { 1 };
        struct worker w[NTHREADS];
        pthread_t tid[NTHREADS], scraper;
        void *ret;
        double v;
        char expect[512];
        struct strbuf sb;

        w[0].counter = metrics_counter_new(reg, "c_total", "c", L("who"), NULL);
        w[0].plain = metrics_counter_new(reg, "p_total", "p", NULL, NULL);
        w[0].gauge = metrics_gauge_new(reg, "g", "g", NULL, NULL);
        w[0].hist = metrics_histogram_new(reg, "h", "h", NULL, bounds, 1, NULL);
        for (int i = 0; i < NTHREADS; i++) {
                w[i] = w[0];
                w[i].id = i;
                assert_int_equal(pthread_create(&tid[i], NULL, work, &w[i]), 0);
        }
        assert_int_equal(pthread_create(&scraper, NULL, scrape_loop, reg), 0);
        for (int i = 0; i < NTHREADS; i++) {
                assert_int_equal(pthread_join(tid[i], &ret), 0);
                assert_null(ret);
        }
        assert_int_equal(pthread_join(scraper, &ret), 0);
        assert_null(ret);

        assert_int_equal(metrics_get(w[0].counter, L("shared"), &v), 0);
        assert_true(v == (double) NTHREADS * NINCS);
        assert_int_equal(metrics_get(w[0].plain, NULL, &v), 0);
        assert_true(v == (double) NTHREADS * NINCS);
        for (int i = 0; i < NTHREADS; i++) {
                char own[16];

                snprintf(own, sizeof(own), "t%d", i);
                assert_int_equal(metrics_get(w[0].counter, L(own), &v), 0);
                assert_true(v == NINCS * 0.5);
        }
        for (int i = 0; i < 10; i++) {
                char race[8];

                snprintf(race, sizeof(race), "r%d", i);
                assert_int_equal(metrics_get(w[0].counter, L(race), &v), 0);
                assert_true(v == (double) NTHREADS * NINCS / 10);
        }
        assert_int_equal(metrics_get(w[0].gauge, NULL, &v), 0);
        assert_true(v == 0);
        snprintf(expect, sizeof(expect),
                 "# HELP h h\n# TYPE h histogram\n"
                 "h_bucket{le=\"1\"} %d\nh_bucket{le=\"+Inf\"} %d\nh_sum %d\nh_count %d\n",
                 NTHREADS * NINCS / 2, NTHREADS * NINCS, NTHREADS * NINCS / 2 * 5 / 2,
                 NTHREADS * NINCS);
        strbuf_init(&sb);
        assert_int_equal(metrics_render(reg, &sb, NULL), 0);
        if (!strstr(sb.buf, expect))
                fail_msg("expected\n%s\nin\n%s", expect, sb.buf);
        strbuf_release(&sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format_value),
                cmocka_unit_test(test_counter),
                cmocka_unit_test(test_delete_matching),
                cmocka_unit_test(test_gauge_and_escaping),
                cmocka_unit_test(test_histogram),
                cmocka_unit_test(test_histogram_nan_and_linear_buckets),
                cmocka_unit_test(test_buckets),
                cmocka_unit_test(test_families_sorted_and_empty_omitted),
                cmocka_unit_test(test_registration_errors),
                cmocka_unit_test(test_type_strings),
                cmocka_unit_test(test_collectors),
                cmocka_unit_test(test_threads),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
