/* selector.c: label and field selectors as apimachinery v0.33 parses and matches them
 * (pkg/labels/selector.go, pkg/fields/selector.go, util/validation IsQualifiedName and
 * IsValidLabelValue). The label lexer and parser follow upstream token by token so that error
 * texts and odd corners ("in" as a value, "(,)" sets, "!k=v") come out the same. Which fields a
 * kind supports is the caller's knowledge, passed in; this file knows no resource. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/utf8.h"

/* ---- shared helpers ---------------------------------------------------------------------- */

/* The string a selector compares for a JSON value: strings as they are, numbers as
 * json_scalar_text renders them, booleans as "true"/"false", anything else (null, object,
 * array) as "". buf holds the rendering of a number. */
static const char *scalar_string(const json_t *v, char buf[static JSON_NUMBER_TEXT_MAX])
{
        const char *s = json_scalar_text(v, buf);

        if (s)
                return s;
        if (json_is_true(v))
                return "true";
        if (json_is_false(v))
                return "false";
        return "";
}

/* Go's %q (strconv.Quote), which upstream uses for bad values and field labels. Selector text
 * arrives raw from the query string, so control characters and invalid UTF-8 must come out
 * escaped as upstream prints them ("\v", "\x01", "\xff"); field_value_quote only escapes '"'
 * and '\'. Caller frees. */
static char *quote_go(const char *s)
{
        struct strbuf sb;

        strbuf_init(&sb);
        utf8_go_quote(&sb, s, strlen(s));
        return strbuf_detach(&sb);
}

static int cmp_strp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* ---- label key and value validation (util/validation) ------------------------------------ */

#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_ERR_MSG                                                                     \
 "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with " \
 "an alphanumeric character"
#define QNAME_EXAMPLES "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
#define QNAME_REGEX_ERR \
 QNAME_ERR_MSG " " QNAME_EXAMPLES "regex used for validation is '" QNAME_FMT "')"
#define LABEL_VALUE_REGEX_ERR                                                             \
 "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
 "'my_value',  or '12345', regex used for validation is '(" QNAME_FMT ")?')"
#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_REGEX_ERR                                                        \
 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
 "regex used for validation is '" DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*')"

#define QNAME_MAX_LENGTH       63
#define LABEL_VALUE_MAX_LENGTH 63
#define DNS1123_SUBDOMAIN_MAX  253

static bool is_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ over s[0..n). */
static bool matches_qualified_name(const char *s, size_t n)
{
        if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
                        return false;
        return true;
}

static bool is_lower_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ over s[0..n). */
static bool matches_dns1123_subdomain(const char *s, size_t n)
{
        size_t start = 0;

        for (size_t i = 0; i <= n; i++) {
                if (i < n && s[i] != '.')
                        continue;
                if (i == start || !is_lower_alnum(s[start]) || !is_lower_alnum(s[i - 1]))
                        return false;
                for (size_t j = start + 1; j + 1 < i; j++)
                        if (!is_lower_alnum(s[j]) && s[j] != '-')
                                return false;
                start = i + 1;
        }
        return true;
}

static void add_msg(struct strbuf *sb, const char *prefix, const char *msg)
{
        if (sb->len)
                strbuf_addstr(sb, "; ");
        strbuf_addstr(sb, prefix);
        strbuf_addstr(sb, msg);
}

/* K8S: validation.IsQualifiedName; the messages joined by "; " as validateLabelKey does, or NULL
 * when key is valid. Caller frees. */
static char *qualified_name_errors(const char *key)
{
        const char *slash = strchr(key, '/');
        const char *name = key;
        struct strbuf sb;

        strbuf_init(&sb);
        if (slash && strchr(slash + 1, '/')) {
                strbuf_addstr(&sb, "a qualified name " QNAME_REGEX_ERR
                                   " with an optional DNS subdomain prefix and '/' (e.g. "
                                   "'example.com/MyName')");
                return strbuf_detach(&sb);
        }
        if (slash) {
                size_t plen = (size_t) (slash - key);
                if (plen == 0)
                        add_msg(&sb, "prefix part ", "must be non-empty");
                else {
                        if (plen > DNS1123_SUBDOMAIN_MAX)
                                add_msg(&sb, "prefix part ", "must be no more than 253 characters");
                        if (!matches_dns1123_subdomain(key, plen))
                                add_msg(&sb, "prefix part ", DNS1123_SUBDOMAIN_REGEX_ERR);
                }
                name = slash + 1;
        }
        if (!*name)
                add_msg(&sb, "name part ", "must be non-empty");
        else if (strlen(name) > QNAME_MAX_LENGTH)
                add_msg(&sb, "name part ", "must be no more than 63 characters");
        if (!matches_qualified_name(name, strlen(name)))
                add_msg(&sb, "name part ", QNAME_REGEX_ERR);
        if (!sb.len) {
                strbuf_release(&sb);
                return NULL;
        }
        return strbuf_detach(&sb);
}

