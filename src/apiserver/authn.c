/* authn.c: the request authenticators (see authn.h): x509 client certificates, the admin token,
 * the static token file and bootstrap tokens, with upstream's order, groups and formats. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "apiserver/authn.h"
#include "apiserver/pki.h"
#include "apiserver/resources.h"
#include "apiserver/satoken.h"
#include "apiserver/token-cache.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/uuid.h"
#include "store/store.h"

/* A token file bigger than this is refused (upstream reads any size; ours is held in memory). */
#define MAX_TOKEN_FILE (16 * 1024 * 1024)
/* Subject attributes longer than this are not names (RFC 5280 ub-common-name is 64). */
#define MAX_DN_VALUE 1024
/* How many client certificates' users are kept (struct cert_users). */
#define CERT_USERS_KEPT 16

/* The users of the last client certificates seen: decoding a certificate (ASN.1) on every
 * request was 2.5% of the server's CPU under a stream of PATCHes, and a client presents one
 * certificate for many requests. A user is a function of the certificate's bytes alone (the
 * chain and validity were checked with the connection's handshake). */
struct cert_users {
        pthread_mutex_t lock;
        unsigned next; /* the slot the next new certificate takes */
        struct cert_user {
                unsigned char *der; /* NULL: empty */
                size_t len;
                struct authn_user *user;
        } slots[CERT_USERS_KEPT];
};

struct authn {
        const struct pki *pki;
        const struct jws_signer *sa_signer; /* service account tokens; NULL: none */
        struct store *store; /* service accounts, bootstrap token Secrets; NULL: none */
        struct authn_token_entry *tokens;
        size_t n_tokens;
        /* K8S: the loopback client's token (kube-apiserver's own requests as system:apiserver
         * in system:masters): random per start, never written anywhere */
        char loopback_token[2 * 32 + 1];
        unsigned char loopback_digest[32];
        /* service account answers (token-cache.h); NULL without a store and signer */
        struct token_cache *tokens_cache;
        char loopback_uid[UUID_STRING_LEN + 1];
        struct cert_users *cert_users;
};

struct authn_user *authn_user_free(struct authn_user *u)
{
        if (!u)
                return NULL;
        for (size_t i = 0; u->groups && u->groups[i]; i++)
                free(u->groups[i]);
        free(u->groups);
        free(u->name);
        free(u->uid);
        json_decref(u->extra);
        free(u);
        return NULL;
}

static void user_add_group(struct authn_user *u, size_t *n, const char *g)
{
        u->groups = xrealloc(u->groups, (*n + 2) * sizeof(*u->groups));
        u->groups[(*n)++] = xstrdup(g);
        u->groups[*n] = NULL;
}

/* K8S: AuthenticatedGroupAdder appends system:authenticated unless the user has it already. */
static void user_add_authenticated(struct authn_user *u, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(u->groups[i], AUTHN_GROUP_AUTHENTICATED) == 0)
                        return;
        user_add_group(u, &n, AUTHN_GROUP_AUTHENTICATED);
}

struct authn_user *authn_user_new(const char *name, const char *uid, const char *const *groups)
{
        struct authn_user *u = xcalloc(1, sizeof(*u));
        size_t n = 0;

        u->name = xstrdup(name);
        u->uid = xstrdup(uid ? uid : "");
        u->groups = xcalloc(1, sizeof(*u->groups));
        for (size_t i = 0; groups && groups[i]; i++)
                user_add_group(u, &n, groups[i]);
        user_add_authenticated(u, n);
        return u;
}

static struct authn_user *user_copy(const struct authn_user *src)
{
        return authn_user_new(src->name, src->uid, (const char *const *) src->groups);
}

json_t *authn_user_info_json(const struct authn_user *u)
{
        json_t *info = json_object();
        json_t *groups = json_array();

        json_object_set_new(info, "username", json_string(u->name));
        if (*u->uid)
                json_object_set_new(info, "uid", json_string(u->uid));
        for (size_t i = 0; u->groups[i]; i++)
                json_array_append_new(groups, json_string(u->groups[i]));
        json_object_set_new(info, "groups", groups);
        if (json_object_size(u->extra))
                json_object_set_new(info, "extra", json_deep_copy(u->extra));
        return info;
}

/* ---- the static token file ---- */

