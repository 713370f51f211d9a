/* registry.c: the distribution API v2 client that pulls an image into the node's store
 * (registry.h): manifest or index resolution for this platform, token and basic auth, blobs
 * fetched with their size bounded by their descriptor and checked against their digest, then
 * handed to image-store.c as an OCI layout. Every byte from the registry is hostile. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "http/curl-setup.h"
#include "node/runtime/registry.h"
#include "node/runtime/runtime-internal.h"

/* bounds on what a registry may make us hold or write */
#define META_MAX        (4 * 1024 * 1024)           /* a manifest, index or config */
#define TOKEN_MAX       (64 * 1024)                 /* a token response */
#define LAYER_MAX       (64LL * 1024 * 1024 * 1024) /* one layer's descriptor size */
#define LAYERS_MAX      128                         /* as image-store.c */
#define REDIRECTS_MAX   5L
#define CONNECT_TIMEOUT 30L
/* a transfer slower than 1 byte/s for 60 s is dead (containerd has no overall deadline) */
#define LOW_SPEED_TIME 60L

/* K8S: the media types containerd's remotes/docker resolver accepts for a manifest */
#define MT_OCI_INDEX       "application/vnd.oci.image.index.v1+json"
#define MT_OCI_MANIFEST    "application/vnd.oci.image.manifest.v1+json"
#define MT_DOCKER_LIST     "application/vnd.docker.distribution.manifest.list.v2+json"
#define MT_DOCKER_MANIFEST "application/vnd.docker.distribution.manifest.v2+json"

static const char *const config_media_types[] = {
        "application/vnd.oci.image.config.v1+json",
        "application/vnd.docker.container.image.v1+json",
};
static const char *const layer_media_types[] = {
        "application/vnd.oci.image.layer.v1.tar",
        "application/vnd.oci.image.layer.v1.tar+gzip",
        "application/vnd.oci.image.layer.v1.tar+zstd",
        "application/vnd.docker.image.rootfs.diff.tar.gzip",
};

void registry_pull_result_release(struct registry_pull_result *r)
{
        free(r->reference);
        *r = (struct registry_pull_result){ 0 };
}

const char *registry_arch(void)
{
#if defined(__x86_64__)
        return "amd64";
#elif defined(__aarch64__)
        return "arm64";
#else
        return "";
#endif
}

/* ------------------------------------------------------------------ digests */

static bool sha256_digest_ok(const char *d)
{
        if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71)
                return false;
        for (const char *p = d + 7; *p; p++)
                if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                        return false;
        return true;
}

static void hex32(const unsigned char *d, char out[static 65])
{
        for (size_t i = 0; i < 32; i++)
                (void) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void sha256_mem(const void *p, size_t n, char out[static 65])
{
        unsigned char d[32];

        (void) gnutls_hash_fast(GNUTLS_DIG_SHA256, p, n, d);
        hex32(d, out);
}

/* ------------------------------------------------------------------ challenge */

void registry_challenge_release(struct registry_challenge *c)
{
        free(c->scheme);
        free(c->realm);
        free(c->service);
        free(c->scope);
        *c = (struct registry_challenge){ 0 };
}

static bool is_token_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("!#$%&'*+-.^_`|~", c);
}

int registry_challenge_parse(const char *value, struct registry_challenge *ret)
{
        struct registry_challenge c = { 0 };
        const char *p = value;
        size_t n;

        if (!value)
                return -EINVAL;
        while (*p == ' ' || *p == '\t')
                p++;
        for (n = 0; p[n] && is_token_char(p[n]); n++)
                ;
        if (n == 0 || (p[n] && p[n] != ' '))
                return -EINVAL;
        c.scheme = xstrndup(p, n);
        p += n;
        while (*p) {
                struct strbuf v;
                const char *k;
                size_t kn;

                while (*p == ' ' || *p == '\t' || *p == ',')
                        p++;
                if (!*p)
                        break;
                k = p;
                for (kn = 0; k[kn] && is_token_char(k[kn]); kn++)
                        ;
                if (kn == 0 || k[kn] != '=') {
                        registry_challenge_release(&c);
                        return -EINVAL;
                }
                p = k + kn + 1;
                strbuf_init(&v);
                if (*p == '"') {
                        for (p++; *p && *p != '"'; p++) {
                                if (*p == '\\' && p[1])
                                        p++;
                                strbuf_addch(&v, *p);
                        }
                        if (*p != '"') {
                                strbuf_release(&v);
                                registry_challenge_release(&c);
                                return -EINVAL;
                        }
                        p++;
                } else {
                        for (; *p && is_token_char(*p); p++)
                                strbuf_addch(&v, *p);
                }
                if (v.len > 4096) {
                        strbuf_release(&v);
                        registry_challenge_release(&c);
                        return -EINVAL;
                }
                char **slot = kn == 5 && !strncasecmp(k, "realm", 5)     ? &c.realm
                              : kn == 7 && !strncasecmp(k, "service", 7) ? &c.service
                              : kn == 5 && !strncasecmp(k, "scope", 5)   ? &c.scope
                                                                         : NULL;
                if (slot) {
                        free(*slot);
                        *slot = strbuf_detach(&v);
                } else {
                        strbuf_release(&v);
                }
        }
        *ret = c;
        return 0;
}

