/* yaml.c: YAML → jansson as sigs.k8s.io/yaml's YAMLToJSON does it on go-yaml v2 (see yaml.h).
 * Three passes, each as upstream has it, so errors win in upstream's order: libyaml events
 * become go-yaml's node tree (parse errors, unknown anchors); the tree is decoded as go-yaml
 * decodes into interface{} (scalar resolution, aliases, merges, alias ratio); the Go values
 * become JSON (key conversion, then NaN/Inf). Not here: HTTP, status codes, emitting YAML. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "api/yaml.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/hash.h"
#include "base/strbuf.h"
#include "base/utf8.h"

/* Recursion bound of the decoder: without aliases it stays below 2 * YAML_MAX_DEPTH + 2, so
 * only alias chains reach it, which upstream's alias ratio would also end. */
#define YAML_MAX_RECURSION 1000
/* Rendered Go values in messages stop growing past this many bytes. */
#define YAML_MAX_RENDER 16384

#define TAG_PREFIX    "tag:yaml.org,2002:"
#define TAG_STR       TAG_PREFIX "str"
#define TAG_INT       TAG_PREFIX "int"
#define TAG_FLOAT     TAG_PREFIX "float"
#define TAG_BOOL      TAG_PREFIX "bool"
#define TAG_NULL      TAG_PREFIX "null"
#define TAG_TIMESTAMP TAG_PREFIX "timestamp"
#define TAG_BINARY    TAG_PREFIX "binary"
#define TAG_MERGE     TAG_PREFIX "merge"

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* ---- arena: every node and Go value of one call lives here and is freed at once ---- */

#define ARENA_BLOCK (64u * 1024)

struct arena_block {
        struct arena_block *next;
        size_t used, size;
        max_align_t data[];
};

struct arena {
        struct arena_block *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
        struct arena_block *b = a->head;
        void *p;

        n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
        if (!b || b->size - b->used < n) {
                size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

                b = xmalloc(sizeof(*b) + size);
                b->size = size;
                b->used = 0;
                b->next = a->head;
                a->head = b;
        }
        p = (char *) b->data + b->used;
        b->used += n;
        return memset(p, 0, n);
}

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
        char *p = arena_alloc(a, n + 1);

        memcpy(p, s, n);
        p[n] = '\0';
        return p;
}

/* Grows an arena array of pointers so that one more fits. */
static void arena_push(struct arena *a, void ***items, size_t *n, size_t *cap, void *item)
{
        if (*n == *cap) {
                size_t ncap = *cap ? *cap * 2 : 4;
                void **grown = arena_alloc(a, ncap * sizeof(void *));

                if (*n)
                        memcpy(grown, *items, *n * sizeof(void *));
                *items = grown;
                *cap = ncap;
        }
        (*items)[(*n)++] = item;
}

static void arena_release(struct arena *a)
{
        while (a->head) {
                struct arena_block *next = a->head->next;

                free(a->head);
                a->head = next;
        }
}

/* ---- pass 1: libyaml events → go-yaml's node tree ---- */

enum ynode_kind { YN_SCALAR, YN_ALIAS, YN_SEQ, YN_MAP };

struct ynode {
        enum ynode_kind kind;
        bool implicit;     /* scalar: libyaml's plain_implicit (plain untagged, or tag "!") */
        bool expanding;    /* alias: being expanded now (go-yaml's d.aliases) */
        size_t line;       /* libyaml's 0-based line of the node */
        const char *tag;   /* NULL when untagged */
        const char *value; /* scalar text or alias name, NUL-terminated */
        size_t len;
        struct ynode *target; /* alias: the anchored node */
        void **kids;          /* sequence items; mapping keys and values alternating */
        size_t nkids, capkids;
};

struct anchor {
        const char *name;
        size_t len;
        struct ynode *node;
};

/* Open-addressed table with a per-process random seed, so crafted names cannot collide. */
struct anchors {
        struct anchor *slots;
        size_t cap, used;
};

static uint64_t hash_name(const char *s, size_t n)
{
        uint64_t h = hash_fnv1a(HASH_FNV_OFFSET ^ hash_seed(), s, n);

        return h ^ (h >> 29);
}

static struct anchor *anchors_slot(struct anchors *t, const char *name, size_t len)
{
        size_t i = hash_name(name, len) & (t->cap - 1);

        while (t->slots[i].name &&
               (t->slots[i].len != len || memcmp(t->slots[i].name, name, len) != 0))
                i = (i + 1) & (t->cap - 1);
        return &t->slots[i];
}

static void anchors_set(struct arena *a, struct anchors *t, const char *name, size_t len,
                        struct ynode *node)
{
        struct anchor *slot;

        if (2 * (t->used + 1) > t->cap) {
                struct anchors grown = { .cap = t->cap ? t->cap * 2 : 16 };

                grown.slots = arena_alloc(a, grown.cap * sizeof(struct anchor));
                for (size_t i = 0; i < t->cap; i++)
                        if (t->slots[i].name) {
                                *anchors_slot(&grown, t->slots[i].name, t->slots[i].len) =
                                        t->slots[i];
                                grown.used++;
                        }
                *t = grown;
        }
        slot = anchors_slot(t, name, len);
        if (!slot->name) {
                slot->name = name;
                slot->len = len;
                t->used++;
        }
        /* K8S: go-yaml keeps the latest node for a redefined anchor. */
        slot->node = node;
}

static struct ynode *anchors_get(struct anchors *t, const char *name, size_t len)
{
        if (!t->cap)
                return NULL;
        return anchors_slot(t, name, len)->node;
}

struct y2j {
        struct arena arena;
        struct anchors anchors;
        size_t nodes;
        /* decoder state */
        long decode_count, alias_count;
        int alias_depth, depth, frames;
};

/* K8S: go-yaml v2 parser.fail(): the problem line when there is one (plus one for scanner
 * errors only, which is how upstream prints them), else the context line, else none. */
static int parse_fail(const yaml_parser_t *p, struct error **reterr)
{
        size_t line = 0;

        if (p->error == YAML_MEMORY_ERROR)
                return error_set(reterr, ENOMEM, "yaml: out of memory");
        if (p->problem_mark.line != 0) {
                line = p->problem_mark.line;
                if (p->error == YAML_SCANNER_ERROR)
                        line++;
        } else if (p->context_mark.line != 0)
                line = p->context_mark.line;
        if (line)
                return error_set(reterr, EINVAL, "yaml: line %zu: %s", line,
                                 p->problem ? p->problem : "unknown problem parsing YAML content");
        return error_set(reterr, EINVAL, "yaml: %s",
                         p->problem ? p->problem : "unknown problem parsing YAML content");
}

static int too_many_nodes(struct error **reterr)
{
        return error_set(reterr, EINVAL, "yaml: document contains more than %d nodes",
                         YAML_MAX_NODES);
}

static int too_deep(size_t line, struct error **reterr)
{
        return error_set(reterr, EINVAL, "yaml: line %zu: exceeded max depth of %d", line + 1,
                         YAML_MAX_DEPTH);
}