void authn_token_entries_free(struct authn_token_entry *e, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                for (size_t g = 0; e[i].user.groups && e[i].user.groups[g]; g++)
                        free(e[i].user.groups[g]);
                free(e[i].user.groups);
                free(e[i].user.name);
                free(e[i].user.uid);
        }
        free(e);
}

/* Go's csv.ParseError text for a fault at text[i]: the column is 1-based within its line, and
 * a record that began on an earlier line names that line too. */
static int csv_error(const char *text, size_t i, unsigned start_line, unsigned line,
                     const char *what, struct error **reterr)
{
        size_t col = 1;

        while (col <= i && text[i - col] != '\n')
                col++;
        if (start_line != line)
                return error_set(reterr, EINVAL,
                                 "record on line %u; parse error on line %u, column %zu: %s",
                                 start_line, line, col, what);
        return error_set(reterr, EINVAL, "parse error on line %u, column %zu: %s", line, col, what);
}

#define CSV_QUOTE_FAULT "extraneous or missing \" in quoted-field"

/* One CSV record as Go's encoding/csv reads it (FieldsPerRecord -1, no comments, no trimming):
 * fields split at commas, a field that starts with a quote runs to its closing quote (which may
 * span lines; "" inside is one quote). Blank lines are skipped. Returns the number of fields (0
 * at the end), with *pos advanced and *line counted; -EINVAL with Go's message otherwise. */
static int csv_record(const char *text, size_t len, size_t *pos, unsigned *line,
                      struct strbuf *fields, size_t *offsets, size_t max_fields,
                      struct error **reterr)
{
        size_t i = *pos, n = 0;
        unsigned start_line;