/* ------------------------------------------------------------------ dockerconfigjson */

void registry_credentials_free(struct registry_credential *creds, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(creds[i].username);
                if (creds[i].password)
                        explicit_bzero(creds[i].password, strlen(creds[i].password));
                free(creds[i].password);
        }
        free(creds);
}

/* K8S: credentialprovider's keyring: a key is a URL or host, "docker.io" and the index's names
 * are one registry; the host (with its port) must be the image's. */
static bool key_matches(const char *key, const char *domain)
{
        cleanup_free char *host = NULL;
        const char *p = key, *e;

        if (!strncmp(p, "https://", 8))
                p += 8;
        else if (!strncmp(p, "http://", 7))
                p += 7;
        e = strchr(p, '/');
        host = e ? xstrndup(p, (size_t) (e - p)) : xstrdup(p);
        for (char *q = host; *q; q++)
                if (*q >= 'A' && *q <= 'Z')
                        *q = (char) (*q - 'A' + 'a');
        if (streq(domain, "docker.io"))
                return streq(host, "docker.io") || streq(host, "index.docker.io") ||
                       streq(host, "registry-1.docker.io");
        return streq(host, domain);
}

int registry_dockerconfig_creds(const char *json, size_t len, const char *domain,
                                struct registry_credential **creds, size_t *n_creds,
                                struct error **reterr)
{
        json_error_t jerr;
        cleanup_json json_t *j = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
        json_t *auths, *v;
        const char *key;

        if (!json_is_object(j) || !json_is_object(auths = json_object_get(j, "auths")))
                return error_set(reterr, EINVAL, "not a docker config: no \"auths\" object");
        json_object_foreach(auths, key, v) {
                const char *auth = json_string_value(json_object_get(v, "auth"));
                const char *user = json_string_value(json_object_get(v, "username"));
                const char *pass = json_string_value(json_object_get(v, "password"));
                cleanup_free char *dec = NULL;
                char *colon;
                size_t dn;

                if (!key_matches(key, domain))
                        continue;
                if (auth && *auth) {
                        if (base64_decode(auth, strlen(auth), &dec, &dn, NULL) < 0 ||
                            memchr(dec, '\0', dn) || !(colon = strchr(dec, ':')))
                                return error_set(
                                        reterr, EINVAL,
                                        "docker config: \"auth\" of \"%s\" is not base64 of user:password",
                                        key);
                        *colon = '\0';
                        user = dec;
                        pass = colon + 1;
                }
                if (!user || !pass)
                        continue;
                *creds = xrealloc(*creds, (*n_creds + 1) * sizeof(**creds));
                (*creds)[(*n_creds)++] = (struct registry_credential){ .username = xstrdup(user),
                                                                       .password = xstrdup(pass) };
                if (dec)
                        explicit_bzero(dec, dn);
        }
        return 0;
}

/* ------------------------------------------------------------------ manifests */

enum registry_media registry_media_kind(const char *mt)
{
        if (!mt)
                return REGISTRY_MEDIA_UNKNOWN;
        if (streq(mt, MT_OCI_INDEX) || streq(mt, MT_DOCKER_LIST))
                return REGISTRY_MEDIA_INDEX;
        if (streq(mt, MT_OCI_MANIFEST) || streq(mt, MT_DOCKER_MANIFEST))
                return REGISTRY_MEDIA_MANIFEST;
        return REGISTRY_MEDIA_UNKNOWN;
}

static bool size_ok(const json_t *desc, int64_t max)
{
        const json_t *s = json_object_get(desc, "size");

        return json_is_integer(s) && json_integer_value(s) >= 0 && json_integer_value(s) <= max;
}

int registry_index_select(const json_t *index, const char *arch, char **ret_digest,
                          int64_t *ret_size, struct error **reterr)
{
        const json_t *ms = json_object_get(index, "manifests"), *d;
        size_t i;

        if (!json_is_array(ms))
                return error_set(reterr, EINVAL, "index: no \"manifests\" list");
        json_array_foreach(ms, i, d) {
                const json_t *p = json_object_get(d, "platform");
                const char *os = json_string_value(json_object_get(p, "os"));
                const char *a = json_string_value(json_object_get(p, "architecture"));
                const char *digest = json_string_value(json_object_get(d, "digest"));
                const char *mt = json_string_value(json_object_get(d, "mediaType"));

                /* K8S: containerd's platforms.Only(DefaultSpec()): os and architecture must be
                 * named and equal; an entry without a platform (attestations) is not ours */
                if (!os || !a || !streq(os, "linux") || !streq(a, arch))
                        continue;
                if (registry_media_kind(mt) != REGISTRY_MEDIA_MANIFEST)
                        continue;
                if (!sha256_digest_ok(digest) || !size_ok(d, META_MAX))
                        return error_set(
                                reterr, EINVAL,
                                "index: manifest %zu has no sha256 digest or a size over %d bytes",
                                i, META_MAX);
                *ret_digest = xstrdup(digest);
                *ret_size = json_integer_value(json_object_get(d, "size"));
                return 0;
        }
        return error_set(reterr, ENOENT, "no match for platform in manifest: not found");
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
        for (size_t i = 0; s && i < n; i++)
                if (streq(s, list[i]))
                        return true;
        return false;
}

