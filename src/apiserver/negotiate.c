/* negotiate.c: Accept and Content-Type negotiation for resource requests, as kube-apiserver's
 * negotiation package and the goautoneg parser it uses. Decides only; api.c and registry.c
 * encode and decode. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apiserver/negotiate.h"
#include "base/macro.h"

/* Clauses of one Accept header looked at; the rest is ignored (a header is at most the HTTP
 * server's header limit, and no client lists more than a handful). */
#define MAX_CLAUSES 32
/* Parameters of one clause looked at. */
#define MAX_PARAMS 8

struct span {
        const char *p;
        size_t n;
};

struct clause {
        struct span type, subtype;
        double q;
        struct span keys[MAX_PARAMS], values[MAX_PARAMS];
        size_t n_params;
};

static const char *const media_types[API_MEDIA_MAX] = {
        [API_MEDIA_JSON] = MEDIA_JSON,
        [API_MEDIA_YAML] = MEDIA_YAML,
        [API_MEDIA_PROTOBUF] = MEDIA_PROTOBUF,
};

/* K8S: YAML has no stream serializer (the codec factory gives it no framer). */
static const bool media_streams[API_MEDIA_MAX] = {
        [API_MEDIA_JSON] = true,
        [API_MEDIA_YAML] = false,
        [API_MEDIA_PROTOBUF] = true,
};

static struct span trim(const char *p, size_t n)
{
        while (n && *p == ' ')
                p++, n--;
        while (n && p[n - 1] == ' ')
                n--;
        return (struct span){ p, n };
}

static bool span_eq(struct span s, const char *lit)
{
        return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* K8S: Go's strconv.ParseFloat; a value it refuses leaves q at 0, as goautoneg does. */
static double parse_q(struct span v)
{
        char buf[32];
        char *end = NULL;
        double q;

        if (v.n == 0 || v.n >= sizeof(buf))
                return 0;
        memcpy(buf, v.p, v.n);
        buf[v.n] = '\0';
        q = strtod(buf, &end);
        return *end ? 0 : q;
}

/* K8S: goautoneg.ParseAccept: comma-separated clauses, spaces trimmed; "type/subtype" or a bare
 * "*"; parameters "k=v" (without '=' dropped), q read as a number and not kept as a
 * parameter. A clause that is neither form is skipped. */
static bool parse_clause(const char *p, size_t n, struct clause *c)
{
        struct span part = trim(p, n), range, slash_rest;
        const char *semi = memchr(part.p, ';', part.n), *slash;
        size_t range_n = semi ? (size_t) (semi - part.p) : part.n;

        *c = (struct clause){ .q = 1.0 };
        range = (struct span){ part.p, range_n };
        slash = memchr(range.p, '/', range.n);
        if (!slash) {
                c->type = trim(range.p, range.n);
                if (!span_eq(c->type, "*"))
                        return false;
                c->subtype = c->type;
        } else {
                c->type = trim(range.p, (size_t) (slash - range.p));
                slash_rest = (struct span){ slash + 1, range.n - (size_t) (slash - range.p) - 1 };
                if (memchr(slash_rest.p, '/', slash_rest.n))
                        return false; /* "a/b/c": Split gives three parts */
                c->subtype = trim(slash_rest.p, slash_rest.n);
        }
        while (semi) {
                const char *start = semi + 1, *endp = part.p + part.n, *eq;
                size_t len;

                semi = memchr(start, ';', (size_t) (endp - start));
                len = semi ? (size_t) (semi - start) : (size_t) (endp - start);
                eq = memchr(start, '=', len);
                if (!eq)
                        continue;
                struct span key = trim(start, (size_t) (eq - start));
                struct span value = { eq + 1, len - (size_t) (eq - start) - 1 };

                if (span_eq(key, "q")) {
                        c->q = parse_q(value);
                        continue;
                }
                value = trim(value.p, value.n);
                /* a later duplicate replaces the earlier one (a Go map) */
                size_t i;
                for (i = 0; i < c->n_params; i++)
                        if (c->keys[i].n == key.n && memcmp(c->keys[i].p, key.p, key.n) == 0)
                                break;
                if (i == c->n_params) {
                        if (c->n_params == MAX_PARAMS)
                                continue;
                        c->n_params++;
                }
                c->keys[i] = key;
                c->values[i] = value;
        }
        return true;
}

/* K8S: goautoneg's accept_slice.Less, applied by Go's sort.Sort, which for so few elements is
 * an insertion sort: kept exactly, odd as it is, so the same header picks the same type. */
static bool clause_less(const struct clause *a, const struct clause *b)
{
        if (a->q > b->q)
                return true;
        if (!span_eq(a->type, "*") && span_eq(b->type, "*"))
                return true;
        if (!span_eq(a->subtype, "*") && span_eq(b->subtype, "*"))
                return true;
        return false;
}

static size_t parse_accept(const char *accept, struct clause *out)
{
        size_t n = 0;
        const char *p = accept;

        for (;;) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t) (comma - p) : strlen(p);

                if (n < MAX_CLAUSES && parse_clause(p, len, &out[n]))
                        n++;
                if (!comma)
                        break;
                p = comma + 1;
        }
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && clause_less(&out[j], &out[j - 1]); j--) {
                        struct clause t = out[j];
                        out[j] = out[j - 1];
                        out[j - 1] = t;
                }
        return n;
}