        /* blank lines (a lone \r too) are no record */
        while (i < len &&
               (text[i] == '\n' || (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))) {
                i += text[i] == '\r' ? 2 : 1;
                (*line)++;
        }
        if (i >= len) {
                *pos = i;
                return 0;
        }
        start_line = *line;
        strbuf_reset(fields);
        for (;;) {
                if (n == max_fields)
                        return error_set(reterr, EINVAL, "record on line %u: too many fields",
                                         start_line);
                offsets[n++] = fields->len;
                if (i < len && text[i] == '"') {
                        i++;
                        for (;;) {
                                if (i >= len)
                                        return csv_error(text, i, start_line, *line,
                                                         CSV_QUOTE_FAULT, reterr);
                                if (text[i] == '"') {
                                        if (i + 1 < len && text[i + 1] == '"') {
                                                strbuf_addch(fields, '"');
                                                i += 2;
                                                continue;
                                        }
                                        i++;
                                        break;
                                }
                                if (text[i] == '\n')
                                        (*line)++;
                                if (!(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
                                        strbuf_addch(fields, text[i]);
                                i++;
                        }
                        if (i < len && text[i] != ',' && text[i] != '\n' &&
                            !(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
                                return csv_error(text, i, start_line, *line, CSV_QUOTE_FAULT,
                                                 reterr);
                } else {
                        while (i < len && text[i] != ',' && text[i] != '\n' &&
                               !(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')) {
                                if (text[i] == '"')
                                        return csv_error(text, i, start_line, *line,
                                                         "bare \" in non-quoted-field", reterr);
                                strbuf_addch(fields, text[i]);
                                i++;
                        }
                }
                strbuf_addch(fields, '\0');
                if (i < len && text[i] == ',') {
                        i++;
                        continue;
                }
                break;
        }
        if (i < len)
                i += text[i] == '\r' ? 2 : 1;
        (*line)++;
        *pos = i;
        return (int) n;
}

#define TOKEN_FILE_MAX_FIELDS 64

int authn_token_file_parse(const char *path, const char *text, size_t len,
                           struct authn_token_entry **ret, size_t *ret_n, struct error **reterr)
{
        struct authn_token_entry *e = NULL;
        size_t n = 0, pos = 0, offsets[TOKEN_FILE_MAX_FIELDS];
        unsigned line = 1;
        struct strbuf fields;
        int r;

        strbuf_init(&fields);
        while ((r = csv_record(text, len, &pos, &line, &fields, offsets, TOKEN_FILE_MAX_FIELDS,
                               reterr)) > 0) {
                const char *token = fields.buf + offsets[0];
                struct authn_user *u;
                size_t ng = 0;

                if (r < 3) {
                        error_set(reterr, EINVAL,
                                  "token file '%s' must have at least 3 columns (token, user "
                                  "name, user uid), found %d",
                                  path, r);
                        r = -EINVAL;
                        break;
                }
                /* K8S: an empty token is skipped with a warning */
                if (!*token)
                        continue;
                e = xrealloc(e, (n + 1) * sizeof(*e));
                memset(&e[n], 0, sizeof(e[n]));
                if (gnutls_hash_fast(GNUTLS_DIG_SHA256, token, strlen(token), e[n].digest) < 0)
                        abort();
                u = &e[n].user;
                u->name = xstrdup(fields.buf + offsets[1]);
                u->uid = xstrdup(fields.buf + offsets[2]);
                u->groups = xcalloc(1, sizeof(*u->groups));
                /* K8S: strings.Split(record[3], ","): every piece, empty ones too */
                if (r >= 4) {
                        const char *g = fields.buf + offsets[3];
                        for (;;) {
                                const char *comma = strchr(g, ',');
                                cleanup_free char *one =
                                        comma ? xstrndup(g, (size_t) (comma - g)) : xstrdup(g);
                                user_add_group(u, &ng, one);
                                if (!comma)
                                        break;
                                g = comma + 1;
                        }
                }
                n++;
        }
        strbuf_release(&fields);
        gnutls_memset(offsets, 0, sizeof(offsets));
        if (r < 0) {
                authn_token_entries_free(e, n);
                return -EINVAL;
        }
        *ret = e;
        *ret_n = n;
        return 0;
}

static int read_token_file(const char *path, char **ret, size_t *ret_len, struct error **reterr)
{
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        struct strbuf sb;
        char buf[8192];
        ssize_t got;

        if (fd < 0)
                return error_set(reterr, errno, "open %s: %s", path, strerror(errno));
        strbuf_init(&sb);
        while ((got = read(fd, buf, sizeof(buf))) != 0) {
                if (got < 0) {
                        int e = errno;
                        if (e == EINTR)
                                continue;
                        strbuf_release(&sb);
                        return error_set(reterr, e, "read %s: %s", path, strerror(e));
                }
                if (sb.len + (size_t) got > MAX_TOKEN_FILE) {
                        strbuf_release(&sb);
                        return error_set(reterr, EFBIG, "token file '%s' is over %d bytes", path,
                                         MAX_TOKEN_FILE);
                }
                strbuf_add(&sb, buf, (size_t) got);
        }
        gnutls_memset(buf, 0, sizeof(buf));
        *ret_len = sb.len;
        *ret = strbuf_detach(&sb);
        return 0;
}

int authn_new(const struct pki *pki, const char *token_file, const struct jws_signer *sa_signer,
              struct store *store, struct authn **ret, struct error **reterr)
{
        struct authn *a = xcalloc(1, sizeof(*a));

        a->pki = pki;
        a->sa_signer = sa_signer;
        a->store = store;
        a->cert_users = xcalloc(1, sizeof(*a->cert_users));
        pthread_mutex_init(&a->cert_users->lock, NULL);
        {
                unsigned char raw[32];

                /* gnutls_rnd fails only when the library's self-tests failed */
                if (gnutls_rnd(GNUTLS_RND_KEY, raw, sizeof(raw)) < 0)
                        abort();
                for (size_t i = 0; i < sizeof(raw); i++)
                        (void) snprintf(a->loopback_token + 2 * i, 3, "%02x", raw[i]);
                gnutls_memset(raw, 0, sizeof(raw));
                if (gnutls_hash_fast(GNUTLS_DIG_SHA256, a->loopback_token,
                                     strlen(a->loopback_token), a->loopback_digest) < 0)
                        abort();
                uuid_random(a->loopback_uid);
        }
        if (store && sa_signer) {
                int r = token_cache_new(store, &a->tokens_cache, reterr);

                if (r < 0) {
                        authn_free(a);
                        return r;
                }
        }
        if (token_file) {
                cleanup_free char *text = NULL;
                size_t len = 0;
                int r = read_token_file(token_file, &text, &len, reterr);

                if (r >= 0)
                        r = authn_token_file_parse(token_file, text, len, &a->tokens, &a->n_tokens,
                                                   reterr);
                if (text)
                        gnutls_memset(text, 0, len);
                if (r < 0) {
                        authn_free(a);
                        return r;
                }
        }
        *ret = a;
        return 0;
}

const char *authn_loopback_token(const struct authn *a)
{
        return a->loopback_token;
}

struct authn *authn_free(struct authn *a)
{
        if (!a)
                return NULL;
        gnutls_memset(a->loopback_token, 0, sizeof(a->loopback_token));
        token_cache_free(a->tokens_cache);
        authn_token_entries_free(a->tokens, a->n_tokens);
        for (size_t i = 0; i < CERT_USERS_KEPT; i++) {
                free(a->cert_users->slots[i].der);
                authn_user_free(a->cert_users->slots[i].user);
        }
        pthread_mutex_destroy(&a->cert_users->lock);
        free(a->cert_users);
        free(a);
        return NULL;
}

/* ---- x509 ---- */

/* The subject attribute oid at index idx of crt, malloc'd; NULL when there is none. */
static char *dn_value(gnutls_x509_crt_t crt, const char *oid, unsigned idx)
{
        char buf[MAX_DN_VALUE + 1];
        size_t len = sizeof(buf) - 1;

        if (gnutls_x509_crt_get_dn_by_oid(crt, oid, idx, 0, buf, &len) < 0)
                return NULL;
        buf[len] = '\0';
        /* an attribute holding a NUL is not a name */
        if (strlen(buf) != len)
                return NULL;
        return xstrdup(buf);
}

int authn_user_from_cert(const unsigned char *der, size_t len, struct authn_user **ret)
{
        gnutls_datum_t d = { .data = (unsigned char *) der, .size = (unsigned) len };
        gnutls_x509_crt_t crt;
        cleanup_free char *cn = NULL;
        struct authn_user *u;
        size_t n = 0;

        if (len > UINT32_MAX || gnutls_x509_crt_init(&crt) < 0)
                return -EINVAL;
        if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_DER) < 0) {
                gnutls_x509_crt_deinit(crt);
                return -EINVAL;
        }
        /* K8S: CommonNameUserConversion: no CN, no user */
        cn = dn_value(crt, GNUTLS_OID_X520_COMMON_NAME, 0);
        if (!cn || !*cn) {
                gnutls_x509_crt_deinit(crt);
                return -EACCES;
        }
        u = xcalloc(1, sizeof(*u));
        u->name = TAKE_PTR(cn);
        u->uid = xstrdup("");
        u->groups = xcalloc(1, sizeof(*u->groups));
        for (unsigned i = 0;; i++) {
                cleanup_free char *o = dn_value(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, i);
                if (!o)
                        break;
                user_add_group(u, &n, o);
        }
        gnutls_x509_crt_deinit(crt);
        user_add_authenticated(u, n);
        *ret = u;
        return 0;
}

/* authn_user_from_cert through the kept users (struct cert_users). */
static int cert_user(struct cert_users *c, const unsigned char *der, size_t len,
                     struct authn_user **ret)
{
        struct cert_user *slot;
        int r;

        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < CERT_USERS_KEPT; i++) {
                slot = &c->slots[i];
                if (slot->der && slot->len == len && memcmp(slot->der, der, len) == 0) {
                        *ret = user_copy(slot->user);
                        pthread_mutex_unlock(&c->lock);
                        return 0;
                }
        }
        pthread_mutex_unlock(&c->lock);
        r = authn_user_from_cert(der, len, ret);
        if (r < 0)
                return r;
        pthread_mutex_lock(&c->lock);
        slot = &c->slots[c->next++ % CERT_USERS_KEPT];
        free(slot->der);
        authn_user_free(slot->user);
        slot->der = xmalloc(len);
        memcpy(slot->der, der, len);
        slot->len = len;
        slot->user = user_copy(*ret);
        pthread_mutex_unlock(&c->lock);
        return 0;
}

/* ---- requests ---- */

/* K8S: bearertoken.Authenticator: "Bearer" (any case), a space, the token up to the next
 * space; an empty token is no token. NULL when the header carries none. */
static char *bearer_token(const char *header)
{
        const char *p, *end;

        if (!header)
                return NULL;
        while (*header == ' ' || *header == '\t')
                header++;
        if (strncasecmp(header, "bearer ", 7) != 0)
                return NULL;
        p = header + 7;
        end = strchr(p, ' ');
        if (!end)
                end = p + strlen(p);
        while (end > p && (end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
                end--;
        return end > p ? xstrndup(p, (size_t) (end - p)) : NULL;
}

/* ---- bootstrap tokens ---- */

static bool is_lower_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool authn_bootstrap_token_parse(const char *token, char id[static BOOTSTRAP_TOKEN_ID_LEN + 1],
                                 char secret[static BOOTSTRAP_TOKEN_SECRET_LEN + 1])
{
        /* K8S: BootstrapTokenPattern `\A([a-z0-9]{6})\.([a-z0-9]{16})\z` */
        if (strlen(token) != BOOTSTRAP_TOKEN_ID_LEN + 1 + BOOTSTRAP_TOKEN_SECRET_LEN ||
            token[BOOTSTRAP_TOKEN_ID_LEN] != '.')
                return false;
        for (size_t i = 0; token[i]; i++)
                if (i != BOOTSTRAP_TOKEN_ID_LEN && !is_lower_alnum(token[i]))
                        return false;
        memcpy(id, token, BOOTSTRAP_TOKEN_ID_LEN);
        id[BOOTSTRAP_TOKEN_ID_LEN] = '\0';
        memcpy(secret, token + BOOTSTRAP_TOKEN_ID_LEN + 1, BOOTSTRAP_TOKEN_SECRET_LEN);
        secret[BOOTSTRAP_TOKEN_SECRET_LEN] = '\0';
        return true;
}

/* K8S: secret util GetData: the decoded data[key] of secret; "" when absent or not base64
 * (the store holds data as the API's base64). Caller frees. */
static char *secret_data(const json_t *secret, const char *key)
{
        const json_t *v = json_object_get(json_object_get(secret, "data"), key);
        const char *b64 = json_string_value(v);
        char *out = NULL;
        size_t len = 0;

        if (!b64 || base64_decode(b64, strlen(b64), &out, &len, NULL) < 0)
                return xstrdup("");
        /* a value holding a NUL compares as its bytes in Go; here it matches nothing */
        if (strlen(out) != len) {
                gnutls_memset(out, 0, len);
                free(out);
                return xstrdup("");
        }
        return out;
}

bool authn_bootstrap_secret_expired(const json_t *secret, time_t now)
{
        cleanup_free char *exp = secret_data(secret, "expiration");
        time_t t;

        if (!*exp)
                return false;
        /* K8S: HasExpired logs an expiration that does not parse and calls the token expired */
        if (time_parse_rfc3339(exp, &t) < 0)
                return true;
        return now > t;
}

/* K8S: ValidateBootstrapGroupName: `\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z` */
static bool bootstrap_group_valid(const char *g, size_t len)
{
        static const char prefix[] = BOOTSTRAP_DEFAULT_GROUP ":";
        const size_t plen = sizeof(prefix) - 1;

        if (len <= plen || len - plen > 256 || strncmp(g, prefix, plen) != 0 ||
            !is_lower_alnum(g[len - 1]))
                return false;
        for (size_t i = plen; i < len; i++)
                if (!is_lower_alnum(g[i]) && g[i] != ':' && g[i] != '-')
                        return false;
        return true;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* K8S: GetGroups: system:bootstrappers and each comma-separated auth-extra-groups entry, as a
 * sorted set; -EACCES when an entry is not a bootstrap group. */
static int bootstrap_groups(const json_t *secret, char ***ret, size_t *ret_n)
{
        cleanup_free char *extra = secret_data(secret, "auth-extra-groups");
        char **g = xcalloc(2, sizeof(*g));
        size_t n = 0;

        g[n++] = xstrdup(BOOTSTRAP_DEFAULT_GROUP);
        for (const char *p = extra; *extra;) {
                const char *end = strchr(p, ',');
                size_t len = end ? (size_t) (end - p) : strlen(p);

                if (!bootstrap_group_valid(p, len)) {
                        for (size_t i = 0; i < n; i++)
                                free(g[i]);
                        free(g);
                        return -EACCES;
                }
                g = xrealloc(g, (n + 2) * sizeof(*g));
                g[n++] = xstrndup(p, len);
                if (!end)
                        break;
                p = end + 1;
        }
        qsort(g, n, sizeof(*g), cmp_str);
        /* drop duplicates */
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
                if (w > 0 && streq(g[w - 1], g[i])) {
                        free(g[i]);
                        continue;
                }
                g[w++] = g[i];
        }
        g[w] = NULL;
        *ret = g;
        *ret_n = w;
        return 0;
}

static bool const_time_streq(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        unsigned char diff = la != lb;

        /* K8S: subtle.ConstantTimeCompare: the time depends on the lengths only */
        for (size_t i = 0; i < la && i < lb; i++)
                diff |= (unsigned char) (a[i] ^ b[i]);
        return diff == 0;
}

int authn_bootstrap_user(const char *id, const char *secret_text, const json_t *secret, time_t now,
                         struct authn_user **ret)
{
        cleanup_free char *ts = NULL;
        cleanup_free char *tid = NULL;
        cleanup_free char *usage = NULL;
        cleanup_free char *name = NULL;
        char **groups = NULL;
        size_t n = 0;
        bool match;

        /* K8S: TokenAuthenticator.AuthenticateToken, in its order; each refusal is "no user"
         * (upstream logs the reason at a debug level; flexlet has no debug log) */
        if (!secret || json_path(secret, "metadata.deletionTimestamp") ||
            !streq(json_path_string_or_empty(secret, "type"), BOOTSTRAP_TOKEN_SECRET_TYPE))
                return -EACCES;
        ts = secret_data(secret, "token-secret");
        match = const_time_streq(ts, secret_text);
        gnutls_memset(ts, 0, strlen(ts));
        if (!match)
                return -EACCES;
        tid = secret_data(secret, "token-id");
        if (!streq(tid, id) || authn_bootstrap_secret_expired(secret, now))
                return -EACCES;
        usage = secret_data(secret, "usage-bootstrap-authentication");
        if (!streq(usage, "true"))
                return -EACCES;
        if (bootstrap_groups(secret, &groups, &n) < 0)
                return -EACCES;
        name = xasprintf("%s%s", BOOTSTRAP_USER_PREFIX, id);
        *ret = authn_user_new(name, NULL, (const char *const *) groups);
        for (size_t i = 0; i < n; i++)
                free(groups[i]);
        free(groups);
        return 0;
}

/* The bootstrap authenticator: a token of the bootstrap form checked against its Secret. */
static int bootstrap_authenticate(const struct authn *a, const char *id, const char *secret_text,
                                  struct authn_user **ret)
{
        cleanup_free char *name = xasprintf("%s%s", BOOTSTRAP_TOKEN_SECRET_PREFIX, id);
        cleanup_json json_t *secret = NULL;

        if (!a->store ||
            store_get(a->store, "secrets", BOOTSTRAP_TOKEN_NAMESPACE, name, &secret, NULL) < 0)
                return -EACCES;
        return authn_bootstrap_user(id, secret_text, secret, time(NULL), ret);
}

static const char *const admin_groups[] = { PKI_ADMIN_GROUP, NULL };

/* A service account token, its answer kept (token-cache.h) when it authenticates. */
static int sa_authenticate(const struct authn *a, const char *token, const unsigned char digest[32],
                           struct authn_user **ret)
{
        struct satoken_refs refs = { 0 };
        uint64_t epoch = a->tokens_cache ? token_cache_epoch(a->tokens_cache) : 0;
        int r = satoken_authenticate(a->sa_signer, a->store, token, time(NULL), ret, &refs, NULL);

        if (r == 0 && a->tokens_cache)
                token_cache_put(a->tokens_cache, digest, epoch, *ret,
                                &(struct token_cache_refs){ .sa_uid = refs.sa_uid,
                                                            .pod_uid = refs.pod_uid,
                                                            .secret_uid = refs.secret_uid,
                                                            .valid_until = refs.valid_until });
        satoken_refs_release(&refs);
        return r;
}

int authn_request(const struct authn *a, const struct http_request *req, struct authn_user **ret)
{
        cleanup_free char *token = NULL;
        unsigned char digest[32];
        const struct authn_user *found = NULL;
        char bt_id[BOOTSTRAP_TOKEN_ID_LEN + 1], bt_secret[BOOTSTRAP_TOKEN_SECRET_LEN + 1];
        bool bootstrap;
        int r;

        if (req->client_cert_der &&
            cert_user(a->cert_users, req->client_cert_der, req->client_cert_len, ret) == 0)
                return 0;
        token = bearer_token(req->authorization);
        if (!token)
                return -EACCES;
        if (a->pki && pki_token_equal(a->pki, token)) {
                *ret = authn_user_new(PKI_ADMIN_USER, NULL, admin_groups);
                return 0;
        }
        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, token, strlen(token), digest) < 0)
                abort();
        {
                unsigned char diff = 0;

                for (size_t b = 0; b < sizeof(digest); b++)
                        diff |= (unsigned char) (digest[b] ^ a->loopback_digest[b]);
                if (diff == 0) {
                        gnutls_memset(token, 0, strlen(token));
                        *ret = authn_user_new(AUTHN_USER_APISERVER, a->loopback_uid, admin_groups);
                        return 0;
                }
        }
        bootstrap = authn_bootstrap_token_parse(token, bt_id, bt_secret);
        /* every entry is compared in full, so the time does not tell how close a guess came;
         * a later line for the same token wins, as upstream's map */
        for (size_t i = 0; i < a->n_tokens; i++) {
                unsigned char diff = 0;
                for (size_t b = 0; b < sizeof(digest); b++)
                        diff |= (unsigned char) (digest[b] ^ a->tokens[i].digest[b]);
                if (diff == 0)
                        found = &a->tokens[i].user;
        }
        if (found) {
                *ret = user_copy(found);
                r = 0;
        } else if (a->tokens_cache && (*ret = token_cache_get(a->tokens_cache, digest))) {
                r = 0;
        } else if (a->sa_signer && a->store && sa_authenticate(a, token, digest, ret) == 0) {
                r = 0;
        } else {
                /* K8S: the bootstrap authenticator comes after the token file and the service
                 * account tokens */
                r = bootstrap ? bootstrap_authenticate(a, bt_id, bt_secret, ret) : -EACCES;
        }
        if (bootstrap)
                gnutls_memset(bt_secret, 0, sizeof(bt_secret));
        gnutls_memset(token, 0, strlen(token));
        return r;
}

int authn_self_subject_review(const struct review_context *c, const json_t *obj, json_t **ret,
                              struct error **reterr)
{
        (void) obj;
        (void) reterr;
        *ret = json_pack("{s:s, s:s, s:{s:n}, s:{s:o}}", "kind", "SelfSubjectReview", "apiVersion",
                         "authentication.k8s.io/v1", "metadata", "creationTimestamp", "status",
                         "userInfo", authn_user_info_json(c->user));
        return 0;
}

int authn_token_review(const struct review_context *c, const json_t *obj, json_t **ret,
                       struct error **reterr)
{
        const struct authn *a = c->authn;
        const char *token = json_path_string(obj, "spec.token");
        const json_t *auds = json_path(obj, "spec.audiences");
        cleanup_free char *header = NULL;
        struct authn_user *who = NULL;
        json_t *answer, *meta, *status;

        if (!token || !*token)
                return error_set(reterr, EINVAL,
                                 "token is required for TokenReview in authentication");
        answer = json_deep_copy(obj);
        if (!a) {
                *ret = answer;
                return 0;
        }
        meta = json_object_ensure(answer, "metadata");
        if (!json_object_get(meta, "creationTimestamp"))
                json_object_set_new(meta, "creationTimestamp", json_null());
        status = json_object();
        /* K8S: WrapAudienceAgnosticToken with no API audiences: a review for audiences
         * intersects nothing and no token authenticator is asked */
        if (json_array_size(auds) == 0) {
                struct http_request req = { 0 };

                /* K8S: a request with nothing but this Authorization header */
                header = xasprintf("Bearer %s", token);
                req.authorization = header;
                if (authn_request(a, &req, &who) < 0)
                        who = NULL;
                gnutls_memset(header, 0, strlen(header));
        }
        if (who) {
                json_object_set_new(status, "authenticated", json_true());
                json_object_set_new(status, "user", authn_user_info_json(who));
                authn_user_free(who);
        } else {
                json_object_set_new(status, "user", json_object());
                json_object_set_new(status, "error", json_string("invalid bearer token"));
        }
        json_object_set_new(answer, "status", status);
        *ret = answer;
        return 0;
}