/* K8S: validation.IsValidLabelValue, joined by "; ", or NULL when valid. Caller frees. */
static char *label_value_errors(const char *v)
{
        size_t n = strlen(v);
        struct strbuf sb;

        strbuf_init(&sb);
        if (n > LABEL_VALUE_MAX_LENGTH)
                add_msg(&sb, "", "must be no more than 63 characters");
        if (n > 0 && !matches_qualified_name(v, n))
                add_msg(&sb, "", LABEL_VALUE_REGEX_ERR);
        if (!sb.len) {
                strbuf_release(&sb);
                return NULL;
        }
        return strbuf_detach(&sb);
}

/* K8S: strconv.ParseInt(s, 10, 64): optional sign, decimal digits only, int64 range. */
static bool parse_int64(const char *s, int64_t *ret)
{
        bool neg = false;
        uint64_t v = 0, limit;

        if (*s == '+' || *s == '-')
                neg = *s++ == '-';
        if (!*s)
                return false;
        limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return false;
                if (v > (limit - (uint64_t) (*s - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *ret = neg ? (int64_t) (0 - v) : (int64_t) v;
        return true;
}

/* ---- label selectors --------------------------------------------------------------------- */

enum label_op {
        LABEL_OP_IN,
        LABEL_OP_NOT_IN,
        LABEL_OP_EQUALS,
        LABEL_OP_DOUBLE_EQUALS,
        LABEL_OP_NOT_EQUALS,
        LABEL_OP_GREATER_THAN,
        LABEL_OP_LESS_THAN,
        LABEL_OP_EXISTS,
        LABEL_OP_DOES_NOT_EXIST,
};

struct label_requirement {
        char *key;
        enum label_op op;
        char **values; /* sorted, unique (upstream's sets.String.List()) */
        size_t n_values;
        size_t order; /* position in the input: keeps the sort by key stable */
};

struct label_selector {
        struct label_requirement *reqs;
        size_t n;
        size_t alloc;
};

static void requirement_release(struct label_requirement *r)
{
        for (size_t i = 0; i < r->n_values; i++)
                free(r->values[i]);
        free(r->values);
        free(r->key);
}

struct label_selector *label_selector_free(struct label_selector *sel)
{
        if (!sel)
                return NULL;
        for (size_t i = 0; i < sel->n; i++)
                requirement_release(&sel->reqs[i]);
        free(sel->reqs);
        free(sel);
        return NULL;
}

/* Tokens of upstream's lexer. */
enum token {
        TOK_END,
        TOK_CLOSE_PAR,
        TOK_COMMA,
        TOK_NOT,
        TOK_DOUBLE_EQUALS,
        TOK_EQUALS,
        TOK_GREATER_THAN,
        TOK_IDENTIFIER,
        TOK_IN,
        TOK_LESS_THAN,
        TOK_NOT_EQUALS,
        TOK_NOT_IN,
        TOK_OPEN_PAR,
};

struct item {
        enum token tok;
        char *lit;
};

struct parser {
        struct item *items; /* the whole input, ending with one TOK_END */
        size_t n;
        size_t alloc;
        size_t pos;
};

/* Where a token is read: in Values context the keywords "in" and "notin" are identifiers. */
enum context {
        CTX_KEY_AND_OPERATOR,
        CTX_VALUES,
};

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
        return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

static void parser_push(struct parser *p, enum token tok, const char *lit, size_t n)
{
        if (p->n == p->alloc) {
                p->alloc = p->alloc ? p->alloc * 2 : 16;
                p->items = xrealloc(p->items, p->alloc * sizeof(*p->items));
        }
        p->items[p->n].tok = tok;
        p->items[p->n].lit = xstrndup(lit, n);
        p->n++;
}

static void parser_release(struct parser *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->items[i].lit);
        free(p->items);
}

/* K8S: Lexer.Lex: blanks separate tokens; a run of special symbols yields its longest token
 * ("==", "!=", else one symbol); anything else up to a special symbol or blank is an identifier
 * or the keyword "in"/"notin". */
static void lex(struct parser *p, const char *s)
{
        for (;;) {
                while (is_blank(*s))
                        s++;
                if (!*s) {
                        parser_push(p, TOK_END, "", 0);
                        return;
                }
                if (is_special(*s)) {
                        enum token tok;
                        size_t n = 1;

                        if ((s[0] == '=' || s[0] == '!') && s[1] == '=')
                                n = 2;
                        switch (s[0]) {
                        case '=':
                                tok = n == 2 ? TOK_DOUBLE_EQUALS : TOK_EQUALS;
                                break;
                        case '!':
                                tok = n == 2 ? TOK_NOT_EQUALS : TOK_NOT;
                                break;
                        case '(':
                                tok = TOK_OPEN_PAR;
                                break;
                        case ')':
                                tok = TOK_CLOSE_PAR;
                                break;
                        case ',':
                                tok = TOK_COMMA;
                                break;
                        case '>':
                                tok = TOK_GREATER_THAN;
                                break;
                        default:
                                tok = TOK_LESS_THAN;
                                break;
                        }
                        parser_push(p, tok, s, n);
                        s += n;
                } else {
                        const char *start = s;
                        size_t n;
                        enum token tok = TOK_IDENTIFIER;

                        while (*s && !is_special(*s) && !is_blank(*s))
                                s++;
                        n = (size_t) (s - start);
                        if (n == 2 && !memcmp(start, "in", 2))
                                tok = TOK_IN;
                        else if (n == 5 && !memcmp(start, "notin", 5))
                                tok = TOK_NOT_IN;
                        parser_push(p, tok, start, n);
                }
        }
}

static enum token in_context(enum token tok, enum context ctx)
{
        if (ctx == CTX_VALUES && (tok == TOK_IN || tok == TOK_NOT_IN))
                return TOK_IDENTIFIER;
        return tok;
}

static enum token lookahead(const struct parser *p, enum context ctx, const char **ret_lit)
{
        const struct item *it = &p->items[p->pos];

        if (ret_lit)
                *ret_lit = it->lit;
        return in_context(it->tok, ctx);
}

/* Never moves past the final TOK_END, so a malformed input cannot read beyond the items. */
static enum token consume(struct parser *p, enum context ctx, const char **ret_lit)
{
        enum token tok = lookahead(p, ctx, ret_lit);

        if (p->pos + 1 < p->n)
                p->pos++;
        return tok;
}

/* A small growable list of strings. */
struct strv {
        char **v;
        size_t n;
        size_t alloc;
};

static void strv_add(struct strv *l, const char *s)
{
        if (l->n == l->alloc) {
                l->alloc = l->alloc ? l->alloc * 2 : 4;
                l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
        }
        l->v[l->n++] = xstrdup(s);
}

static void strv_release(struct strv *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        l->v = NULL;
        l->n = l->alloc = 0;
}

/* Sorts and deduplicates, as sets.String.List() hands values to NewRequirement. */
static void strv_sort_unique(struct strv *l)
{
        size_t w = 0;

        if (l->n == 0)
                return;
        qsort(l->v, l->n, sizeof(*l->v), cmp_strp);
        for (size_t i = 0; i < l->n; i++) {
                if (w > 0 && streq(l->v[w - 1], l->v[i]))
                        free(l->v[i]);
                else
                        l->v[w++] = l->v[i];
        }
        l->n = w;
}

static int fail(struct error **reterr, const char *fmt, const char *lit)
{
        return error_set(reterr, EINVAL, fmt, lit);
}

/* K8S: NewRequirement's checks that parsed input can fail: `>`/`<` need an integer, and every
 * value must be a valid label value. (The key was validated while parsing; the value counts
 * per operator are guaranteed by the grammar.) Errors print as one aggregate. */
static int requirement_validate(const char *key, enum label_op op, const struct strv *values,
                                struct error **reterr)
{
        struct field_error_list errs;
        int r = 0;

        field_error_list_init(&errs);
        if (op == LABEL_OP_GREATER_THAN || op == LABEL_OP_LESS_THAN) {
                for (size_t i = 0; i < values->n; i++) {
                        int64_t dummy;
                        if (!parse_int64(values->v[i], &dummy)) {
                                cleanup_free char *path = xasprintf("values[%zu]", i);
                                cleanup_free char *q = quote_go(values->v[i]);
                                field_error_add(&errs, FIELD_ERROR_INVALID, path, q, "%s",
                                                "for 'Gt', 'Lt' operators, the value must be an "
                                                "integer");
                        }
                }
        }
        for (size_t i = 0; i < values->n; i++) {
                cleanup_free char *msgs = label_value_errors(values->v[i]);
                if (msgs) {
                        cleanup_free char *path = xasprintf("values[%zu][%s]", i, key);
                        cleanup_free char *q = quote_go(values->v[i]);
                        field_error_add(&errs, FIELD_ERROR_INVALID, path, q, "%s", msgs);
                }
        }
        if (errs.n) {
                cleanup_free char *msg = field_error_list_string(&errs);
                r = error_set(reterr, EINVAL, "%s", msg);
        }
        field_error_list_release(&errs);
        return r;
}

/* K8S: parseKeyAndInferOperator. "exists" is inferred when the key is followed by ',' or the
 * end; "!" before the key means does-not-exist whatever follows. *ret_op is -1 when an
 * operator must still be read. */
static int parse_key(struct parser *p, char **ret_key, int *ret_op, struct error **reterr)
{
        const char *lit;
        enum token tok = consume(p, CTX_VALUES, &lit);
        int op = -1;
        char *msgs;

        if (tok == TOK_NOT) {
                op = LABEL_OP_DOES_NOT_EXIST;
                tok = consume(p, CTX_VALUES, &lit);
        }
        if (tok != TOK_IDENTIFIER)
                return fail(reterr, "found '%s', expected: identifier", lit);
        msgs = qualified_name_errors(lit);
        if (msgs) {
                /* K8S: the parser's field path is nil, which prints as "<nil>". */
                cleanup_free char *q = quote_go(lit);
                int r = error_set(reterr, EINVAL, "<nil>: Invalid value: %s: %s", q, msgs);
                free(msgs);
                return r;
        }
        tok = lookahead(p, CTX_VALUES, NULL);
        if ((tok == TOK_END || tok == TOK_COMMA) && op != LABEL_OP_DOES_NOT_EXIST)
                op = LABEL_OP_EXISTS;
        *ret_key = xstrdup(lit);
        *ret_op = op;
        return 0;
}

/* K8S: parseOperator, read in key-and-operator context so "in"/"notin" are keywords. */
static int parse_operator(struct parser *p, enum label_op *ret_op, struct error **reterr)
{
        const char *lit;

        switch (consume(p, CTX_KEY_AND_OPERATOR, &lit)) {
        case TOK_IN:
                *ret_op = LABEL_OP_IN;
                return 0;
        case TOK_EQUALS:
                *ret_op = LABEL_OP_EQUALS;
                return 0;
        case TOK_DOUBLE_EQUALS:
                *ret_op = LABEL_OP_DOUBLE_EQUALS;
                return 0;
        case TOK_GREATER_THAN:
                *ret_op = LABEL_OP_GREATER_THAN;
                return 0;
        case TOK_LESS_THAN:
                *ret_op = LABEL_OP_LESS_THAN;
                return 0;
        case TOK_NOT_IN:
                *ret_op = LABEL_OP_NOT_IN;
                return 0;
        case TOK_NOT_EQUALS:
                *ret_op = LABEL_OP_NOT_EQUALS;
                return 0;
        default:
                return fail(reterr, "found '%s', expected: in, notin, =, ==, !=, gt, lt", lit);
        }
}

/* K8S: parseIdentifiersList: comma-separated, possibly empty identifiers; "(,", ",," and ",)"
 * each contribute the empty value. Returns at the closing parenthesis without consuming it. */
static int parse_identifiers_list(struct parser *p, struct strv *values, struct error **reterr)
{
        for (;;) {
                const char *lit, *lit2;
                enum token tok = consume(p, CTX_VALUES, &lit), tok2;

                switch (tok) {
                case TOK_IDENTIFIER:
                        strv_add(values, lit);
                        tok2 = lookahead(p, CTX_VALUES, &lit2);
                        if (tok2 == TOK_COMMA)
                                continue;
                        if (tok2 == TOK_CLOSE_PAR)
                                return 0;
                        return fail(reterr, "found '%s', expected: ',' or ')'", lit2);
                case TOK_COMMA:
                        if (values->n == 0)
                                strv_add(values, "");
                        tok2 = lookahead(p, CTX_VALUES, NULL);
                        if (tok2 == TOK_CLOSE_PAR) {
                                strv_add(values, "");
                                return 0;
                        }
                        if (tok2 == TOK_COMMA) {
                                consume(p, CTX_VALUES, NULL);
                                strv_add(values, "");
                        }
                        continue;
                default:
                        return fail(reterr, "found '%s', expected: ',', or identifier", lit);
                }
        }
}

/* K8S: parseValues: "(" values ")"; "()" is the set holding the empty value. */
static int parse_values(struct parser *p, struct strv *values, struct error **reterr)
{
        const char *lit;
        int r;

        if (consume(p, CTX_VALUES, &lit) != TOK_OPEN_PAR)
                return fail(reterr, "found '%s' expected: '('", lit);
        switch (lookahead(p, CTX_VALUES, &lit)) {
        case TOK_IDENTIFIER:
        case TOK_COMMA:
                r = parse_identifiers_list(p, values, reterr);
                if (r < 0)
                        return r;
                /* parse_identifiers_list only succeeds in front of ')'. */
                consume(p, CTX_VALUES, NULL);
                return 0;
        case TOK_CLOSE_PAR:
                consume(p, CTX_VALUES, NULL);
                strv_add(values, "");
                return 0;
        default:
                return fail(reterr, "found '%s', expected: ',', ')' or identifier", lit);
        }
}

/* K8S: parseExactValue: nothing before ',' or the end is the empty value. */
static int parse_exact_value(struct parser *p, struct strv *values, struct error **reterr)
{
        const char *lit;
        enum token tok = lookahead(p, CTX_VALUES, NULL);

        if (tok == TOK_END || tok == TOK_COMMA) {
                strv_add(values, "");
                return 0;
        }
        if (consume(p, CTX_VALUES, &lit) == TOK_IDENTIFIER) {
                strv_add(values, lit);
                return 0;
        }
        return fail(reterr, "found '%s', expected: identifier", lit);
}

static void selector_add(struct label_selector *sel, char *key, enum label_op op,
                         struct strv *values)
{
        struct label_requirement *r;

        if (sel->n == sel->alloc) {
                sel->alloc = sel->alloc ? sel->alloc * 2 : 4;
                sel->reqs = xrealloc(sel->reqs, sel->alloc * sizeof(*sel->reqs));
        }
        r = &sel->reqs[sel->n];
        r->key = key;
        r->op = op;
        r->values = values->v;
        r->n_values = values->n;
        r->order = sel->n;
        sel->n++;
        values->v = NULL;
        values->n = values->alloc = 0;
}

static int parse_requirement(struct parser *p, struct label_selector *sel, struct error **reterr)
{
        cleanup_free char *key = NULL;
        struct strv values = { 0 };
        enum label_op op = LABEL_OP_EXISTS;
        int key_op = -1, r;

        r = parse_key(p, &key, &key_op, reterr);
        if (r < 0)
                return r;
        if (key_op >= 0) {
                selector_add(sel, TAKE_PTR(key), (enum label_op) key_op, &values);
                return 0;
        }
        r = parse_operator(p, &op, reterr);
        if (r < 0)
                return r;
        if (op == LABEL_OP_IN || op == LABEL_OP_NOT_IN)
                r = parse_values(p, &values, reterr);
        else
                r = parse_exact_value(p, &values, reterr);
        if (r >= 0) {
                strv_sort_unique(&values);
                r = requirement_validate(key, op, &values, reterr);
        }
        if (r < 0) {
                strv_release(&values);
                return r;
        }
        selector_add(sel, TAKE_PTR(key), op, &values);
        return 0;
}

static int cmp_requirement(const void *a, const void *b)
{
        const struct label_requirement *x = a, *y = b;
        int c = strcmp(x->key, y->key);

        if (c)
                return c;
        return x->order < y->order ? -1 : x->order > y->order;
}

/* K8S: Parser.parse: requirements separated by ','; requirement errors are prefixed with
 * "unable to parse requirement: ", errors between requirements are not. */
static int parse_selector(struct parser *p, struct label_selector *sel, struct error **reterr)
{
        for (;;) {
                const char *lit;
                enum token tok = lookahead(p, CTX_VALUES, &lit);
                int r;

                if (tok == TOK_END)
                        return 0;
                if (tok != TOK_IDENTIFIER && tok != TOK_NOT)
                        return fail(reterr,
                                    "found '%s', expected: !, identifier, or 'end of string'", lit);
                r = parse_requirement(p, sel, reterr);
                if (r < 0) {
                        (void) error_wrap(reterr, "unable to parse requirement");
                        return r;
                }
                tok = consume(p, CTX_VALUES, &lit);
                if (tok == TOK_END)
                        return 0;
                if (tok != TOK_COMMA)
                        return fail(reterr, "found '%s', expected: ',' or 'end of string'", lit);
                tok = lookahead(p, CTX_VALUES, &lit);
                if (tok != TOK_IDENTIFIER && tok != TOK_NOT)
                        return fail(reterr, "found '%s', expected: identifier after ','", lit);
        }
}

int label_selector_parse(const char *s, struct label_selector **ret, struct error **reterr)
{
        cleanup_of(label_selector_free) struct label_selector *sel = xcalloc(1, sizeof(*sel));
        struct parser p = { 0 };
        int r;

        lex(&p, s);
        r = parse_selector(&p, sel, reterr);
        parser_release(&p);
        if (r < 0)
                return r;
        /* K8S: requirements are sorted by key "to grant deterministic parsing". */
        if (sel->n > 1)
                qsort(sel->reqs, sel->n, sizeof(*sel->reqs), cmp_requirement);
        *ret = TAKE_PTR(sel);
        return 0;
}

static bool has_value(const struct label_requirement *r, const char *v)
{
        return bsearch(&v, r->values, r->n_values, sizeof(*r->values), cmp_strp) != NULL;
}

/* K8S: Requirement.Matches. */
static bool requirement_matches(const struct label_requirement *r, const json_t *labels)
{
        const json_t *v = json_is_object(labels) ? json_object_get(labels, r->key) : NULL;
        char buf[JSON_NUMBER_TEXT_MAX];
        const char *val = v ? scalar_string(v, buf) : NULL;
        int64_t have, want;

        switch (r->op) {
        case LABEL_OP_IN:
        case LABEL_OP_EQUALS:
        case LABEL_OP_DOUBLE_EQUALS:
                return val && has_value(r, val);
        case LABEL_OP_NOT_IN:
        case LABEL_OP_NOT_EQUALS:
                return !val || !has_value(r, val);
        case LABEL_OP_EXISTS:
                return val != NULL;
        case LABEL_OP_DOES_NOT_EXIST:
                return val == NULL;
        case LABEL_OP_GREATER_THAN:
        case LABEL_OP_LESS_THAN:
                if (!val || r->n_values != 1 || !parse_int64(val, &have) ||
                    !parse_int64(r->values[0], &want))
                        return false;
                return r->op == LABEL_OP_GREATER_THAN ? have > want : have < want;
        }
        return false;
}

bool label_selector_matches(const struct label_selector *sel, const json_t *labels)
{
        for (size_t i = 0; i < sel->n; i++)
                if (!requirement_matches(&sel->reqs[i], labels))
                        return false;
        return true;
}

bool label_selector_is_empty(const struct label_selector *sel)
{
        return sel->n == 0;
}

char *label_selector_to_string(const struct label_selector *sel)
{
        static const char *const ops[] = {
                [LABEL_OP_IN] = " in ",         [LABEL_OP_NOT_IN] = " notin ",
                [LABEL_OP_EQUALS] = "=",        [LABEL_OP_DOUBLE_EQUALS] = "==",
                [LABEL_OP_NOT_EQUALS] = "!=",   [LABEL_OP_GREATER_THAN] = ">",
                [LABEL_OP_LESS_THAN] = "<",     [LABEL_OP_EXISTS] = "",
                [LABEL_OP_DOES_NOT_EXIST] = "",
        };
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < sel->n; i++) {
                const struct label_requirement *r = &sel->reqs[i];
                bool set = r->op == LABEL_OP_IN || r->op == LABEL_OP_NOT_IN;

                if (i)
                        strbuf_addch(&sb, ',');
                if (r->op == LABEL_OP_DOES_NOT_EXIST)
                        strbuf_addch(&sb, '!');
                strbuf_addstr(&sb, r->key);
                if (r->op == LABEL_OP_EXISTS || r->op == LABEL_OP_DOES_NOT_EXIST)
                        continue;
                strbuf_addstr(&sb, ops[r->op]);
                if (set)
                        strbuf_addch(&sb, '(');
                for (size_t j = 0; j < r->n_values; j++) {
                        if (j)
                                strbuf_addch(&sb, ',');
                        strbuf_addstr(&sb, r->values[j]);
                }
                if (set)
                        strbuf_addch(&sb, ')');
        }
        return strbuf_detach(&sb);
}

/* ---- field selectors --------------------------------------------------------------------- */

struct field_term {
        char *field;
        char *value; /* unescaped */
        bool not_equal;
};

struct field_selector {
        struct field_term *terms;
        size_t n;
};

struct field_selector *field_selector_free(struct field_selector *sel)
{
        if (!sel)
                return NULL;
        for (size_t i = 0; i < sel->n; i++) {
                free(sel->terms[i].field);
                free(sel->terms[i].value);
        }
        free(sel->terms);
        free(sel);
        return NULL;
}

/* K8S: splitTerms: split on ',' unless the ',' follows an escaping '\'; the backslashes stay. */
static void split_terms(const char *s, struct strv *terms)
{
        const char *start = s;
        bool in_slash = false;

        if (!*s)
                return;
        for (; *s; s++) {
                if (in_slash)
                        in_slash = false;
                else if (*s == '\\')
                        in_slash = true;
                else if (*s == ',') {
                        cleanup_free char *t = xstrndup(start, (size_t) (s - start));
                        strv_add(terms, t);
                        start = s + 1;
                }
        }
        strv_add(terms, start);
}

/* K8S: splitTerm: the first "!=", "==" or "=" (tried in that order at each position) splits
 * field from raw value; fields know no escaping. */
static bool split_term(const char *term, size_t *ret_field_len, bool *ret_not_equal,
                       const char **ret_rhs)
{
        for (const char *q = term; *q; q++) {
                if (q[0] == '!' && q[1] == '=') {
                        *ret_not_equal = true;
                        *ret_rhs = q + 2;
                } else if (q[0] == '=' && q[1] == '=') {
                        *ret_not_equal = false;
                        *ret_rhs = q + 2;
                } else if (q[0] == '=') {
                        *ret_not_equal = false;
                        *ret_rhs = q + 1;
                } else
                        continue;
                *ret_field_len = (size_t) (q - term);
                return true;
        }
        return false;
}

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* K8S: UnescapeValue: "\\", "\," and "\=" stand for the character; any other escape, a
 * trailing '\' and an unescaped ',' or '=' are errors. Like Go, the slow path re-encodes
 * invalid UTF-8 as U+FFFD. */
static int unescape_value(const char *s, char **ret, struct error **reterr)
{
        const char *end = s + strlen(s);
        struct strbuf sb;
        bool in_slash = false;

        if (!strpbrk(s, "\\,=")) {
                *ret = xstrdup(s);
                return 0;
        }
        strbuf_init(&sb);
        while (*s) {
                size_t n;
                int32_t r = utf8_decode(s, (size_t) (end - s), &n);
                const char *rune = r >= 0 ? s : UTF8_REPLACEMENT;
                size_t rune_len = r >= 0 ? n : 3;

                if (in_slash) {
                        if (*s != '\\' && *s != ',' && *s != '=') {
                                strbuf_release(&sb);
                                return error_set(reterr, EINVAL,
                                                 "invalid field selector: invalid escape "
                                                 "sequence: \\%.*s",
                                                 (int) rune_len, rune);
                        }
                        strbuf_addch(&sb, *s);
                        in_slash = false;
                } else if (*s == '\\')
                        in_slash = true;
                else if (*s == ',' || *s == '=') {
                        /* K8S: the rune prints with %v, i.e. as its code point number. */
                        int c = *s;
                        strbuf_release(&sb);
                        return error_set(reterr, EINVAL,
                                         "invalid field selector: unescaped character in value: %d",
                                         c);
                } else
                        strbuf_add(&sb, rune, rune_len);
                s += n;
        }
        if (in_slash) {
                strbuf_release(&sb);
                return error_set(reterr, EINVAL,
                                 "invalid field selector: invalid escape sequence: \\");
        }
        *ret = strbuf_detach(&sb);
        return 0;
}

/* K8S: the kind's field label conversion. Core kinds answer "field label not supported: X";
 * kinds without a conversion function fall back to DefaultMetaV1FieldSelectorConversion. */
static int check_field_supported(const char *field, const char *const *supported,
                                 struct error **reterr)
{
        if (!supported) {
                cleanup_free char *q = NULL;
                if (streq(field, "metadata.name") || streq(field, "metadata.namespace"))
                        return 0;
                q = quote_go(field);
                return error_set(reterr, EINVAL,
                                 "%s is not a known field selector: only \"metadata.name\", "
                                 "\"metadata.namespace\"",
                                 q);
        }
        for (; *supported; supported++)
                if (streq(*supported, field))
                        return 0;
        return error_set(reterr, EINVAL, "field label not supported: %s", field);
}

int field_selector_parse(const char *s, const char *const *supported_fields,
                         struct field_selector **ret, struct error **reterr)
{
        cleanup_of(field_selector_free) struct field_selector *sel = xcalloc(1, sizeof(*sel));
        struct strv parts = { 0 };
        int r = 0;

        split_terms(s, &parts);
        /* K8S: terms are sorted before parsing, so errors name the first bad term in sort
         * order. */
        if (parts.n > 1)
                qsort(parts.v, parts.n, sizeof(*parts.v), cmp_strp);
        sel->terms = xcalloc(parts.n ? parts.n : 1, sizeof(*sel->terms));
        for (size_t i = 0; i < parts.n && r == 0; i++) {
                struct field_term *t = &sel->terms[sel->n];
                const char *rhs;
                size_t field_len;
                bool not_equal;

                if (!parts.v[i][0])
                        continue;
                if (!split_term(parts.v[i], &field_len, &not_equal, &rhs)) {
                        r = error_set(reterr, EINVAL,
                                      "invalid selector: '%s'; can't understand '%s'", s,
                                      parts.v[i]);
                        break;
                }
                r = unescape_value(rhs, &t->value, reterr);
                if (r < 0)
                        break;
                /* K8S: Transform drops a term whose field and value are both empty. */
                if (field_len == 0 && !t->value[0]) {
                        free(t->value);
                        t->value = NULL;
                        continue;
                }
                t->field = xstrndup(parts.v[i], field_len);
                t->not_equal = not_equal;
                sel->n++;
        }
        strv_release(&parts);
        if (r < 0)
                return r;
        /* K8S: Transform runs after the whole selector parsed. */
        for (size_t i = 0; i < sel->n; i++) {
                r = check_field_supported(sel->terms[i].field, supported_fields, reterr);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(sel);
        return 0;
}

bool field_selector_matches(const struct field_selector *sel, const json_t *obj)
{
        for (size_t i = 0; i < sel->n; i++) {
                const struct field_term *t = &sel->terms[i];
                const json_t *v = json_path(obj, t->field);
                char buf[JSON_NUMBER_TEXT_MAX];
                const char *have = v ? scalar_string(v, buf) : "";

                if (streq(have, t->value) == t->not_equal)
                        return false;
        }
        return true;
}

bool field_selector_is_empty(const struct field_selector *sel)
{
        return sel->n == 0;
}

bool field_selector_requires_exact(const struct field_selector *sel, const char *field,
                                   const char **ret_value)
{
        for (size_t i = 0; i < sel->n; i++) {
                if (!sel->terms[i].not_equal && streq(sel->terms[i].field, field)) {
                        if (ret_value)
                                *ret_value = sel->terms[i].value;
                        return true;
                }
        }
        return false;
}

char *field_selector_to_string(const struct field_selector *sel)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < sel->n; i++) {
                const struct field_term *t = &sel->terms[i];

                if (i)
                        strbuf_addch(&sb, ',');
                strbuf_addstr(&sb, t->field);
                strbuf_addstr(&sb, t->not_equal ? "!=" : "=");
                /* K8S: EscapeValue: '\' first, then ',' and '='. */
                for (const char *q = t->value; *q; q++) {
                        if (*q == '\\' || *q == ',' || *q == '=')
                                strbuf_addch(&sb, '\\');
                        strbuf_addch(&sb, *q);
                }
        }
        return strbuf_detach(&sb);
}

