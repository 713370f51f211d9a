/* test-registry.c: the registry client (node/runtime/registry.h) against canned inputs: the
 * WWW-Authenticate parser, dockerconfigjson credentials and their registry matching, index
 * platform selection, manifest checks (unknown media types, sizes), and whole pulls from a
 * canned registry on 127.0.0.1 that asks for a Bearer token (basic auth at its realm), serves
 * an index, and for one tag a layer whose bytes are not its digest: that pull fails with
 * containerd's words and leaves nothing in the store; the good one is stored and loads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/runtime/registry.h"
#include "node/runtime/runtime.h"

static void test_challenge(void **state)
{
        struct registry_challenge c;

        (void) state;
        assert_int_equal(
                registry_challenge_parse(
                        "Bearer realm=\"https://auth.example/token\",service=\"reg.example\",scope=\"repository:a/b:pull\"",
                        &c),
                0);
        assert_string_equal(c.scheme, "Bearer");
        assert_string_equal(c.realm, "https://auth.example/token");
        assert_string_equal(c.service, "reg.example");
        assert_string_equal(c.scope, "repository:a/b:pull");
        registry_challenge_release(&c);
        assert_int_equal(registry_challenge_parse("Basic realm=\"basic-realm\"", &c), 0);
        assert_string_equal(c.scheme, "Basic");
        assert_null(c.service);
        registry_challenge_release(&c);
        assert_int_equal(registry_challenge_parse("Bearer realm=\"unterminated", &c), -EINVAL);
        assert_int_equal(registry_challenge_parse("", &c), -EINVAL);
        assert_int_equal(registry_challenge_parse("Bearer =x", &c), -EINVAL);
}

static void test_dockerconfig(void **state)
{
        /* "dXNlcjpwYTpzcw==" is user:pa:ss (the password may hold ':') */
        const char *cfg =
                "{\"auths\":{\"https://reg.example:5000/v1/\":{\"auth\":\"dXNlcjpwYTpzcw==\"},"
                "\"other.example\":{\"username\":\"o\",\"password\":\"p\"},"
                "\"https://index.docker.io/v1/\":{\"username\":\"d\",\"password\":\"h\"}}}";
        struct registry_credential *c = NULL;
        struct error *err = NULL;
        size_t n = 0;

        (void) state;
        assert_int_equal(
                registry_dockerconfig_creds(cfg, strlen(cfg), "reg.example:5000", &c, &n, NULL), 0);
        assert_int_equal(n, 1);
        assert_string_equal(c[0].username, "user");
        assert_string_equal(c[0].password, "pa:ss");
        assert_int_equal(registry_dockerconfig_creds(cfg, strlen(cfg), "docker.io", &c, &n, NULL),
                         0);
        assert_int_equal(n, 2);
        assert_string_equal(c[1].username, "d");
        assert_int_equal(registry_dockerconfig_creds(cfg, strlen(cfg), "reg.example", &c, &n, NULL),
                         0);
        assert_int_equal(n, 2); /* the port is part of the registry */
        registry_credentials_free(c, n);
        c = NULL;
        n = 0;
        assert_int_equal(registry_dockerconfig_creds("[]", 2, "x", &c, &n, &err), -EINVAL);
        error_free(err);
        err = NULL;
        cfg = "{\"auths\":{\"x\":{\"auth\":\"!!\"}}}";
        assert_int_equal(registry_dockerconfig_creds(cfg, strlen(cfg), "x", &c, &n, &err), -EINVAL);
        assert_non_null(strstr(err->message, "\"auth\" of \"x\" is not base64"));
        error_free(err);
        assert_int_equal(n, 0);
}

#define D(c)                                                                                       \
 "sha256:" c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
         c c c c c c c c c c c c c c c c c c c c