int registry_manifest_check(const json_t *m, struct error **reterr)
{
        const json_t *config = json_object_get(m, "config"), *layers = json_object_get(m, "layers"),
                     *l;
        const char *cmt = json_string_value(json_object_get(config, "mediaType"));
        size_t i;

        if (!json_is_object(config) ||
            !sha256_digest_ok(json_string_value(json_object_get(config, "digest"))) ||
            !size_ok(config, META_MAX))
                return error_set(
                        reterr, EINVAL,
                        "manifest: the config has no sha256 digest or a size over %d bytes",
                        META_MAX);
        if (!in_list(cmt, config_media_types, ARRAY_SIZE(config_media_types)))
                return error_set(reterr, EINVAL,
                                 "manifest: config media type \"%s\" is not an image's",
                                 cmt ? cmt : "");
        if (!json_is_array(layers) || json_array_size(layers) > LAYERS_MAX)
                return error_set(reterr, EINVAL, "manifest: no \"layers\" list (or over %d)",
                                 LAYERS_MAX);
        json_array_foreach(layers, i, l) {
                const char *mt = json_string_value(json_object_get(l, "mediaType"));

                if (!sha256_digest_ok(json_string_value(json_object_get(l, "digest"))) ||
                    !size_ok(l, LAYER_MAX))
                        return error_set(
                                reterr, EINVAL,
                                "manifest: layer %zu has no sha256 digest or a size over %lld bytes",
                                i, LAYER_MAX);
                if (!in_list(mt, layer_media_types, ARRAY_SIZE(layer_media_types)))
                        return error_set(reterr, EINVAL,
                                         "manifest: layer %zu: media type \"%s\" is not supported",
                                         i, mt ? mt : "");
        }
        return 0;
}

/* ------------------------------------------------------------------ HTTP */

struct resp {
        long status;
        char *content_type, *docker_digest, *www_auth;
        struct strbuf body; /* when fd < 0 */
        size_t cap;
        bool over;
        int fd; /* a blob's file, or -1 */
        CURL *c;
        size_t discarded; /* a blob request's body that was not a 200's */
        gnutls_hash_hd_t hash;
        uint64_t written, limit;
        int werr;
};

static void resp_release(struct resp *r)
{
        free(r->content_type);
        free(r->docker_digest);
        free(r->www_auth);
        strbuf_release(&r->body);
        if (r->hash)
                gnutls_hash_deinit(r->hash, NULL);
        *r = (struct resp){ .fd = -1 };
}

static char *header_value(const char *line, size_t n, const char *name)
{
        size_t nl = strlen(name);
        const char *v, *e;

        if (n <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
                return NULL;
        v = line + nl + 1;
        e = line + n;
        while (v < e && (*v == ' ' || *v == '\t'))
                v++;
        while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
                e--;
        return xstrndup(v, (size_t) (e - v));
}

static size_t on_header(char *buf, size_t size, size_t n, void *ud)
{
        struct resp *r = ud;
        size_t len = size * n;
        char *v;

        if (len >= 5 && !strncmp(buf, "HTTP/", 5)) { /* a new response (after a redirect) */
                free(r->content_type);
                free(r->docker_digest);
                free(r->www_auth);
                r->content_type = r->docker_digest = r->www_auth = NULL;
        } else if ((v = header_value(buf, len, "Content-Type"))) {
                free(r->content_type);
                r->content_type = v;
        } else if ((v = header_value(buf, len, "Docker-Content-Digest"))) {
                free(r->docker_digest);
                r->docker_digest = v;
        } else if ((v = header_value(buf, len, "WWW-Authenticate"))) {
                if (!r->www_auth)
                        r->www_auth = v; /* the first challenge */
                else
                        free(v);
        }
        return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ud)
{
        struct resp *r = ud;
        size_t len = size * n;

        if (r->fd < 0) {
                if (r->body.len + len > r->cap) {
                        r->over = true;
                        return 0;
                }
                strbuf_add(&r->body, buf, len);
                return len;
        }
        {
                long code = 0;
                (void) curl_easy_getinfo(r->c, CURLINFO_RESPONSE_CODE, &code);
                if (code != 200) { /* an error's body (a 401 before the auth dance): not the blob */
                        r->discarded += len;
                        if (r->discarded > META_MAX) {
                                r->over = true;
                                return 0;
                        }
                        return len;
                }
        }
        if (r->written + len > r->limit) {
                r->over = true;
                return 0;
        }
        for (size_t off = 0; off < len;) {
                ssize_t w = write(r->fd, buf + off, len - off);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        r->werr = errno;
                        return 0;
                }
                off += (size_t) w;
        }
        (void) gnutls_hash(r->hash, buf, len);
        r->written += len;
        return len;
}