/* K8S: metav1.LabelSelectorAsSelector: each operator's requirement (In and NotIn need values,
 * Exists and DoesNotExist none); Matches as labels.Selector does. */
static int object_requirement_matches(const json_t *rq, const json_t *labels)
{
        const char *key = json_string_value(json_object_get(rq, "key"));
        const char *op = json_string_value(json_object_get(rq, "operator"));
        const json_t *values = json_object_get(rq, "values");
        const json_t *have = json_is_object(labels) ? json_object_get(labels, key ?: "") : NULL;
        bool in = false;
        size_t i;
        json_t *v;

        if (!key || !op || (values && !json_is_array(values)))
                return -EINVAL;
        if (streq(op, "Exists") || streq(op, "DoesNotExist")) {
                if (json_array_size(values))
                        return -EINVAL;
                return (have != NULL) == streq(op, "Exists");
        }
        if (!streq(op, "In") && !streq(op, "NotIn"))
                return -EINVAL;
        if (!json_array_size(values))
                return -EINVAL;
        json_array_foreach(values, i, v) {
                if (!json_is_string(v))
                        return -EINVAL;
                in |= json_is_string(have) && streq(json_string_value(v), json_string_value(have));
        }
        return streq(op, "In") ? in : !in;
}

int label_selector_object_matches(const json_t *sel, const json_t *labels)
{
        const json_t *match = json_object_get(sel, "matchLabels");
        const json_t *exprs = json_object_get(sel, "matchExpressions");
        bool all = true;
        const char *key;
        size_t i;
        json_t *v;

        if (!json_is_object(sel))
                return 0; /* K8S: a nil selector is labels.Nothing() */
        if ((match && !json_is_object(match)) || (exprs && !json_is_array(exprs)))
                return -EINVAL;
        json_object_foreach((json_t *) match, key, v) {
                const json_t *have = json_is_object(labels) ? json_object_get(labels, key) : NULL;

                if (!json_is_string(v))
                        return -EINVAL;
                all &= json_is_string(have) && streq(json_string_value(have), json_string_value(v));
        }
        json_array_foreach(exprs, i, v) {
                int r = object_requirement_matches(v, labels);

                if (r < 0)
                        return r;
                all &= r > 0;
        }
        return all;
}

