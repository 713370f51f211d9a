/* node-affinity.c: node selector terms (matchExpressions over labels, matchFields over
 * metadata.name) and topology selector terms matched against a Node, as apimachinery's label
 * requirements and component-helpers' nodeaffinity do. A requirement that does not parse
 * (unknown operator, wrong number of values, a Gt/Lt value that is not an integer) fails its
 * term, as upstream's parse error does. Pod affinity and tolerations are not here. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "controllers/node-affinity.h"

/* K8S: strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits only. */
static int parse_int64(const char *s, int64_t *ret)
{
        char *end = NULL;
        long long v;

        if (!s || !*s || (*s != '+' && *s != '-' && (*s < '0' || *s > '9')))
                return -EINVAL;
        if ((*s == '+' || *s == '-') && (s[1] < '0' || s[1] > '9'))
                return -EINVAL;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || !end || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

static bool values_contain(const json_t *values, const char *v)
{
        size_t i;
        json_t *x;

        json_array_foreach(values, i, x) {
                if (json_is_string(x) && streq(json_string_value(x), v))
                        return true;
        }
        return false;
}

/* -1: the requirement does not parse (the term fails); else whether it holds for have (NULL:
 * the label is missing). K8S: labels.NewRequirement's checks, then Requirement.Matches. */
static int label_requirement(const char *op, const json_t *values, const char *have)
{
        size_t n = json_array_size(values);
        int64_t want, got;

        if (streq(op, "In") || streq(op, "NotIn")) {
                if (n == 0)
                        return -1;
                if (streq(op, "In"))
                        return have && values_contain(values, have);
                return !have || !values_contain(values, have);
        }
        if (streq(op, "Exists") || streq(op, "DoesNotExist")) {
                if (n != 0)
                        return -1;
                return streq(op, "Exists") ? have != NULL : have == NULL;
        }
        if (streq(op, "Gt") || streq(op, "Lt")) {
                if (n != 1 || parse_int64(json_string_value(json_array_get(values, 0)), &want) < 0)
                        return -1;
                if (!have || parse_int64(have, &got) < 0)
                        return 0;
                return streq(op, "Gt") ? got > want : got < want;
        }
        return -1;
}

/* K8S nodeSelectorRequirementsAsFieldSelector: In and NotIn with exactly one value; a field the
 * node does not have counts as "". */
static int field_requirement(const char *key, const char *op, const json_t *values,
                             const json_t *node)
{
        const char *have =
                streq(key, "metadata.name") ? json_path_string(node, "metadata.name") ?: "" : "";
        const char *want = json_string_value(json_array_get(values, 0));

        if (json_array_size(values) != 1 || !want)
                return -1;
        if (streq(op, "In"))
                return streq(have, want);
        if (streq(op, "NotIn"))
                return !streq(have, want);
        return -1;
}

bool node_selector_term_matches(const json_t *term, const json_t *node)
{
        const json_t *exprs = json_object_get(term, "matchExpressions");
        const json_t *fields = json_object_get(term, "matchFields");
        const json_t *labels = json_path(node, "metadata.labels");
        bool ok = true;
        size_t i;
        json_t *r;

        /* K8S: an empty term selects no objects */
        if (!json_array_size(exprs) && !json_array_size(fields))
                return false;
        json_array_foreach(exprs, i, r) {
                const char *key = json_string_value(json_object_get(r, "key")) ?: "";
                const char *op = json_string_value(json_object_get(r, "operator")) ?: "";
                int m = label_requirement(op, json_object_get(r, "values"),
                                          json_string_value(json_object_get(labels, key)));
                if (m < 0)
                        return false;
                ok = ok && m;
        }
        json_array_foreach(fields, i, r) {
                const char *key = json_string_value(json_object_get(r, "key")) ?: "";
                const char *op = json_string_value(json_object_get(r, "operator")) ?: "";
                int m = field_requirement(key, op, json_object_get(r, "values"), node);
                if (m < 0)
                        return false;
                ok = ok && m;
        }
        return ok;
}

bool node_selector_matches(const json_t *selector, const json_t *node)
{
        size_t i;
        json_t *term;

        if (!selector || !node)
                return false;
        json_array_foreach(json_object_get(selector, "nodeSelectorTerms"), i, term) {
                if (node_selector_term_matches(term, node))
                        return true;
        }
        return false;
}

bool pv_node_affinity_matches(const json_t *pv, const json_t *node)
{
        const json_t *required = json_path(pv, "spec.nodeAffinity.required");

        if (!required || json_is_null(required))
                return true;
        return node_selector_matches(required, node);
}

bool topology_terms_match(const json_t *terms, const json_t *node)
{
        const json_t *labels = json_path(node, "metadata.labels");
        size_t i, j;
        json_t *term, *r;

        if (!json_array_size(terms))
                return true;
        json_array_foreach(terms, i, term) {
                const json_t *exprs = json_object_get(term, "matchLabelExpressions");
                bool ok = json_array_size(exprs) > 0;

                json_array_foreach(exprs, j, r) {
                        const char *key = json_string_value(json_object_get(r, "key")) ?: "";
                        const char *have = json_string_value(json_object_get(labels, key));
                        const json_t *values = json_object_get(r, "values");

                        /* K8S: TopologySelectorRequirementsAsSelector: key in (values) */
                        if (!json_array_size(values) || !have || !values_contain(values, have)) {
                                ok = false;
                                break;
                        }
                }
                if (ok)
                        return true;
        }
        return false;
}