struct pull {
        const char *image; /* the canonical reference, for messages */
        char *base;        /* "https://host:port/v2/<path>" */
        char *path;
        bool insecure;
        const struct registry_credential *cred; /* NULL: anonymous */
        char *authz;                            /* "Authorization: ..." once known */
        const int *cancel;
        CURL *c;
};

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
        const struct pull *p = ud;

        (void) dt, (void) dn, (void) ut, (void) un;
        return __atomic_load_n(p->cancel, __ATOMIC_RELAXED) ? 1 : 0;
}

/* One GET. Blob responses (r->fd >= 0) only count as the body when the status is 200. */
static int get_once(struct pull *p, const char *url, const char *accept, struct resp *r,
                    struct error **reterr)
{
        struct curl_slist *h = NULL;
        char errbuf[CURL_ERROR_SIZE] = "";
        CURLcode cc;

        curl_easy_reset(p->c);
        r->c = p->c;
        (void) curl_easy_setopt(p->c, CURLOPT_URL, url);
        (void) curl_easy_setopt(p->c, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(p->c, CURLOPT_PROTOCOLS_STR, p->insecure ? "http,https" : "https");
        (void) curl_easy_setopt(p->c, CURLOPT_REDIR_PROTOCOLS_STR,
                                p->insecure ? "http,https" : "https");
        (void) curl_easy_setopt(p->c, CURLOPT_FOLLOWLOCATION, 1L);
        (void) curl_easy_setopt(p->c, CURLOPT_MAXREDIRS, REDIRECTS_MAX);
        (void) curl_easy_setopt(p->c, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT);
        (void) curl_easy_setopt(p->c, CURLOPT_LOW_SPEED_LIMIT, 1L);
        (void) curl_easy_setopt(p->c, CURLOPT_LOW_SPEED_TIME, LOW_SPEED_TIME);
        (void) curl_easy_setopt(p->c, CURLOPT_SSL_VERIFYPEER, 1L);
        (void) curl_easy_setopt(p->c, CURLOPT_SSL_VERIFYHOST, 2L);
        (void) curl_easy_setopt(p->c, CURLOPT_ERRORBUFFER, errbuf);
        (void) curl_easy_setopt(p->c, CURLOPT_HEADERFUNCTION, on_header);
        (void) curl_easy_setopt(p->c, CURLOPT_HEADERDATA, r);
        (void) curl_easy_setopt(p->c, CURLOPT_WRITEFUNCTION, on_body);
        (void) curl_easy_setopt(p->c, CURLOPT_WRITEDATA, r);
        (void) curl_easy_setopt(p->c, CURLOPT_USERAGENT, "flexlet");
        if (p->cancel) {
                (void) curl_easy_setopt(p->c, CURLOPT_XFERINFOFUNCTION, on_progress);
                (void) curl_easy_setopt(p->c, CURLOPT_XFERINFODATA, p);
                (void) curl_easy_setopt(p->c, CURLOPT_NOPROGRESS, 0L);
        }
        if (accept) {
                cleanup_free char *a = xasprintf("Accept: %s", accept);
                h = curl_slist_append(h, a);
        }
        if (p->authz)
                h = curl_slist_append(h, p->authz);
        (void) curl_easy_setopt(p->c, CURLOPT_HTTPHEADER, h);
        cc = curl_easy_perform(p->c);
        curl_slist_free_all(h);
        (void) curl_easy_getinfo(p->c, CURLINFO_RESPONSE_CODE, &r->status);
        if (r->over)
                return error_set(reterr, EFBIG, "GET %s: the response is larger than %llu bytes",
                                 url, (unsigned long long) (r->fd < 0 ? r->cap : r->limit));
        if (r->werr)
                return error_set(reterr, r->werr, "GET %s: write: %s", url, strerror(r->werr));
        if (cc != CURLE_OK)
                return error_set(reterr, EIO, "failed to do request: Get \"%s\": %s", url,
                                 *errbuf ? errbuf : curl_easy_strerror(cc));
        return 0;
}

static char *escape(CURL *c, const char *s)
{
        char *e = curl_easy_escape(c, s, 0);
        char *r = xstrdup(e ? e : "");

        curl_free(e);
        return r;
}

/* K8S: the distribution token spec: GET realm?service=&scope= (basic auth with the credential
 * when there is one), {"token"} or {"access_token"}. */
static int fetch_token(struct pull *p, const struct registry_challenge *ch, struct error **reterr)
{
        struct resp r = { .fd = -1, .cap = TOKEN_MAX };
        struct strbuf url;

        strbuf_init(&r.body);
        cleanup_free char *scope = NULL, *u = NULL;
        json_t *j;
        const char *tok;
        json_error_t jerr;
        int rc;

        if (!ch->realm || (strncmp(ch->realm, "https://", 8) != 0 &&
                           !(p->insecure && strncmp(ch->realm, "http://", 7) == 0)))
                return error_set(reterr, EINVAL, "failed to authorize: realm \"%s\" is not %s",
                                 ch->realm ? ch->realm : "", p->insecure ? "http(s)" : "https");
        strbuf_init(&url);
        strbuf_addstr(&url, ch->realm);
        strbuf_addch(&url, strchr(ch->realm, '?') ? '&' : '?');
        if (ch->service) {
                cleanup_free char *s = escape(p->c, ch->service);
                strbuf_addf(&url, "service=%s&", s);
        }
        scope = ch->scope ? xstrdup(ch->scope) : xasprintf("repository:%s:pull", p->path);
        {
                cleanup_free char *s = escape(p->c, scope);
                strbuf_addf(&url, "scope=%s", s);
        }
        u = strbuf_detach(&url);
        free(p->authz);
        p->authz = NULL;
        if (p->cred) {
                cleanup_free char *up = xasprintf("%s:%s", p->cred->username, p->cred->password);
                cleanup_free char *b = base64_encode(up, strlen(up));
                p->authz = xasprintf("Authorization: Basic %s", b);
                explicit_bzero(up, strlen(up));
        }
        rc = get_once(p, u, "application/json", &r, reterr);
        free(p->authz);
        p->authz = NULL;
        if (rc < 0) {
                resp_release(&r);
                return error_wrap(reterr, "failed to authorize");
        }
        if (r.status != 200) {
                rc = error_set(
                        reterr, EACCES,
                        "failed to authorize: failed to fetch %s token: unexpected status from GET request to %s: %ld",
                        p->cred ? "oauth" : "anonymous", ch->realm, r.status);
                resp_release(&r);
                return rc;
        }
        j = json_loadb(r.body.buf ? r.body.buf : "", r.body.len, 0, &jerr);
        resp_release(&r);
        tok = json_string_value(json_object_get(j, "token"));
        if (!tok || !*tok)
                tok = json_string_value(json_object_get(j, "access_token"));
        if (!tok || !*tok || strlen(tok) > TOKEN_MAX || strpbrk(tok, "\r\n")) {
                json_decref(j);
                return error_set(reterr, EINVAL, "failed to authorize: no token in the response");
        }
        p->authz = xasprintf("Authorization: Bearer %s", tok);
        json_decref(j);
        return 0;
}

/* GET with the auth dance: a 401 with a challenge we can answer is answered once. */
static int get(struct pull *p, const char *url, const char *accept, struct resp *r,
               struct error **reterr)
{
        int rc = get_once(p, url, accept, r, reterr);
        struct registry_challenge ch = { 0 };