bool label_selector_object_is_empty(const json_t *sel)
{
        return json_is_object(sel) && json_object_size(json_object_get(sel, "matchLabels")) == 0 &&
               json_array_size(json_object_get(sel, "matchExpressions")) == 0;
}

struct requirement_text {
        const char *key;
        char *text;
};

static int cmp_requirement_text(const void *a, const void *b)
{
        return strcmp(((const struct requirement_text *) a)->key,
                      ((const struct requirement_text *) b)->key);
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* "(a,b)" of a requirement's values, sorted as upstream's Requirement.String sorts them. */
static char *values_text(const json_t *values)
{
        size_t n = json_array_size(values), i;
        const char **v = xcalloc(n + 1, sizeof(*v));
        struct strbuf sb;
        json_t *x;

        json_array_foreach(values, i, x) {
                v[i] = json_string_value(x) ?: "";
        }
        qsort(v, n, sizeof(*v), cmp_cstr);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "(");
        for (i = 0; i < n; i++)
                strbuf_addf(&sb, "%s%s", i ? "," : "", v[i]);
        strbuf_addstr(&sb, ")");
        free(v);
        return strbuf_detach(&sb);
}

char *label_selector_object_to_string(const json_t *sel)
{
        const json_t *match = json_object_get(sel, "matchLabels");
        const json_t *exprs = json_object_get(sel, "matchExpressions");
        size_t n = json_object_size(match) + json_array_size(exprs), k = 0, i;
        struct requirement_text *reqs = xcalloc(n + 1, sizeof(*reqs));
        struct strbuf sb;
        const char *key;
        json_t *v;

        json_object_foreach((json_t *) match, key, v) {
                reqs[k].key = key;
                reqs[k++].text = xasprintf("%s=%s", key, json_string_value(v) ?: "");
        }
        json_array_foreach(exprs, i, v) {
                const char *op = json_string_value(json_object_get(v, "operator")) ?: "";
                const char *rk = json_string_value(json_object_get(v, "key")) ?: "";
                cleanup_free char *vals = values_text(json_object_get(v, "values"));

                reqs[k].key = rk;
                if (streq(op, "In"))
                        reqs[k++].text = xasprintf("%s in %s", rk, vals);
                else if (streq(op, "NotIn"))
                        reqs[k++].text = xasprintf("%s notin %s", rk, vals);
                else if (streq(op, "Exists"))
                        reqs[k++].text = xstrdup(rk);
                else if (streq(op, "DoesNotExist"))
                        reqs[k++].text = xasprintf("!%s", rk);
        }
        /* K8S: internalSelector.String: requirements sorted by key, joined with "," */
        qsort(reqs, k, sizeof(*reqs), cmp_requirement_text);
        strbuf_init(&sb);
        for (i = 0; i < k; i++) {
                strbuf_addf(&sb, "%s%s", i ? "," : "", reqs[i].text);
                free(reqs[i].text);
        }
        free(reqs);
        return strbuf_detach(&sb);
}