static struct ynode *node_new(struct y2j *y, enum ynode_kind kind, const yaml_event_t *ev,
                              const yaml_char_t *tag, const yaml_char_t *anchor)
{
        struct ynode *n = arena_alloc(&y->arena, sizeof(*n));

        n->kind = kind;
        n->line = ev->start_mark.line;
        if (tag)
                n->tag = arena_strndup(&y->arena, (const char *) tag, strlen((const char *) tag));
        /* K8S: go-yaml registers the anchor before the node's children are parsed, so an alias
         * inside a node may name that node (and fails when decoded). */
        if (anchor) {
                size_t alen = strlen((const char *) anchor);

                anchors_set(&y->arena, &y->anchors,
                            arena_strndup(&y->arena, (const char *) anchor, alen), alen, n);
        }
        return n;
}

/* K8S: go-yaml's scanner knows no "\/" escape (libyaml 0.2.5 added it from YAML 1.2) and fails
 * with "found unknown escape character". libyaml hands over the unescaped text, so a
 * double-quoted scalar is scanned again in the input, found through the character index of its
 * mark. Only done when the input holds "\/" at all, and for UTF-8 input (libyaml converts UTF-16
 * before marking). */
struct rawscan {
        const char *data;
        size_t len;
        bool enabled;
        size_t index, off; /* character index ↔ byte offset, moving forward only */
};