        if (rc < 0 || r->status != 401 || !r->www_auth)
                return rc;
        if (registry_challenge_parse(r->www_auth, &ch) < 0)
                return error_set(reterr, EPROTO, "unparsable WWW-Authenticate \"%s\"", r->www_auth);
        if (!strcasecmp(ch.scheme, "Bearer")) {
                rc = fetch_token(p, &ch, reterr);
        } else if (!strcasecmp(ch.scheme, "Basic") && p->cred) {
                cleanup_free char *up = xasprintf("%s:%s", p->cred->username, p->cred->password);
                cleanup_free char *b = base64_encode(up, strlen(up));
                free(p->authz);
                p->authz = xasprintf("Authorization: Basic %s", b);
                explicit_bzero(up, strlen(up));
        } else {
                registry_challenge_release(&ch);
                return 0; /* the caller reports the 401 */
        }
        registry_challenge_release(&ch);
        if (rc < 0)
                return rc;
        /* again, from nothing */
        if (r->fd >= 0) {
                if (ftruncate(r->fd, 0) < 0 || lseek(r->fd, 0, SEEK_SET) < 0)
                        return error_set(reterr, errno, "truncate: %s", strerror(errno));
                gnutls_hash_deinit(r->hash, NULL);
                r->hash = NULL;
                if (gnutls_hash_init(&r->hash, GNUTLS_DIG_SHA256) < 0)
                        return error_set(reterr, ENOMEM, "sha256: out of memory");
                r->written = 0;
        }
        strbuf_reset(&r->body);
        r->status = 0;
        r->discarded = 0;
        return get_once(p, url, accept, r, reterr);
}

/* ------------------------------------------------------------------ the pull */

/* The error of a pull as containerd words it through the CRI */
static int pull_error(struct error **reterr, int errnum, const char *code, const char *image,
                      const char *fmt, ...) _printf_(5, 6);
static int pull_error(struct error **reterr, int errnum, const char *code, const char *image,
                      const char *fmt, ...)
{
        va_list ap;
        char *detail;

        va_start(ap, fmt);
        if (vasprintf(&detail, fmt, ap) < 0)
                abort();
        va_end(ap);
        if (reterr && *reterr)
                *reterr = error_free(*reterr);
        error_set(reterr, errnum,
                  "rpc error: code = %s desc = failed to pull and unpack image \"%s\": %s", code,
                  image, detail);
        free(detail);
        return -errnum;
}

static const char *accept_manifests =
        MT_OCI_INDEX ", " MT_OCI_MANIFEST ", " MT_DOCKER_LIST ", " MT_DOCKER_MANIFEST;

/* Fetches the manifest or index `ref` (a tag or digest) into *ret (bytes) and *ret_mt. When
 * want_digest is given the bytes must hash to it; with a tag, a Docker-Content-Digest the
 * registry sends must match them. */
static int fetch_manifest(struct pull *p, const char *ref, const char *want_digest,
                          int64_t want_size, char **ret, size_t *ret_len, char **ret_mt,
                          char **ret_digest, struct error **reterr)
{
        cleanup_free char *url = xasprintf("%s/manifests/%s", p->base, ref);
        struct resp r = { .fd = -1, .cap = META_MAX };
        char got[65];
        int rc;

        strbuf_init(&r.body);
        rc = get(p, url, accept_manifests, &r, reterr);

        if (rc < 0) {
                resp_release(&r);
                return pull_error(reterr, -rc, "Unknown", p->image,
                                  "failed to resolve reference \"%s\": %s", p->image,
                                  (*reterr)->message);
        }
        if (r.status == 404) {
                resp_release(&r);
                return pull_error(reterr, ENOENT, "NotFound", p->image,
                                  "failed to resolve reference \"%s\": %s: not found", p->image,
                                  p->image);
        }
        if (r.status != 200) {
                bool denied = r.status == 401 || r.status == 403;

                rc = pull_error(
                        reterr, denied ? EACCES : EIO, "Unknown", p->image,
                        "failed to resolve reference \"%s\": %sunexpected status from GET request to %s: %ld",
                        p->image,
                        denied ? "pull access denied, repository does not exist or may require "
                                 "authorization: "
                               : "",
                        url, r.status);
                resp_release(&r);
                return rc;
        }
        sha256_mem(r.body.buf ? r.body.buf : "", r.body.len, got);
        {
                cleanup_free char *d = xasprintf("sha256:%s", got);
                const char *expect = want_digest ? want_digest : r.docker_digest;
                if ((want_digest || (expect && !strncmp(expect, "sha256:", 7))) &&
                    !streq(d, expect)) {
                        rc = pull_error(
                                reterr, EBADMSG, "FailedPrecondition", p->image,
                                "failed commit on ref \"manifest-%s\": unexpected commit digest %s, expected %s: failed precondition",
                                expect, d, expect);
                        resp_release(&r);
                        return rc;
                }
                if (want_size >= 0 && (int64_t) r.body.len != want_size) {
                        rc = pull_error(reterr, EBADMSG, "FailedPrecondition", p->image,
                                        "manifest %s: %zu bytes, its descriptor says %lld", d,
                                        r.body.len, (long long) want_size);
                        resp_release(&r);
                        return rc;
                }
                *ret_digest = TAKE_PTR(d);
        }
        *ret_mt = r.content_type ? xstrdup(r.content_type) : NULL;
        *ret_len = r.body.len;
        *ret = strbuf_detach(&r.body);
        resp_release(&r);
        return 0;
}

/* Fetches blob `digest` of `size` bytes into file `name` of dirfd, checked. */
static int fetch_blob(struct pull *p, int dirfd, const char *digest, int64_t size, const char *what,
                      struct error **reterr)
{
        cleanup_free char *url = xasprintf("%s/blobs/%s", p->base, digest);
        cleanup_free char *tmp = xasprintf(".part-%s", digest + 7);
        struct resp r = { .fd = -1 };
        unsigned char d[32];
        char got[65];
        int rc;