static void test_index_select(void **state)
{
        json_error_t e;
        json_t *idx = json_loads(
                "{\"manifests\":["
                "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" D(
                        "a") "\",\"size\":10,\"platform\":{\"os\":\"linux\",\"architecture\":\"arm64\"}},"
                             "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" D(
                                     "b") "\",\"size\":11,\"platform\":{\"os\":\"windows\",\"architecture\":\"amd64\"}},"
                                          "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" D(
                                                  "c") "\",\"size\":12},"
                                                       "{\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\",\"digest\":\"" D(
                                                               "d") "\",\"size\":13,\"platform\":{\"os\":\"linux\",\"architecture\":\"amd64\"}}]}",
                0, &e);
        struct error *err = NULL;
        char *d = NULL;
        int64_t size = 0;

        (void) state;
        assert_int_equal(registry_index_select(idx, "amd64", &d, &size, NULL), 0);
        assert_string_equal(d, D("d"));
        assert_int_equal(size, 13);
        free(d);
        assert_int_equal(registry_index_select(idx, "arm64", &d, &size, NULL), 0);
        assert_string_equal(d, D("a"));
        free(d);
        assert_int_equal(registry_index_select(idx, "s390x", &d, &size, &err), -ENOENT);
        error_free(err);
        json_decref(idx);
        idx = json_loads(
                "{\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:short\",\"size\":1,\"platform\":{\"os\":\"linux\",\"architecture\":\"amd64\"}}]}",
                0, &e);
        err = NULL;
        assert_int_equal(registry_index_select(idx, "amd64", &d, &size, &err), -EINVAL);
        error_free(err);
        json_decref(idx);
}

static void test_manifest_check(void **state)
{
        json_error_t e;
        struct error *err = NULL;
        json_t *m;

        (void) state;
        assert_int_equal(registry_media_kind("application/vnd.oci.image.index.v1+json"),
                         REGISTRY_MEDIA_INDEX);
        assert_int_equal(
                registry_media_kind("application/vnd.docker.distribution.manifest.v1+prettyjws"),
                REGISTRY_MEDIA_UNKNOWN);
        m = json_loads(
                "{\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"" D(
                        "a") "\",\"size\":3},"
                             "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"" D(
                                     "b") "\",\"size\":4}]}",
                0, &e);
        assert_int_equal(registry_manifest_check(m, NULL), 0);
        json_object_set_new(json_array_get(json_object_get(m, "layers"), 0), "mediaType",
                            json_string("application/vnd.example.weird"));
        assert_int_equal(registry_manifest_check(m, &err), -EINVAL);
        assert_non_null(strstr(err->message, "\"application/vnd.example.weird\" is not supported"));
        error_free(err);
        err = NULL;
        json_object_set_new(json_array_get(json_object_get(m, "layers"), 0), "mediaType",
                            json_string("application/vnd.oci.image.layer.v1.tar"));
        json_object_set_new(json_object_get(m, "config"), "size", json_integer(-1));
        assert_int_equal(registry_manifest_check(m, &err), -EINVAL);
        error_free(err);
        err = NULL;
        json_object_set_new(json_object_get(m, "config"), "size", json_integer(3));
        json_object_set_new(json_object_get(m, "config"), "mediaType",
                            json_string("application/vnd.cncf.helm.config.v1+json"));
        assert_int_equal(registry_manifest_check(m, &err), -EINVAL);
        error_free(err);
        json_decref(m);
}

/* ------------------------------------------------------------------ a canned registry */

struct blob {
        char path[160];
        const char *type;
        char *body;
        size_t len;
};
static struct blob blobs[8];
static size_t n_blobs;
static int port;

static void sha256_hex(const void *p, size_t n, char out[72])
{
        unsigned char d[32];

        (void) gnutls_hash_fast(GNUTLS_DIG_SHA256, p, n, d);
        strcpy(out, "sha256:");
        for (int i = 0; i < 32; i++)
                snprintf(out + 7 + 2 * i, 3, "%02x", d[i]);
}

static void add_blob(const char *path, const char *type, const void *body, size_t len)
{
        struct blob *b = &blobs[n_blobs++];

        snprintf(b->path, sizeof(b->path), "%s", path);
        b->type = type;
        b->body = xmalloc(len + 1);
        memcpy(b->body, body, len);
        b->len = len;
}