/* K8S: acceptMediaTypeOptions with the RequestScope's restrictions
 * (AllowsMediaTypeTransform, AllowsServerVersion, AllowsStreamSchema). */
static bool accept_options(const struct clause *c, enum api_media media, struct api_output *ret)
{
        struct span as = { 0 }, g = { 0 }, v = { 0 };
        bool convert = false;

        for (size_t i = 0; i < c->n_params; i++) {
                struct span k = c->keys[i], val = c->values[i];

                if (span_eq(k, "as"))
                        as = val, convert = true;
                else if (span_eq(k, "g"))
                        g = val, convert = true;
                else if (span_eq(k, "v"))
                        v = val, convert = true;
                else if (span_eq(k, "stream")) {
                        if (val.n && (!media_streams[media] || !span_eq(val, "watch")))
                                return false;
                } else if (span_eq(k, "sv")) {
                        if (val.n && !span_eq(val, "v1"))
                                return false;
                }
        }
        *ret = (struct api_output){ .media = media };
        if (!convert)
                return true;
        /* K8S: a Table of meta.k8s.io/v1 or v1beta1, in JSON or YAML only. The
         * PartialObjectMetadata conversions upstream allows are not implemented here, so such a
         * clause is not acceptable and the next one is tried. */
        if (span_eq(g, "meta.k8s.io") && (span_eq(v, "v1") || span_eq(v, "v1beta1")) &&
            span_eq(as, "Table") && media != API_MEDIA_PROTOBUF) {
                ret->table = true;
                return true;
        }
        return false;
}

static bool clause_matches(const struct clause *c, const char *media_type)
{
        const char *slash = strchr(media_type, '/');
        struct span type = { media_type, (size_t) (slash - media_type) };
        struct span sub = { slash + 1, strlen(slash + 1) };

        if (span_eq(c->type, "*") && span_eq(c->subtype, "*"))
                return true;
        return c->type.n == type.n && !memcmp(c->type.p, type.p, type.n) &&
               ((c->subtype.n == sub.n && !memcmp(c->subtype.p, sub.p, sub.n)) ||
                span_eq(c->subtype, "*"));
}

int negotiate_accept_pick(const char *accept, const char *const *types, size_t n, size_t *ret_index)
{
        struct clause clauses[MAX_CLAUSES];
        size_t nc = parse_accept(accept ? accept : "", clauses);

        for (size_t i = 0; i < nc; i++)
                for (size_t k = 0; k < n; k++)
                        if (clause_matches(&clauses[i], types[k])) {
                                *ret_index = k;
                                return 0;
                        }
        return -ENOMSG;
}

int negotiate_output(const char *accept, bool watch, struct api_output *ret)
{
        struct clause clauses[MAX_CLAUSES];
        size_t n;

        if (!accept || !*accept) {
                *ret = (struct api_output){ .media = API_MEDIA_JSON };
                return 0;
        }
        n = parse_accept(accept, clauses);
        for (size_t i = 0; i < n; i++) {
                const struct clause *c = &clauses[i];

                for (enum api_media m = 0; m < API_MEDIA_MAX; m++) {
                        bool match = clause_matches(c, media_types[m]);
                        struct api_output out;

                        if (!match || !accept_options(c, m, &out))
                                continue;
                        /* K8S: NegotiateOutputStreamSerializer: the chosen type must stream */
                        if (watch && !media_streams[m])
                                return -ENOMSG;
                        *ret = out;
                        return 0;
                }
        }
        return -ENOMSG;
}

const char *negotiate_not_acceptable_message(bool watch)
{
        return watch ? "only the following media types are accepted: "
                       "application/json;stream=watch, "
                       "application/vnd.kubernetes.protobuf;stream=watch"
                     : "only the following media types are accepted: application/json, "
                       "application/yaml, application/vnd.kubernetes.protobuf";
}

int negotiate_input(const char *content_type, enum api_media *ret)
{
        size_t n = content_type ? strcspn(content_type, "; \t") : 0;

        for (enum api_media m = 0; n && m < API_MEDIA_MAX; m++)
                if (n == strlen(media_types[m]) &&
                    strncasecmp(content_type, media_types[m], n) == 0) {
                        *ret = m;
                        return 0;
                }
        return -ENOENT;
}

const char *negotiate_unsupported_message(void)
{
        return "the body of the request was in an unknown format - accepted media types include: "
               "application/json, application/yaml, application/vnd.kubernetes.protobuf";
}

const char *negotiate_content_type(enum api_media media, bool watch)
{
        switch (media) {
        case API_MEDIA_PROTOBUF:
                return watch ? MEDIA_PROTOBUF ";stream=watch" : MEDIA_PROTOBUF;
        case API_MEDIA_YAML:
                return MEDIA_YAML;
        case API_MEDIA_JSON:
        case API_MEDIA_MAX:
                break;
        }
        return watch ? MEDIA_JSON ";stream=watch" : MEDIA_JSON;
}