        strbuf_init(&r.body);
        r.fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (r.fd < 0)
                return error_set(reterr, errno, "create %s: %s", tmp, strerror(errno));
        r.limit = (uint64_t) size;
        if (gnutls_hash_init(&r.hash, GNUTLS_DIG_SHA256) < 0) {
                close(r.fd);
                return error_set(reterr, ENOMEM, "sha256: out of memory");
        }
        rc = get(p, url, NULL, &r, reterr);
        if (rc >= 0 && r.status != 200)
                rc = pull_error(
                        reterr, r.status == 404 ? ENOENT : EIO,
                        r.status == 404 ? "NotFound" : "Unknown", p->image,
                        "failed to copy: httpReadSeeker: failed open: unexpected status code %s: %ld",
                        url, r.status);
        else if (rc < 0)
                rc = pull_error(reterr, -rc, "Unknown", p->image, "failed to copy: %s",
                                (*reterr)->message);
        if (rc >= 0) {
                gnutls_hash_deinit(r.hash, d);
                r.hash = NULL;
                hex32(d, got);
                if (!streq(got, digest + 7) || r.written != (uint64_t) size) {
                        rc = pull_error(
                                reterr, EBADMSG, "FailedPrecondition", p->image,
                                "failed commit on ref \"%s-%s\": unexpected commit digest sha256:%s (%llu bytes), expected %s (%lld bytes): failed precondition",
                                what, digest, got, (unsigned long long) r.written, digest,
                                (long long) size);
                }
        }
        if (rc >= 0 && fsync(r.fd) < 0)
                rc = error_set(reterr, errno, "fsync %s: %s", tmp, strerror(errno));
        close(r.fd);
        r.fd = -1;
        if (rc >= 0 && renameat(dirfd, tmp, dirfd, digest + 7) < 0)
                rc = error_set(reterr, errno, "rename %s: %s", tmp, strerror(errno));
        if (rc < 0)
                (void) unlinkat(dirfd, tmp, 0);
        resp_release(&r);
        return rc;
}

static bool host_insecure(const char *domain, const char *const *insecure)
{
        for (size_t i = 0; insecure && insecure[i]; i++)
                if (streq(insecure[i], domain))
                        return true;
        return false;
}

static int write_file_at(int dfd, const char *name, const void *buf, size_t len)
{
        cleanup_close int fd =
                openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);