static void rawscan_init(struct rawscan *rs, const char *data, size_t len)
{
        *rs = (struct rawscan){ .data = data, .len = len };
        if (len >= 2 && (((unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF) ||
                         ((unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE)))
                return;
        rs->enabled = memmem(data, len, "\\/", 2) != NULL;
        if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
                rs->off = 3; /* libyaml's marks start after the byte order mark */
}

static size_t utf8_width(unsigned char c)
{
        return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Is a line break in libyaml's sense at p (\r\n, \r, \n, NEL, LS, PS)? Its byte length or 0. */
static size_t break_width(const char *p, const char *end)
{
        if (*p == '\r')
                return p + 1 < end && p[1] == '\n' ? 2 : 1;
        if (*p == '\n')
                return 1;
        if (end - p >= 2 && memcmp(p, "\xC2\x85", 2) == 0)
                return 2;
        if (end - p >= 3 &&
            (memcmp(p, "\xE2\x80\xA8", 3) == 0 || memcmp(p, "\xE2\x80\xA9", 3) == 0))
                return 3;
        return 0;
}

/* The start of 0-based line `line` of UTF-8 input. */
static const char *rawscan_line(const struct rawscan *rs, size_t line)
{
        const char *p =
                rs->data + (rs->len >= 3 && memcmp(rs->data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
        const char *end = rs->data + rs->len;
        size_t w;

        while (line > 0 && p < end) {
                while (p < end && !(w = break_width(p, end)))
                        p++;
                if (p < end) {
                        p += w;
                        line--;
                }
        }
        return p;
}

/* The 0-based line of the "%YAML" directive heading UTF-8 input (only directives, comments and
 * blank lines may precede it), else fallback. */
static size_t rawscan_version_line(const struct rawscan *rs, size_t fallback)
{
        const char *p = rawscan_line(rs, 0), *end = rs->data + rs->len;
        size_t line = 0, w;

        if (rs->len >= 2 && (unsigned char) rs->data[0] >= 0xFE)
                return fallback;
        while (p < end) {
                const char *q = p;

                if (end - p >= 5 && memcmp(p, "%YAML", 5) == 0)
                        return line;
                while (q < end && (*q == ' ' || *q == '\t'))
                        q++;
                if (q < end && *p != '%' && *q != '#' && !break_width(q, end))
                        return fallback; /* content: no directive can follow */
                while (p < end && !(w = break_width(p, end)))
                        p++;
                if (p < end) {
                        p += w;
                        line++;
                }
        }
        return fallback;
}

static int rawscan_quoted(struct rawscan *rs, size_t index, size_t line, size_t limit,
                          struct error **reterr)
{
        const char *p, *end = rs->data + rs->len;
        size_t w;

        if (!rs->enabled)
                return 0;
        if (index < rs->index) {
                rs->index = 0;
                rs->off = rs->len >= 3 && memcmp(rs->data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        }
        while (rs->index < index && rs->off < rs->len) {
                rs->off += utf8_width((unsigned char) rs->data[rs->off]);
                rs->index++;
        }
        p = rs->data + rs->off;
        /* an event starts at the node's anchor or tag: skip those, blanks, comments, breaks */
        while (p < end && *p != '"') {
                if (*p == '&' || *p == '!') {
                        while (p < end && *p != ' ' && *p != '\t' && !break_width(p, end))
                                w = utf8_width((unsigned char) *p), p += w, index++;
                } else if (*p == '#') {
                        while (p < end && !break_width(p, end))
                                w = utf8_width((unsigned char) *p), p += w, index++;
                } else if (*p == ' ' || *p == '\t')
                        p++, index++;
                else if ((w = break_width(p, end)) != 0) {
                        index += w == 2 && *p == '\r' ? 2 : 1;
                        p += w;
                        line++;
                } else
                        return 0;
        }
        if (p >= end)
                return 0;
        for (p++, index++; p < end && *p != '"' && index < limit; p += w, index++) {
                w = break_width(p, end);
                if (w) {
                        line++;
                        index += w == 2 && *p == '\r'; /* libyaml counts CR LF as two */
                        continue;
                }
                w = utf8_width((unsigned char) *p);
                if (*p != '\\' || p + 1 >= end)
                        continue;
                if (p[1] == '/') {
                        /* go-yaml: scanner error at the backslash, shown 1-based unless on the
                         * first line (then the scalar's start, also line 0: no line at all) */
                        if (line)
                                return error_set(reterr, EINVAL,
                                                 "yaml: line %zu: found unknown escape character",
                                                 line + 1);
                        return error_set(reterr, EINVAL, "yaml: found unknown escape character");
                }
                /* skip the escaped character too (an escaped line break counts as one) */
                w = break_width(p + 1, end);
                if (w)
                        line++;
                index += 1 + (w == 2 && p[1] == '\r');
                w = 1 + (w ? w : utf8_width((unsigned char) p[1]));
        }
        return 0;
}

/* Does the directive at p ("%YAML ...", before end) name version 1.1? */
static bool version_is_1_1(const char *p, const char *end)
{
        char text[32];
        unsigned long major, minor;
        size_t n = (size_t) (end - p) < sizeof(text) - 1 ? (size_t) (end - p) : sizeof(text) - 1;
        char *c = text + 5, *stop;

        memcpy(text, p, n);
        text[n] = '\0';
        if (n < 6 || (*c != ' ' && *c != '\t'))
                return true; /* not a version directive: let libyaml's error stand */
        while (*c == ' ' || *c == '\t')
                c++;
        if (!is_digit(*c))
                return true;
        major = strtoul(c, &stop, 10);
        if (*stop != '.' || !is_digit(stop[1]))
                return true;
        minor = strtoul(stop + 1, &stop, 10);
        return major == 1 && minor == 1;
}

/* libyaml failed: would go-yaml's scanner have failed earlier, on a "\/" in the quoted scalar
 * being scanned (scanner error) or in the token the parser choked on (parser error)? */
static int rawscan_failure(struct rawscan *rs, const yaml_parser_t *p, struct error **reterr)
{
        size_t line = rawscan_version_line(rs, SIZE_MAX);
        const char *v = line == SIZE_MAX ? NULL : rawscan_line(rs, line);

        /* go-yaml checks the version directive before it reads any further */
        if (v && line < p->problem_mark.line && !version_is_1_1(v, rs->data + rs->len))
                return line ? error_set(reterr, EINVAL,
                                        "yaml: line %zu: found incompatible YAML document", line)
                            : error_set(reterr, EINVAL, "yaml: found incompatible YAML document");
        if (p->error == YAML_SCANNER_ERROR && p->context &&
            (streq(p->context, "while scanning a quoted scalar") ||
             streq(p->context, "while parsing a quoted scalar")))
                return rawscan_quoted(rs, p->context_mark.index, p->context_mark.line,
                                      p->problem_mark.index, reterr);
        if (p->error == YAML_PARSER_ERROR)
                return rawscan_quoted(rs, p->problem_mark.index, p->problem_mark.line, SIZE_MAX,
                                      reterr);
        return 0;
}

/* Builds the first document's root (NULL for an empty stream). Iterative, so deep input costs
 * no stack; nesting beyond YAML_MAX_DEPTH stops it. */
static int parse_document(struct y2j *y, yaml_parser_t *p, struct rawscan *rs,
                          struct ynode **ret_root, struct error **reterr)
{
        struct ynode *stack[YAML_MAX_DEPTH];
        struct ynode *root = NULL, *n;
        size_t depth = 0;
        bool done = false;
        yaml_event_t ev;
        int r = 0;

        while (!done) {
                if (!yaml_parser_parse(p, &ev)) {
                        r = rawscan_failure(rs, p, reterr);
                        return r < 0 ? r : parse_fail(p, reterr);
                }
                n = NULL;
                switch (ev.type) {
                case YAML_STREAM_START_EVENT:
                case YAML_NO_EVENT:
                        break;
                case YAML_STREAM_END_EVENT:
                        done = true; /* empty stream: null */
                        break;
                case YAML_DOCUMENT_START_EVENT: {
                        const yaml_version_directive_t *v =
                                ev.data.document_start.version_directive;

                        /* K8S: go-yaml v2 takes only "%YAML 1.1" (a parser error: 0-based line,
                         * none on the first). */
                        if (v && (v->major != 1 || v->minor != 1)) {
                                size_t line = rawscan_version_line(rs, ev.start_mark.line);

                                if (line)
                                        r = error_set(
                                                reterr, EINVAL,
                                                "yaml: line %zu: found incompatible YAML document",
                                                line);
                                else
                                        r = error_set(reterr, EINVAL,
                                                      "yaml: found incompatible YAML document");
                        }
                        break;
                }
                case YAML_DOCUMENT_END_EVENT:
                        done = true;
                        break;
                case YAML_ALIAS_EVENT: {
                        const char *name = (const char *) ev.data.alias.anchor;
                        struct ynode *target = anchors_get(&y->anchors, name, strlen(name));

                        if (!target) {
                                r = error_set(reterr, EINVAL,
                                              "yaml: unknown anchor '%s' referenced", name);
                                break;
                        }
                        n = node_new(y, YN_ALIAS, &ev, NULL, NULL);
                        n->value = arena_strndup(&y->arena, name, strlen(name));
                        n->len = strlen(name);
                        n->target = target;
                        break;
                }
                case YAML_SCALAR_EVENT:
                        if (ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
                                r = rawscan_quoted(rs, ev.start_mark.index, ev.start_mark.line,
                                                   SIZE_MAX, reterr);
                                if (r < 0)
                                        break;
                        }
                        n = node_new(y, YN_SCALAR, &ev, ev.data.scalar.tag, ev.data.scalar.anchor);
                        n->value = arena_strndup(&y->arena, (const char *) ev.data.scalar.value,
                                                 ev.data.scalar.length);
                        n->len = ev.data.scalar.length;
                        n->implicit = ev.data.scalar.plain_implicit;
                        break;
                case YAML_SEQUENCE_START_EVENT:
                        n = node_new(y, YN_SEQ, &ev, ev.data.sequence_start.tag,
                                     ev.data.sequence_start.anchor);
                        break;
                case YAML_MAPPING_START_EVENT:
                        n = node_new(y, YN_MAP, &ev, ev.data.mapping_start.tag,
                                     ev.data.mapping_start.anchor);
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                        depth--;
                        break;
                }
                if (n && r == 0) {
                        if (++y->nodes > YAML_MAX_NODES)
                                r = too_many_nodes(reterr);
                        else if (depth > 0) {
                                struct ynode *parent = stack[depth - 1];

                                arena_push(&y->arena, &parent->kids, &parent->nkids,
                                           &parent->capkids, n);
                        } else
                                root = n;
                        if (r == 0 && (n->kind == YN_SEQ || n->kind == YN_MAP)) {
                                if (depth == YAML_MAX_DEPTH)
                                        r = too_deep(n->line, reterr);
                                else
                                        stack[depth++] = n;
                        }
                }
                yaml_event_delete(&ev);
                if (r < 0)
                        return r;
        }
        *ret_root = root;
        return 0;
}

/* ---- pass 2: go-yaml v2's decoder into interface{} ---- */

enum gv_kind { GV_NIL, GV_BOOL, GV_INT, GV_UINT, GV_FLOAT, GV_STR, GV_SEQ, GV_MAP };

/* A Go value as go-yaml v2 produces it: nil, bool, int, uint64, float64, string, []interface{}
 * or map[interface{}]interface{} (kept as its assignments, in order: keys and values alternate;
 * the last assignment of a key is the one that counts). */
struct gv {
        enum gv_kind kind;
        bool b;
        int64_t i;
        uint64_t u;
        double f;
        const char *s;
        size_t len;
        void **items;
        size_t n, cap;
};

static struct gv *gv_new(struct y2j *y, enum gv_kind kind)
{
        struct gv *v = arena_alloc(&y->arena, sizeof(*v));

        v->kind = kind;
        return v;
}

static struct gv *gv_str(struct y2j *y, const char *s, size_t len)
{
        struct gv *v = gv_new(y, GV_STR);

        v->s = s;
        v->len = len;
        return v;
}

static void render(struct strbuf *sb, const struct gv *v, bool nested);

/* "!!int" for the core schema's long tags, the tag itself otherwise (go-yaml's shortTag). */
static const char *short_tag(const char *tag, char *buf, size_t size)
{
        if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
                snprintf(buf, size, "!!%s", tag + strlen(TAG_PREFIX));
                return buf;
        }
        return tag;
}

/* Go's strconv.ParseUint(s, base, 64), base 0 (prefixes 0b, 0o, 0x, 0) or 2: 0 on success,
 * -EINVAL on bad syntax, -ERANGE. */
static int go_parse_uint(const char *s, size_t n, unsigned base, uint64_t *ret)
{
        uint64_t v = 0;

        if (n == 0)
                return -EINVAL;
        if (base == 0) {
                char c = n >= 3 && s[0] == '0' ? (char) (s[1] | 0x20) : 0;

                base = 10;
                if (c == 'b' || c == 'o' || c == 'x') {
                        base = c == 'b' ? 2 : c == 'o' ? 8 : 16;
                        s += 2, n -= 2;
                } else if (s[0] == '0') {
                        base = 8;
                        s++, n--;
                }
        }
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                unsigned d;

                if (c >= '0' && c <= '9')
                        d = c - '0';
                else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
                        d = (c | 0x20) - 'a' + 10;
                else
                        return -EINVAL;
                if (d >= base)
                        return -EINVAL;
                /* Go reports a range error only once it meets it, and a later bad digit as
                 * syntax; both are failures here, which is all the callers need. */
                if (v > (UINT64_MAX - d) / base)
                        return -ERANGE;
                v = v * base + d;
        }
        *ret = v;
        return 0;
}

/* Go's strconv.ParseInt(s, base, 64), base 0 or 2. */
static int go_parse_int(const char *s, size_t n, unsigned base, int64_t *ret)
{
        bool neg = false;
        uint64_t u;
        int r;

        if (n == 0)
                return -EINVAL;
        if (s[0] == '+' || s[0] == '-') {
                neg = s[0] == '-';
                s++, n--;
        }
        r = go_parse_uint(s, n, base, &u);
        if (r < 0)
                return r;
        if (!neg && u > (uint64_t) INT64_MAX)
                return -ERANGE;
        if (neg && u > (uint64_t) INT64_MAX + 1)
                return -ERANGE;
        *ret = neg ? (int64_t) (0 - u) : (int64_t) u;
        return 0;
}

/* strtod on a checked decimal text; fails like Go's ParseFloat only on overflow (underflow
 * gives 0 or a subnormal, no error). */
static int decimal_to_double(const char *s, double *ret)
{
        char *end;
        double f;

        errno = 0;
        f = strtod(s, &end);
        if (*end != '\0' || (errno == ERANGE && isinf(f)))
                return -EINVAL;
        *ret = f;
        return 0;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
        size_t i = 0, start;

        if (s[i] == '+' || s[i] == '-')
                i++;
        if (s[i] == '.') {
                i++;
                start = i;
                while (is_digit(s[i]))
                        i++;
                if (i == start)
                        return false;
        } else {
                start = i;
                while (is_digit(s[i]))
                        i++;
                if (i == start)
                        return false;
                if (s[i] == '.') {
                        i++;
                        while (is_digit(s[i]))
                                i++;
                }
        }
        if (s[i] == 'e' || s[i] == 'E') {
                i++;
                if (s[i] == '+' || s[i] == '-')
                        i++;
                start = i;
                while (is_digit(s[i]))
                        i++;
                if (i == start)
                        return false;
        }
        return s[i] == '\0';
}

/* Go's underscoreOK: "_" only between digits (decimal here: no base prefix after a '.'). */
static bool go_underscore_ok(const char *s)
{
        char saw = '^';

        if (*s == '+' || *s == '-')
                s++;
        for (; *s; s++) {
                if (is_digit(*s)) {
                        saw = '0';
                        continue;
                }
                if (*s == '_') {
                        if (saw != '0')
                                return false;
                        saw = '_';
                        continue;
                }
                if (saw == '_')
                        return false;
                saw = '!';
        }
        return saw != '_';
}

/* Go's strconv.ParseFloat(s, 64) for a text starting with '.': ".5", ".5e3", ".5_0". */
static int go_parse_float_dot(const char *s, double *ret)
{
        cleanup_free char *plain = xstrdup(s);
        size_t i = 1, j = 0;
        bool digits = false, underscores = false;

        while (is_digit(s[i]) || s[i] == '_') {
                digits |= is_digit(s[i]);
                underscores |= s[i] == '_';
                i++;
        }
        if (!digits)
                return -EINVAL;
        if (s[i] == 'e' || s[i] == 'E') {
                i++;
                if (s[i] == '+' || s[i] == '-')
                        i++;
                if (!is_digit(s[i]))
                        return -EINVAL;
                while (is_digit(s[i]) || s[i] == '_') {
                        underscores |= s[i] == '_';
                        i++;
                }
        }
        if (s[i] != '\0' || (underscores && !go_underscore_ok(s)))
                return -EINVAL;
        for (i = 0; s[i]; i++)
                if (s[i] != '_')
                        plain[j++] = s[i];
        plain[j] = '\0';
        return decimal_to_double(plain, ret);
}

/* Reads 1 or 2 digits as Go's time.getnum(s, false) does. */
static bool getnum(const char **s, int *ret)
{
        const char *p = *s;

        if (!is_digit(p[0]))
                return false;
        if (!is_digit(p[1])) {
                *ret = p[0] - '0';
                *s = p + 1;
                return true;
        }
        *ret = (p[0] - '0') * 10 + (p[1] - '0');
        *s = p + 2;
        return true;
}

static int days_in(int month, int year)
{
        static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

        return month == 2 && leap ? 29 : days[month - 1];
}

/* go-yaml v2's parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00" (T or t),
 * "2006-1-2 15:4:5.999999999" or "2006-1-2". Zone offsets are range-checked as current Go
 * does (hours ≤ 24, minutes ≤ 60). */
static bool go_parse_timestamp(const char *s)
{
        int year, month, day, hour, min, sec;
        char sep;

        for (int i = 0; i < 4; i++)
                if (!is_digit(s[i]))
                        return false;
        if (s[4] != '-')
                return false;
        year = atoi(s);
        s += 5;
        if (!getnum(&s, &month) || *s++ != '-' || !getnum(&s, &day))
                return false;
        if (month < 1 || month > 12 || day < 1 || day > days_in(month, year))
                return false;
        if (*s == '\0')
                return true;
        sep = *s++;
        if (sep != 'T' && sep != 't' && sep != ' ')
                return false;
        if (!getnum(&s, &hour) || *s++ != ':' || !getnum(&s, &min) || *s++ != ':' ||
            !getnum(&s, &sec))
                return false;
        if (hour >= 24 || min >= 60 || sec >= 60)
                return false;
        if ((s[0] == '.' || s[0] == ',') && is_digit(s[1])) {
                s++;
                while (is_digit(*s))
                        s++;
        }
        if (sep == ' ')
                return *s == '\0';
        if (*s == 'Z')
                return s[1] == '\0';
        if ((s[0] != '+' && s[0] != '-') || !is_digit(s[1]) || !is_digit(s[2]) || s[3] != ':' ||
            !is_digit(s[4]) || !is_digit(s[5]) || s[6] != '\0')
                return false;
        return (s[1] - '0') * 10 + (s[2] - '0') <= 24 && (s[4] - '0') * 10 + (s[5] - '0') <= 60;
}

enum rtag { R_NULL, R_BOOL, R_INT, R_FLOAT, R_STR, R_TIMESTAMP, R_MERGE };

static const char *const rtag_long[] = {
        [R_NULL] = TAG_NULL,   [R_BOOL] = TAG_BOOL, [R_INT] = TAG_INT,
        [R_FLOAT] = TAG_FLOAT, [R_STR] = TAG_STR,   [R_TIMESTAMP] = TAG_TIMESTAMP,
        [R_MERGE] = TAG_MERGE,
};

/* go-yaml v2's resolveMap. */
static const struct {
        const char *text;
        enum rtag tag;
        int value; /* bool; for floats: 0 NaN, 1 +Inf, -1 -Inf */
} resolve_map[] = {
        { "y", R_BOOL, 1 },       { "Y", R_BOOL, 1 },       { "yes", R_BOOL, 1 },
        { "Yes", R_BOOL, 1 },     { "YES", R_BOOL, 1 },     { "true", R_BOOL, 1 },
        { "True", R_BOOL, 1 },    { "TRUE", R_BOOL, 1 },    { "on", R_BOOL, 1 },
        { "On", R_BOOL, 1 },      { "ON", R_BOOL, 1 },      { "n", R_BOOL, 0 },
        { "N", R_BOOL, 0 },       { "no", R_BOOL, 0 },      { "No", R_BOOL, 0 },
        { "NO", R_BOOL, 0 },      { "false", R_BOOL, 0 },   { "False", R_BOOL, 0 },
        { "FALSE", R_BOOL, 0 },   { "off", R_BOOL, 0 },     { "Off", R_BOOL, 0 },
        { "OFF", R_BOOL, 0 },     { "", R_NULL, 0 },        { "~", R_NULL, 0 },
        { "null", R_NULL, 0 },    { "Null", R_NULL, 0 },    { "NULL", R_NULL, 0 },
        { ".nan", R_FLOAT, 0 },   { ".NaN", R_FLOAT, 0 },   { ".NAN", R_FLOAT, 0 },
        { ".inf", R_FLOAT, 1 },   { ".Inf", R_FLOAT, 1 },   { ".INF", R_FLOAT, 1 },
        { "+.inf", R_FLOAT, 1 },  { "+.Inf", R_FLOAT, 1 },  { "+.INF", R_FLOAT, 1 },
        { "-.inf", R_FLOAT, -1 }, { "-.Inf", R_FLOAT, -1 }, { "-.INF", R_FLOAT, -1 },
        { "<<", R_MERGE, 0 },
};

static char resolve_hint(unsigned char c)
{
        if (c == '+' || c == '-')
                return 'S';
        if (is_digit((char) c))
                return 'D';
        if (c && strchr("yYnNtTfFoO~", c))
                return 'M';
        return c == '.' ? '.' : 0;
}

/* go-yaml v2's resolve() for the tags it resolves (none, !!str, !!bool, !!int, !!float, !!null,
 * !!timestamp): the resolved tag and value of text s. */
static int resolve_untyped(struct y2j *y, const char *tag, const char *s, size_t len,
                           enum rtag *ret_tag, struct gv **ret)
{
        char hint = len ? resolve_hint((unsigned char) s[0]) : 'N';
        struct gv *v;

        if (hint == 0 || streq(tag, TAG_STR) || strlen(s) != len)
                goto string;
        for (size_t k = 0; k < ARRAY_SIZE(resolve_map); k++) {
                if (!streq(resolve_map[k].text, s))
                        continue;
                *ret_tag = resolve_map[k].tag;
                switch (resolve_map[k].tag) {
                case R_BOOL:
                        v = gv_new(y, GV_BOOL);
                        v->b = resolve_map[k].value;
                        break;
                case R_FLOAT:
                        v = gv_new(y, GV_FLOAT);
                        v->f = resolve_map[k].value == 0  ? NAN
                               : resolve_map[k].value > 0 ? INFINITY
                                                          : -INFINITY;
                        break;
                case R_NULL:
                        v = gv_new(y, GV_NIL);
                        break;
                default:
                        v = gv_str(y, s, len);
                        break;
                }
                *ret = v;
                return 0;
        }
        if (hint == '.') {
                double f;

                if (go_parse_float_dot(s, &f) == 0) {
                        *ret_tag = R_FLOAT;
                        *ret = v = gv_new(y, GV_FLOAT);
                        v->f = f;
                        return 0;
                }
        } else if (hint == 'D' || hint == 'S') {
                cleanup_free char *plain = xmalloc(len + 1);
                size_t n = 0;
                int64_t i;
                uint64_t u;
                double f;

                /* K8S: only untagged or !!timestamp text is tried as a timestamp; go-yaml then
                 * hands interface{} the original text. */
                if ((streq(tag, "") || streq(tag, TAG_TIMESTAMP)) && go_parse_timestamp(s)) {
                        *ret_tag = R_TIMESTAMP;
                        *ret = gv_str(y, s, len);
                        return 0;
                }
                for (size_t k = 0; k < len; k++)
                        if (s[k] != '_')
                                plain[n++] = s[k];
                plain[n] = '\0';
                if (go_parse_int(plain, n, 0, &i) == 0) {
                        *ret_tag = R_INT;
                        *ret = v = gv_new(y, GV_INT);
                        v->i = i;
                        return 0;
                }
                if (go_parse_uint(plain, n, 0, &u) == 0) {
                        *ret_tag = R_INT;
                        *ret = v = gv_new(y, GV_UINT);
                        v->u = u;
                        return 0;
                }
                if (yaml_style_float(plain) && decimal_to_double(plain, &f) == 0) {
                        *ret_tag = R_FLOAT;
                        *ret = v = gv_new(y, GV_FLOAT);
                        v->f = f;
                        return 0;
                }
                /* K8S: go-yaml then reads "0b" + a signed binary number, and "-0b" + binary */
                if (n > 2 && strncmp(plain, "0b", 2) == 0 &&
                    (go_parse_int(plain + 2, n - 2, 2, &i) == 0 ||
                     go_parse_uint(plain + 2, n - 2, 2, &u) == 0)) {
                        *ret_tag = R_INT;
                        if (go_parse_int(plain + 2, n - 2, 2, &i) == 0) {
                                *ret = v = gv_new(y, GV_INT);
                                v->i = i;
                        } else {
                                *ret = v = gv_new(y, GV_UINT);
                                v->u = u;
                        }
                        return 0;
                }
                if (n > 3 && strncmp(plain, "-0b", 3) == 0) {
                        plain[2] = '-'; /* "-" + plain[3:] */
                        if (go_parse_int(plain + 2, n - 2, 2, &i) == 0) {
                                *ret_tag = R_INT;
                                *ret = v = gv_new(y, GV_INT);
                                v->i = i;
                                return 0;
                        }
                }
        }
string:
        *ret_tag = R_STR;
        *ret = gv_str(y, s, len);
        return 0;
}

static bool resolvable(const char *tag)
{
        return streq(tag, "") || streq(tag, TAG_STR) || streq(tag, TAG_BOOL) ||
               streq(tag, TAG_INT) || streq(tag, TAG_FLOAT) || streq(tag, TAG_NULL) ||
               streq(tag, TAG_TIMESTAMP);
}

/* go-yaml v2's resolve(tag, s) with its deferred check that the text is of the asked type. */
static int resolve(struct y2j *y, const char *tag, const char *s, size_t len, struct gv **ret,
                   struct error **reterr)
{
        char b1[64], b2[64];
        enum rtag rtag;
        struct gv *v;
        int r;

        r = resolve_untyped(y, tag, s, len, &rtag, &v);
        if (r < 0)
                return r;
        if (streq(tag, "") || streq(tag, rtag_long[rtag]) || streq(tag, TAG_STR)) {
                *ret = v;
                return 0;
        }
        if (streq(tag, TAG_FLOAT) && rtag == R_INT && v->kind == GV_INT) {
                v->kind = GV_FLOAT;
                v->f = (double) v->i;
                *ret = v;
                return 0;
        }
        return error_set(reterr, EINVAL, "yaml: cannot decode %s `%s` as a %s",
                         short_tag(rtag_long[rtag], b1, sizeof(b1)), s,
                         short_tag(tag, b2, sizeof(b2)));
}

/* K8S: a !!binary scalar is Go's base64.StdEncoding.DecodeString of its text (base/base64). */
static int binary_decode(struct y2j *y, const char *s, size_t len, struct gv **ret)
{
        cleanup_free char *raw = NULL;
        size_t n;
        char *out;
        int r;

        r = base64_decode(s, len, &raw, &n, NULL);
        if (r < 0)
                return r;
        out = arena_alloc(&y->arena, n + 1);
        memcpy(out, raw, n);
        *ret = gv_str(y, out, n);
        return 0;
}

static int dec_value(struct y2j *y, struct ynode *n, struct gv **ret, struct error **reterr);

static int dec_scalar(struct y2j *y, const struct ynode *n, struct gv **ret, struct error **reterr)
{
        const char *tag = n->tag ? n->tag : "";
        int r;

        /* K8S: quoted and block scalars without a tag are strings. */
        if (!n->tag && !n->implicit) {
                *ret = gv_str(y, n->value, n->len);
                return 0;
        }
        if (streq(tag, TAG_BINARY)) {
                r = binary_decode(y, n->value, n->len, ret);
                if (r < 0)
                        return error_set(reterr, EINVAL,
                                         "yaml: !!binary value contains invalid base64 data");
                return 0;
        }
        if (!resolvable(tag)) {
                *ret = gv_str(y, n->value, n->len);
                return 0;
        }
        return resolve(y, tag, n->value, n->len, ret, reterr);
}

/* go-yaml's allowedAliasRatio. */
static double allowed_alias_ratio(long decode_count)
{
        const double low = 400000, high = 4000000;

        if (decode_count <= low)
                return 0.99;
        if (decode_count >= high)
                return 0.10;
        return 0.99 - 0.89 * ((double) (decode_count - 400000) / (high - low));
}

/* The prologue of go-yaml's d.unmarshal: count, then the alias ratio check (K8S: go-yaml v2.2.4
 * against billion laughs). */
static int dec_enter(struct y2j *y, struct error **reterr)
{
        y->decode_count++;
        if (y->alias_depth > 0)
                y->alias_count++;
        if (y->alias_count > 100 && y->decode_count > 1000 &&
            (double) y->alias_count / (double) y->decode_count >
                    allowed_alias_ratio(y->decode_count))
                return error_set(reterr, EINVAL, "yaml: document contains excessive aliasing");
        if (y->decode_count > YAML_MAX_NODES)
                return too_many_nodes(reterr);
        if (y->frames >= YAML_MAX_RECURSION)
                return error_set(reterr, EINVAL, "yaml: document contains excessive aliasing");
        y->frames++;
        return 0;
}

static int dec_map_fill(struct y2j *y, struct ynode *n, struct gv *map, struct error **reterr);

/* d.unmarshal into a map that already exists: the value of a merge key. */
static int dec_into_map(struct y2j *y, struct ynode *n, struct gv *map, struct error **reterr)
{
        int r = dec_enter(y, reterr);

        if (r < 0)
                return r;
        if (n->kind == YN_ALIAS) {
                if (n->expanding)
                        r = error_set(reterr, EINVAL, "yaml: anchor '%s' value contains itself",
                                      n->value);
                else {
                        n->expanding = true;
                        y->alias_depth++;
                        r = dec_into_map(y, n->target, map, reterr);
                        y->alias_depth--;
                        n->expanding = false;
                }
        } else
                r = dec_map_fill(y, n, map, reterr);
        y->frames--;
        return r;
}

static int want_map(struct error **reterr)
{
        return error_set(reterr, EINVAL,
                         "yaml: map merge requires map or sequence of maps as the value");
}

static bool is_map_or_alias_of_map(const struct ynode *n)
{
        return n->kind == YN_MAP || (n->kind == YN_ALIAS && n->target->kind == YN_MAP);
}

/* go-yaml v2's d.merge. */
static int dec_merge(struct y2j *y, struct ynode *n, struct gv *map, struct error **reterr)
{
        int r;

        switch (n->kind) {
        case YN_MAP:
        case YN_ALIAS:
                if (!is_map_or_alias_of_map(n))
                        return want_map(reterr);
                return dec_into_map(y, n, map, reterr);
        case YN_SEQ:
                /* K8S: backwards, so that earlier maps take precedence. */
                for (size_t i = n->nkids; i-- > 0;) {
                        struct ynode *kid = n->kids[i];

                        if (!is_map_or_alias_of_map(kid))
                                return want_map(reterr);
                        r = dec_into_map(y, kid, map, reterr);
                        if (r < 0)
                                return r;
                }
                return 0;
        default:
                return want_map(reterr);
        }
}

static bool is_merge(const struct ynode *k)
{
        return k->kind == YN_SCALAR && streq(k->value, "<<") && k->len == 2 &&
               (k->implicit || (k->tag && streq(k->tag, TAG_MERGE)));
}

static int dec_map_fill(struct y2j *y, struct ynode *n, struct gv *map, struct error **reterr)
{
        struct gv *k, *v;
        int r;

        for (size_t i = 0; i + 1 < n->nkids; i += 2) {
                if (is_merge(n->kids[i])) {
                        r = dec_merge(y, n->kids[i + 1], map, reterr);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = dec_value(y, n->kids[i], &k, reterr);
                if (r < 0)
                        return r;
                if (k->kind == GV_SEQ || k->kind == GV_MAP) {
                        struct strbuf sb;

                        strbuf_init(&sb);
                        render(&sb, k, false);
                        r = error_set(reterr, EINVAL, "yaml: invalid map key: %s", sb.buf);
                        strbuf_release(&sb);
                        return r;
                }
                r = dec_value(y, n->kids[i + 1], &v, reterr);
                if (r < 0)
                        return r;
                arena_push(&y->arena, &map->items, &map->n, &map->cap, k);
                arena_push(&y->arena, &map->items, &map->n, &map->cap, v);
        }
        return 0;
}

/* d.unmarshal into a fresh interface{}. */
static int dec_value(struct y2j *y, struct ynode *n, struct gv **ret, struct error **reterr)
{
        struct gv *v = NULL;
        int r = dec_enter(y, reterr);

        if (r < 0)
                return r;
        switch (n->kind) {
        case YN_ALIAS:
                if (n->expanding) {
                        r = error_set(reterr, EINVAL, "yaml: anchor '%s' value contains itself",
                                      n->value);
                        break;
                }
                n->expanding = true;
                y->alias_depth++;
                r = dec_value(y, n->target, &v, reterr);
                y->alias_depth--;
                n->expanding = false;
                break;
        case YN_SCALAR:
                r = dec_scalar(y, n, &v, reterr);
                break;
        case YN_SEQ:
        case YN_MAP:
                if (y->depth >= YAML_MAX_DEPTH) {
                        r = too_deep(n->line, reterr);
                        break;
                }
                y->depth++;
                if (n->kind == YN_MAP) {
                        v = gv_new(y, GV_MAP);
                        r = dec_map_fill(y, n, v, reterr);
                } else {
                        v = gv_new(y, GV_SEQ);
                        for (size_t i = 0; i < n->nkids && r == 0; i++) {
                                struct gv *item;

                                r = dec_value(y, n->kids[i], &item, reterr);
                                if (r == 0)
                                        arena_push(&y->arena, &v->items, &v->n, &v->cap, item);
                        }
                }
                y->depth--;
                break;
        }
        y->frames--;
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

/* ---- Go formatting, for keys and messages ---- */

/* The shortest decimal digits of finite f (as float when bits is 32) that read back as the same
 * value, as Go's strconv finds them: f = 0.DIGITS × 10^(exp + 1). Returns the digit count. */
static int go_shortest(double f, int bits, char digits[32], int *ret_exp)
{
        char buf[64];
        const char *e;
        int nd = 0;

        for (int p = 1; p <= 17; p++) {
                snprintf(buf, sizeof(buf), "%.*e", p - 1, f);
                if (bits == 32 ? strtof(buf, NULL) == (float) f : strtod(buf, NULL) == f)
                        break;
        }
        /* buf is [-]d[.ddd]e±XX */
        for (const char *c = buf; *c && *c != 'e'; c++)
                if (is_digit(*c))
                        digits[nd++] = *c;
        while (nd > 1 && digits[nd - 1] == '0')
                nd--;
        digits[nd] = '\0';
        e = strchr(buf, 'e');
        *ret_exp = atoi(e + 1);
        return nd;
}

/* Go's strconv.FormatFloat(f, 'g', -1, bits), bits 32 or 64: shortest digits, %e form ("1e+06",
 * "1e-05") when the exponent is < -4 or >= 6, else %f form. */
static void go_format_g(struct strbuf *sb, double f, int bits)
{
        char digits[32];
        int exp, nd;

        if (bits == 32)
                f = (float) f;
        if (isnan(f)) {
                strbuf_addstr(sb, "NaN");
                return;
        }
        if (isinf(f)) {
                strbuf_addstr(sb, f > 0 ? "+Inf" : "-Inf");
                return;
        }
        nd = go_shortest(f, bits, digits, &exp);
        if (signbit(f))
                strbuf_addch(sb, '-');
        if (exp < -4 || exp >= 6) {
                strbuf_addch(sb, digits[0]);
                if (nd > 1) {
                        strbuf_addch(sb, '.');
                        strbuf_addstr(sb, digits + 1);
                }
                strbuf_addf(sb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
                return;
        }
        if (exp < 0) {
                strbuf_addstr(sb, "0.");
                for (int i = -1; i > exp; i--)
                        strbuf_addch(sb, '0');
                strbuf_addstr(sb, digits);
                return;
        }
        for (int i = 0; i <= exp || i < nd; i++) {
                if (i == exp + 1)
                        strbuf_addch(sb, '.');
                strbuf_addch(sb, i < nd ? digits[i] : '0');
        }
}

/* Orders map keys for %#v: nil first, then by type, then by value. Go orders types by their
 * place in its binary, which upstream's shows as by name: bool, float64, int, string, uint64. */
static int gv_type_rank(enum gv_kind kind)
{
        static const int rank[] = { [GV_NIL] = 0, [GV_BOOL] = 1, [GV_FLOAT] = 2, [GV_INT] = 3,
                                    [GV_STR] = 4, [GV_UINT] = 5, [GV_SEQ] = 6,   [GV_MAP] = 7 };

        return rank[kind];
}

static int gv_key_cmp(const struct gv *a, const struct gv *b)
{
        if (a->kind != b->kind)
                return gv_type_rank(a->kind) < gv_type_rank(b->kind) ? -1 : 1;
        switch (a->kind) {
        case GV_BOOL:
                return (int) a->b - (int) b->b;
        case GV_INT:
                return a->i < b->i ? -1 : a->i > b->i;
        case GV_UINT:
                return a->u < b->u ? -1 : a->u > b->u;
        case GV_FLOAT:
                if (isnan(a->f) || isnan(b->f))
                        return isnan(a->f) && !isnan(b->f) ? -1 : !isnan(a->f) && isnan(b->f);
                return a->f < b->f ? -1 : a->f > b->f;
        case GV_STR: {
                int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

                return c ? c : a->len < b->len ? -1 : a->len > b->len;
        }
        default:
                return 0;
        }
}

struct pair_ref {
        const struct gv *k, *v;
        size_t order;
};

static int pair_cmp(const void *pa, const void *pb)
{
        const struct pair_ref *a = pa, *b = pb;
        int c = gv_key_cmp(a->k, b->k);

        if (c)
                return c;
        return a->order < b->order ? -1 : a->order > b->order;
}

static bool gv_key_equal(const struct gv *a, const struct gv *b)
{
        if (a->kind == GV_FLOAT && b->kind == GV_FLOAT)
                return a->f == b->f; /* NaN never equals: Go keeps every NaN key */
        return gv_key_cmp(a, b) == 0;
}

/* Go's %#v of an interface{} value go-yaml produced (%+#v prints the same for these types). */
static void render(struct strbuf *sb, const struct gv *v, bool nested)
{
        if (sb->len > YAML_MAX_RENDER) {
                strbuf_addstr(sb, "...");
                return;
        }
        switch (v->kind) {
        case GV_NIL:
                strbuf_addstr(sb, nested ? "interface {}(nil)" : "<nil>");
                break;
        case GV_BOOL:
                strbuf_addstr(sb, v->b ? "true" : "false");
                break;
        case GV_INT:
                strbuf_addf(sb, "%lld", (long long) v->i);
                break;
        case GV_UINT:
                strbuf_addf(sb, "0x%llx", (unsigned long long) v->u);
                break;
        case GV_FLOAT:
                go_format_g(sb, v->f, 64);
                break;
        case GV_STR:
                utf8_go_quote(sb, v->s, v->len);
                break;
        case GV_SEQ:
                strbuf_addstr(sb, "[]interface {}{");
                for (size_t i = 0; i < v->n && sb->len <= YAML_MAX_RENDER; i++) {
                        if (i)
                                strbuf_addstr(sb, ", ");
                        render(sb, v->items[i], true);
                }
                strbuf_addch(sb, '}');
                break;
        case GV_MAP: {
                size_t n = v->n / 2, out = 0;
                cleanup_free struct pair_ref *pairs = xcalloc(n ? n : 1, sizeof(*pairs));

                for (size_t i = 0; i < n; i++)
                        pairs[i] = (struct pair_ref){ v->items[2 * i], v->items[2 * i + 1], i };
                qsort(pairs, n, sizeof(*pairs), pair_cmp);
                strbuf_addstr(sb, "map[interface {}]interface {}{");
                for (size_t i = 0; i < n && sb->len <= YAML_MAX_RENDER; i++) {
                        /* a key assigned again keeps only its last value */
                        if (i + 1 < n && gv_key_equal(pairs[i].k, pairs[i + 1].k))
                                continue;
                        if (out++)
                                strbuf_addstr(sb, ", ");
                        render(sb, pairs[i].k, true);
                        strbuf_addch(sb, ':');
                        render(sb, pairs[i].v, true);
                }
                strbuf_addch(sb, '}');
                break;
        }
        }
}

/* ---- pass 3: Go values → JSON, as convertToJSONableObject and json.Marshal ---- */

struct conv {
        char *marshal_error;   /* first NaN/Inf: reported only when no key fails */
        struct strbuf scratch; /* for strings that need repair */
};

static json_t *must(json_t *v)
{
        if (!v)
                abort(); /* jansson allocation failure: see base/alloc.h */
        return v;
}

/* Go's json.Marshal writes strings as valid UTF-8, each bad byte becoming U+FFFD. */
static const char *valid_utf8(const char *s, size_t n, struct strbuf *scratch, size_t *ret_len)
{
        size_t i = 0, len;

        while (i < n && utf8_decode(s + i, n - i, &len) >= 0)
                i += len;
        *ret_len = n;
        if (i == n)
                return s;
        strbuf_reset(scratch);
        strbuf_add(scratch, s, i);
        while (i < n) {
                if (utf8_decode(s + i, n - i, &len) < 0)
                        strbuf_addstr(scratch, "\xEF\xBF\xBD");
                else
                        strbuf_add(scratch, s + i, len);
                i += len;
        }
        *ret_len = scratch->len;
        return scratch->buf;
}

/* K8S: json.Marshal writes an integral float64 below 1e21 as its shortest digits padded with
 * zeros ("-9223372036854776000" for -2^63), and Kubernetes' JSON decoding reads that literal back
 * as an int64 when it fits, else as a float64. Other floats stay reals. */
static json_t *number_json(double f)
{
        char digits[32], text[64];
        int exp, nd, n = 0;
        long long i;
        char *end;

        if (f != trunc(f) || fabs(f) >= 1e21)
                return must(json_real(f));
        nd = go_shortest(f, 64, digits, &exp);
        if (f < 0)
                text[n++] = '-';
        for (int k = 0; k <= exp || k < nd; k++)
                text[n++] = k < nd ? digits[k] : '0';
        text[n] = '\0';
        errno = 0;
        i = strtoll(text, &end, 10);
        if (errno == ERANGE)
                return must(json_real(f));
        return must(json_integer(i));
}

static int conv_value(struct conv *c, const struct gv *v, json_t **ret, struct error **reterr);

static int conv_key(const struct gv *k, const struct gv *v, struct strbuf *key,
                    struct error **reterr)
{
        strbuf_reset(key);
        switch (k->kind) {
        case GV_STR:
                strbuf_add(key, k->s, k->len);
                return 0;
        case GV_INT:
                strbuf_addf(key, "%lld", (long long) k->i);
                return 0;
        case GV_BOOL:
                strbuf_addstr(key, k->b ? "true" : "false");
                return 0;
        case GV_FLOAT:
                /* K8S: YAMLToJSON formats float keys as float32, Inf and NaN as YAML does. */
                go_format_g(key, k->f, 32);
                if (streq(key->buf, "+Inf") || streq(key->buf, "-Inf") || streq(key->buf, "NaN")) {
                        const char *yaml_word = key->buf[0] == '+'   ? ".inf"
                                                : key->buf[0] == '-' ? "-.inf"
                                                                     : ".nan";

                        strbuf_reset(key);
                        strbuf_addstr(key, yaml_word);
                }
                return 0;
        default: {
                struct strbuf sb;
                int r;

                strbuf_init(&sb);
                strbuf_addf(&sb, "unsupported map key of type: %s, key: ",
                            k->kind == GV_UINT ? "uint64" : "%!s(<nil>)");
                render(&sb, k, false);
                strbuf_addstr(&sb, ", value: ");
                render(&sb, v, false);
                r = error_set(reterr, EINVAL, "%s", sb.buf);
                strbuf_release(&sb);
                return r;
        }
        }
}

static int conv_value(struct conv *c, const struct gv *v, json_t **ret, struct error **reterr)
{
        const char *s;
        size_t len;
        json_t *out;
        int r = 0;

        switch (v->kind) {
        case GV_NIL:
                *ret = json_null();
                return 0;
        case GV_BOOL:
                *ret = json_boolean(v->b);
                return 0;
        case GV_INT:
                *ret = must(json_integer(v->i));
                return 0;
        case GV_UINT:
                /* beyond int64: Kubernetes' unstructured decoding makes it a float64 */
                *ret = must(json_real((double) v->u));
                return 0;
        case GV_FLOAT:
                if (isnan(v->f) || isinf(v->f)) {
                        if (!c->marshal_error)
                                c->marshal_error = xasprintf("json: unsupported value: %s",
                                                             isnan(v->f) ? "NaN"
                                                             : v->f > 0  ? "+Inf"
                                                                         : "-Inf");
                        *ret = json_null();
                        return 0;
                }
                *ret = number_json(v->f);
                return 0;
        case GV_STR:
                s = valid_utf8(v->s, v->len, &c->scratch, &len);
                *ret = must(json_stringn_nocheck(s, len));
                return 0;
        case GV_SEQ:
                out = must(json_array());
                for (size_t i = 0; i < v->n && r == 0; i++) {
                        json_t *item;

                        r = conv_value(c, v->items[i], &item, reterr);
                        if (r == 0 && json_array_append_new(out, item) < 0)
                                abort();
                }
                break;
        case GV_MAP: {
                struct strbuf key;

                strbuf_init(&key);
                out = must(json_object());
                for (size_t i = 0; i + 1 < v->n && r == 0; i += 2) {
                        json_t *item;

                        r = conv_key(v->items[i], v->items[i + 1], &key, reterr);
                        if (r == 0)
                                r = conv_value(c, v->items[i + 1], &item, reterr);
                        if (r < 0)
                                break;
                        s = valid_utf8(key.buf, key.len, &c->scratch, &len);
                        /* Go takes it, but every object key here is a C string downstream */
                        if (memchr(s, '\0', len)) {
                                json_decref(item);
                                r = error_set(reterr, EINVAL,
                                              "yaml: a map key contains a NUL character, which "
                                              "flexlet does not accept in field names");
                                break;
                        }
                        /* a repeated key: the later assignment wins, as in the Go map */
                        if (json_object_setn_new_nocheck(out, s, len, item) < 0)
                                abort();
                }
                strbuf_release(&key);
                break;
        }
        default:
                abort();
        }
        if (r < 0) {
                json_decref(out);
                return r;
        }
        *ret = out;
        return 0;
}

int yaml_to_json(const char *data, size_t len, json_t **ret, struct error **reterr)
{
        struct y2j y = { 0 };
        struct conv c = { 0 };
        struct ynode *root = NULL;
        struct gv *value = NULL;
        yaml_parser_t parser;
        struct rawscan rs;
        json_t *out = NULL;
        int r;

        if (len > YAML_MAX_INPUT_BYTES)
                return error_set(reterr, E2BIG, "Request entity too large: limit is %u",
                                 YAML_MAX_INPUT_BYTES);
        if (!yaml_parser_initialize(&parser))
                return error_set(reterr, ENOMEM, "yaml: out of memory");
        yaml_parser_set_input_string(&parser, (const unsigned char *) data, len);
        rawscan_init(&rs, data, len);
        r = parse_document(&y, &parser, &rs, &root, reterr);
        yaml_parser_delete(&parser);
        if (r < 0)
                goto out;
        if (root) {
                y.decode_count = 1; /* go-yaml counts the document node first */
                r = dec_value(&y, root, &value, reterr);
                if (r < 0)
                        goto out;
                strbuf_init(&c.scratch);
                r = conv_value(&c, value, &out, reterr);
                strbuf_release(&c.scratch);
                if (r < 0)
                        goto out;
        } else
                out = json_null();
        if (c.marshal_error) {
                r = error_set(reterr, EINVAL, "%s", c.marshal_error);
                json_decref(out);
                goto out;
        }
        *ret = out;
        r = 0;
out:
        free(c.marshal_error);
        arena_release(&y.arena);
        return r;
}