static void *serve(void *arg)
{
        int ls = *(int *) arg;

        for (;;) {
                char req[8192], path[512] = "";
                size_t got = 0;
                int fd = accept(ls, NULL, NULL);
                const struct blob *b = NULL;
                char head[1024];

                if (fd < 0)
                        return NULL;
                while (got < sizeof(req) - 1) {
                        ssize_t n = read(fd, req + got, sizeof(req) - 1 - got);
                        if (n <= 0)
                                break;
                        got += (size_t) n;
                        req[got] = '\0';
                        if (strstr(req, "\r\n\r\n"))
                                break;
                }
                req[got] = '\0';
                (void) sscanf(req, "GET %511s", path);
                if (!strncmp(path, "/token", 6)) {
                        /* u:p */
                        static const struct blob token = { .type = "application/json",
                                                           .body = "{\"token\":\"tok\"}",
                                                           .len = 15 };
                        if (strstr(req, "Authorization: Basic dTpw"))
                                b = &token;
                } else if (!strstr(req, "Authorization: Bearer tok")) {
                        snprintf(
                                head, sizeof(head),
                                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"http://127.0.0.1:%d/token\",service=\"canned\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                                port);
                        (void) !write(fd, head, strlen(head));
                        close(fd);
                        continue;
                } else {
                        for (size_t i = 0; i < n_blobs; i++)
                                if (!strcmp(blobs[i].path, path))
                                        b = &blobs[i];
                }
                if (!b) {
                        const char *nf =
                                "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                        (void) !write(fd, nf, strlen(nf));
                } else {
                        snprintf(
                                head, sizeof(head),
                                "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                                b->type, b->len);
                        (void) !write(fd, head, strlen(head));
                        (void) !write(fd, b->body, b->len);
                }
                close(fd);
        }
}

/* a tar of one file, "hello.txt" */
static size_t make_tar(char *buf)
{
        const char *text = "hello from the canned registry\n";
        unsigned sum = 0;

        memset(buf, 0, 2048);
        strcpy(buf, "hello.txt");
        strcpy(buf + 100, "0000644");
        strcpy(buf + 108, "0000000");
        strcpy(buf + 116, "0000000");
        snprintf(buf + 124, 12, "%011o", (unsigned) strlen(text));
        strcpy(buf + 136, "14000000000");
        memset(buf + 148, ' ', 8);
        buf[156] = '0';
        memcpy(buf + 257, "ustar", 6);
        memcpy(buf + 263, "00", 2);
        for (int i = 0; i < 512; i++)
                sum += (unsigned char) buf[i];
        snprintf(buf + 148, 8, "%06o", sum);
        memcpy(buf + 512, text, strlen(text));
        return 2048;
}

static void test_pull(void **state)
{
        char tar[2048], ld[72], cd[72], md[72], badm[72], path[256],
                data[] = "/tmp/test-registry-XXXXXX";
        char *config, *manifest, *bad, *index;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof(a);
        int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        pthread_t t;
        size_t tl = make_tar(tar);
        char host[64], image[128];
        const char *insecure[2] = { host, NULL };
        struct registry_credential cred = { .username = "u", .password = "p" };
        struct registry_pull_options o = { .insecure = insecure, .creds = &cred, .n_creds = 1 };
        struct registry_pull_result res = { 0 };
        struct runtime_image img = { 0 };
        struct error *err = NULL;
        int r;

        (void) state;
        assert_non_null(mkdtemp(data));
        assert_int_equal(bind(ls, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(listen(ls, 16), 0);
        assert_int_equal(getsockname(ls, (struct sockaddr *) &a, &al), 0);
        port = ntohs(a.sin_port);
        snprintf(host, sizeof(host), "127.0.0.1:%d", port);

        sha256_hex(tar, tl, ld);
        config = xasprintf(
                "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/hello\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"%s\"]}}",
                ld);
        sha256_hex(config, strlen(config), cd);
        manifest = xasprintf(
                "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"%s\",\"size\":%zu},"
                "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"%s\",\"size\":%zu}]}",
                cd, strlen(config), ld, tl);
        sha256_hex(manifest, strlen(manifest), md);
        index = xasprintf(
                "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":["
                "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" D(
                        "e") "\",\"size\":5,\"platform\":{\"os\":\"linux\",\"architecture\":\"riscv64\"}},"
                             "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"%s\",\"size\":%zu,\"platform\":{\"os\":\"linux\",\"architecture\":\"%s\"}}]}",
                md, strlen(manifest), registry_arch());
        /* "bad": a manifest whose layer is served with other bytes than its digest */
        bad = xasprintf(
                "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"%s\",\"size\":%zu},"
                "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"" D(
                        "f") "\",\"size\":%zu}]}",
                cd, strlen(config), tl);
        sha256_hex(bad, strlen(bad), badm);
        snprintf(path, sizeof(path), "/v2/test/img/manifests/good");
        add_blob(path, "application/vnd.oci.image.index.v1+json", index, strlen(index));
        snprintf(path, sizeof(path), "/v2/test/img/manifests/%s", md);
        add_blob(path, "application/vnd.oci.image.manifest.v1+json", manifest, strlen(manifest));
        snprintf(path, sizeof(path), "/v2/test/img/blobs/%s", cd);
        add_blob(path, "application/octet-stream", config, strlen(config));
        snprintf(path, sizeof(path), "/v2/test/img/blobs/%s", ld);
        add_blob(path, "application/octet-stream", tar, tl);
        snprintf(path, sizeof(path), "/v2/test/img/manifests/bad");
        add_blob(path, "application/vnd.oci.image.manifest.v1+json", bad, strlen(bad));
        snprintf(path, sizeof(path), "/v2/test/img/blobs/%s", D("f"));
        add_blob(path, "application/octet-stream", tar, tl); /* not its digest */
        assert_int_equal(pthread_create(&t, NULL, serve, &ls), 0);

        /* a layer that is not its digest: containerd's FailedPrecondition, nothing stored */
        snprintf(image, sizeof(image), "%s/test/img:bad", host);
        r = registry_pull(data, image, &o, &res, &err);
        if (r != -EBADMSG)
                fprintf(stderr, "%s\n", err ? err->message : "");
        assert_int_equal(r, -EBADMSG);
        assert_non_null(strstr(
                err->message,
                "rpc error: code = FailedPrecondition desc = failed to pull and unpack image"));
        assert_non_null(strstr(err->message, "unexpected commit digest"));
        error_free(err);
        err = NULL;
        assert_int_equal(runtime_image_ensure(data, image, &img, &err), -ENOENT);
        error_free(err);
        err = NULL;
        {
                cleanup_free char *layers = xasprintf("%s/images/layers", data);
                assert_int_not_equal(access(layers, F_OK), 0);
        }

        /* a tag that is not there: NotFound */
        snprintf(image, sizeof(image), "%s/test/img:absent", host);
        assert_int_equal(registry_pull(data, image, &o, &res, &err), -ENOENT);
        assert_non_null(strstr(err->message, "rpc error: code = NotFound desc = "));
        assert_non_null(strstr(err->message, ": not found"));
        error_free(err);
        err = NULL;

        /* without the credential the token endpoint refuses */
        snprintf(image, sizeof(image), "%s/test/img:good", host);
        {
                struct registry_pull_options anon = { .insecure = insecure };
                assert_int_equal(registry_pull(data, image, &anon, &res, &err), -EACCES);
                assert_non_null(strstr(err->message, "failed to fetch anonymous token"));
                error_free(err);
                err = NULL;
        }
        /* not named insecure: https only, which this server does not speak */
        {
                struct registry_pull_options tls = { .creds = &cred, .n_creds = 1 };
                assert_true(registry_pull(data, image, &tls, &res, &err) < 0);
                error_free(err);
                err = NULL;
        }

        /* the index → this platform's manifest → config and layer, token auth */
        assert_int_equal(registry_pull(data, image, &o, &res, &err), 0);
        assert_int_equal(res.layers_new, 1);
        assert_int_equal(res.size, strlen(config) + tl);
        registry_pull_result_release(&res);
        assert_int_equal(runtime_image_ensure(data, image, &img, &err), 0);
        assert_string_equal(img.id, cd);
        snprintf(path, sizeof(path), "%s/hello.txt", img.lowerdirs[0]);
        assert_int_equal(access(path, F_OK), 0);
        runtime_image_release(&img);
        /* again: the layer is in the store, not fetched */
        assert_int_equal(registry_pull(data, image, &o, &res, &err), 0);
        assert_int_equal(res.layers_new, 0);
        registry_pull_result_release(&res);

        shutdown(ls, SHUT_RDWR);
        close(ls);
        pthread_join(t, NULL);
        (void) fs_remove_tree(data);
        free(config);
        free(manifest);
        free(bad);
        free(index);
        for (size_t i = 0; i < n_blobs; i++)
                free(blobs[i].body);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_challenge),    cmocka_unit_test(test_dockerconfig),
                cmocka_unit_test(test_index_select), cmocka_unit_test(test_manifest_check),
                cmocka_unit_test(test_pull),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