        if (fd < 0)
                return -errno;
        if (write(fd, buf, len) != (ssize_t) len)
                return -EIO;
        return 0;
}

/* One attempt with one credential (or none) into the layout at dfd (blobs at bfd). */
static int pull_into(struct pull *p, const struct rt_image_name *n, const char *images, int dfd,
                     int bfd, struct registry_pull_result *res, struct error **reterr)
{
        cleanup_free char *body = NULL, *mt = NULL, *digest = NULL;
        size_t len;
        json_t *m = NULL, *layers, *diff_ids = NULL, *cfg = NULL, *idx;
        const char *cdigest;
        int64_t csize;
        int rc;

        rc = fetch_manifest(p, n->digest ? n->digest : n->tag, n->digest, -1, &body, &len, &mt,
                            &digest, reterr);
        if (rc < 0)
                return rc;
        for (int depth = 0;; depth++) {
                json_error_t jerr;
                const char *field;
                enum registry_media kind;

                json_decref(m);
                m = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
                if (!json_is_object(m)) {
                        json_decref(m);
                        return pull_error(reterr, EINVAL, "Unknown", p->image,
                                          "manifest %s: not a JSON object", digest);
                }
                field = json_string_value(json_object_get(m, "mediaType"));
                kind = registry_media_kind(field ? field : mt);
                if (kind == REGISTRY_MEDIA_MANIFEST)
                        break;
                if (kind != REGISTRY_MEDIA_INDEX || depth > 0) {
                        rc = pull_error(reterr, EINVAL, "Unknown", p->image,
                                        "manifest %s: media type \"%s\" is not supported", digest,
                                        field ? field
                                        : mt  ? mt
                                              : "");
                        json_decref(m);
                        return rc;
                }
                {
                        cleanup_free char *sel = NULL;
                        int64_t size;
                        cleanup_error struct error *e = NULL;
                        rc = registry_index_select(m, registry_arch(), &sel, &size, &e);
                        if (rc < 0) {
                                json_decref(m);
                                return pull_error(reterr, -rc,
                                                  rc == -ENOENT ? "NotFound" : "Unknown", p->image,
                                                  "%s", e->message);
                        }
                        free(body);
                        free(mt);
                        free(digest);
                        body = mt = digest = NULL;
                        rc = fetch_manifest(p, sel, sel, size, &body, &len, &mt, &digest, reterr);
                        if (rc < 0) {
                                json_decref(m);
                                return rc;
                        }
                }
        }
        {
                cleanup_error struct error *e = NULL;
                if ((rc = registry_manifest_check(m, &e)) < 0) {
                        json_decref(m);
                        return pull_error(reterr, -rc, "Unknown", p->image, "%s: %s", digest,
                                          e->message);
                }
        }
        cdigest = json_string_value(json_object_get(json_object_get(m, "config"), "digest"));
        csize = json_integer_value(json_object_get(json_object_get(m, "config"), "size"));
        layers = json_object_get(m, "layers");
        rc = fetch_blob(p, bfd, cdigest, csize, "config", reterr);
        if (rc >= 0) {
                cleanup_free char *cpath = xasprintf("blobs/sha256/%s", cdigest + 7);
                cleanup_close int cfd = openat(dfd, cpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                json_error_t jerr;
                cfg = cfd < 0 ? NULL : json_loadfd(cfd, JSON_REJECT_DUPLICATES, &jerr);
                diff_ids = json_object_get(json_object_get(cfg, "rootfs"), "diff_ids");
                if (!json_is_array(diff_ids) ||
                    json_array_size(diff_ids) != json_array_size(layers))
                        rc = pull_error(reterr, EINVAL, "Unknown", p->image,
                                        "config %s: rootfs.diff_ids does not list the %zu layers",
                                        cdigest, json_array_size(layers));
        }
        res->size = (uint64_t) csize;
        for (size_t i = 0; rc >= 0 && i < json_array_size(layers); i++) {
                const json_t *l = json_array_get(layers, i);
                const char *ld = json_string_value(json_object_get(l, "digest"));
                const char *diff = json_string_value(json_array_get(diff_ids, i));
                int64_t ls = json_integer_value(json_object_get(l, "size"));

                res->size += (uint64_t) ls;
                /* a layer the store has unpacked (by diffID) is not fetched again */
                if (sha256_digest_ok(diff)) {
                        cleanup_free char *have = xasprintf("%s/layers/%s", images, diff + 7);
                        if (access(have, F_OK) == 0)
                                continue;
                }
                if (faccessat(bfd, ld + 7, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                        continue; /* the same blob twice in one manifest */
                rc = fetch_blob(p, bfd, ld, ls, "layer", reterr);
                if (rc >= 0)
                        res->layers_new++;
        }
        json_decref(cfg);
        if (rc >= 0 && write_file_at(bfd, digest + 7, body, len) < 0)
                rc = error_set(reterr, EIO, "write the manifest: %s", strerror(EIO));
        if (rc >= 0) {
                const char *rmt = json_string_value(json_object_get(m, "mediaType"));
                static const char layout[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
                char *text;
                idx = json_pack("{s:i, s:[{s:s, s:s, s:I, s:{s:s}}]}", "schemaVersion", 2,
                                "manifests", "mediaType",
                                rmt  ? rmt
                                : mt ? mt
                                     : MT_OCI_MANIFEST,
                                "digest", digest, "size", (json_int_t) len, "annotations",
                                "io.containerd.image.name", n->reference);
                text = json_dumps(idx, JSON_COMPACT);
                json_decref(idx);
                if (write_file_at(dfd, "index.json", text, strlen(text)) < 0 ||
                    write_file_at(dfd, "oci-layout", layout, strlen(layout)) < 0)
                        rc = error_set(reterr, EIO, "write the layout: %s", strerror(EIO));
                free(text);
        }
        json_decref(m);
        return rc;
}

int registry_pull(const char *data_dir, const char *image, const struct registry_pull_options *o,
                  struct registry_pull_result *ret, struct error **reterr)
{
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        cleanup_free char *tmp = NULL, *host = NULL;
        struct registry_pull_result res = { 0 };
        struct rt_image_name n;
        struct pull p = { 0 };
        json_t *refs = NULL;
        int rc, dfd = -1, bfd = -1;

        rc = rt_image_name_parse(image, &n, reterr);
        if (rc < 0)
                return rc;
        if (n.digest && strncmp(n.digest, "sha256:", 7) != 0) {
                rc = error_set(reterr, EINVAL, "image \"%s\": only sha256 digests are pulled",
                               image);
                rt_image_name_release(&n);
                return rc;
        }
        p.image = n.reference;
        p.path = n.path;
        p.insecure = host_insecure(n.domain, o->insecure);
        p.cancel = o->cancel;
        /* K8S: docker.io's registry host (containerd's docker resolver) */
        host = xstrdup(streq(n.domain, "docker.io") ? "registry-1.docker.io" : n.domain);
        p.base = xasprintf("%s://%s/v2/%s", p.insecure ? "http" : "https", host, n.path);
        if (http_curl_setup(reterr) < 0) {
                rc = -EIO;
                goto out;
        }
        p.c = curl_easy_init();
        if (!p.c) {
                rc = error_set(reterr, ENOMEM, "curl: out of memory");
                goto out;
        }
        if ((rc = fs_mkdir_p(images, 0755)) < 0) {
                rc = error_set(reterr, -rc, "create \"%s\": %s", images, strerror(-rc));
                goto out;
        }
        /* anonymous first, then each credential (K8S: the kubelet tries the keyring's matches in
         * turn and keeps the first that pulls) */
        for (size_t attempt = 0; attempt <= o->n_creds; attempt++) {
                cleanup_error struct error *e = NULL;

                if (tmp) {
                        (void) fs_remove_tree(tmp);
                        free(tmp);
                }
                if (dfd >= 0)
                        close(dfd);
                if (bfd >= 0)
                        close(bfd);
                dfd = bfd = -1;
                tmp = xasprintf("%s/.tmp-pull-XXXXXX", images);
                if (!mkdtemp(tmp)) {
                        rc = error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
                        free(tmp);
                        tmp = NULL;
                        goto out;
                }
                if ((dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
                    mkdirat(dfd, "blobs", 0755) < 0 || mkdirat(dfd, "blobs/sha256", 0755) < 0 ||
                    (bfd = openat(dfd, "blobs/sha256", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                        rc = error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
                        goto out;
                }
                free(p.authz);
                p.authz = NULL;
                p.cred = attempt == 0 ? NULL : &o->creds[attempt - 1];
                res.size = 0;
                res.layers_new = 0;
                rc = pull_into(&p, &n, images, dfd, bfd, &res, &e);
                if (rc >= 0)
                        break;
                /* only an authorization failure is worth another credential */
                if (rc != -EACCES || attempt == o->n_creds) {
                        if (reterr)
                                *reterr = TAKE_PTR(e);
                        goto out;
                }
        }
        rc = rt_image_import_tree(data_dir, dfd, n.reference, NULL, &refs, reterr);
        if (rc < 0) {
                pull_error(reterr, -rc, "Unknown", n.reference, "failed to extract layer: %s",
                           (*reterr)->message);
                goto out;
        }
        json_decref(refs);
        res.reference = xstrdup(n.reference);
        *ret = res;
        rc = 0;
out:
        if (dfd >= 0)
                close(dfd);
        if (bfd >= 0)
                close(bfd);
        if (tmp)
                (void) fs_remove_tree(tmp);
        if (p.c)
                curl_easy_cleanup(p.c);
        free(p.base);
        free(p.authz);
        rt_image_name_release(&n);
        return rc;
}
