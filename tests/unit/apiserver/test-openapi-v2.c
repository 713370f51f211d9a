/* test-openapi-v2.c: /openapi/v2 in both forms: the JSON document and the gnostic protobuf
 * Document, read back with the protowire reader, name every kind of the resource table with its
 * x-kubernetes-group-version-kind; kube-openapi's negotiation (406 without a body) and ETag
 * (304 on If-None-Match, weak or in a list). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "apiserver/discovery.h"
#include "apiserver/resources.h"
#include "base/json.h"
#include "base/protowire.h"
#include "http/http.h"

#define PB_ASKED "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

static void get(const char *accept, const char *if_none_match, struct http_response *resp)
{
        struct http_request req = { .method = "GET",
                                    .path = "/openapi/v2",
                                    .accept = accept,
                                    .if_none_match = if_none_match };

        http_response_init(resp);
        openapi_v2(&req, resp);
}

static void test_json(void **state)
{
        struct http_response resp;
        cleanup_json json_t *doc = NULL;

        get("application/json", NULL, &resp);
        assert_int_equal(resp.status, 200);
        assert_string_equal(resp.content_type, "application/json");
        doc = json_loadb(resp.body.buf, resp.body.len, 0, NULL);
        assert_non_null(doc);
        assert_string_equal(json_string_value(json_object_get(doc, "swagger")), "2.0");
        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                json_t *defs = json_object_get(doc, "definitions"), *d, *g;
                const char *key;
                bool found = false;

                json_object_foreach(defs, key, d) {
                        g = json_array_get(json_object_get(d, "x-kubernetes-group-version-kind"),
                                           0);
                        if (g && streq(json_string_value(json_object_get(g, "kind")), r->kind) &&
                            streq(json_string_value(json_object_get(g, "group")), r->group))
                                found = true;
                }
                if (!found)
                        fail_msg("no definition for %s", r->kind);
        }
        /* the patch strategy kubectl apply reads */
        {
                json_t *pod = json_object_get(json_object_get(doc, "definitions"),
                                              "io.k8s.api.core.v1.Pod");
                json_t *containers = json_object_get(
                        json_object_get(json_object_get(json_object_get(pod, "properties"), "spec"),
                                        "properties"),
                        "containers");

                assert_string_equal(json_string_value(json_object_get(
                                            containers, "x-kubernetes-patch-merge-key")),
                                    "name");
                assert_string_equal(json_string_value(json_object_get(
                                            containers, "x-kubernetes-patch-strategy")),
                                    "merge");
        }
        http_response_release(&resp);
}

/* The NamedAny vendor extensions of one protobuf Schema: appends "name=yaml;" for each. */
static void schema_extensions(const uint8_t *p, size_t len, char *out, size_t max)
{
        struct pbr r, named, any;
        struct pb_field f, g, h;

        pbr_init(&r, p, len);
        while (pbr_next(&r, &f) == 1) {
                char name[64] = "", yaml[256] = "";

                if (f.num != 31)
                        continue;
                assert_int_equal(pbr_sub(&r, &f, &named), 0);
                while (pbr_next(&named, &g) == 1) {
                        if (g.num == 1)
                                (void) snprintf(name, sizeof(name), "%.*s", (int) g.len, g.data);
                        if (g.num != 2)
                                continue;
                        assert_int_equal(pbr_sub(&named, &g, &any), 0);
                        while (pbr_next(&any, &h) == 1)
                                if (h.num == 2)
                                        (void) snprintf(yaml, sizeof(yaml), "%.*s", (int) h.len,
                                                        h.data);
                }
                (void) snprintf(out + strlen(out), max - strlen(out), "%s=%s;", name, yaml);
        }
}

static void test_protobuf(void **state)
{
        struct http_response resp;
        struct pbr r, defs, named;
        struct pb_field f, g, h;
        size_t n_defs = 0;
        bool pod = false;

        get(PB_ASKED, NULL, &resp);
        assert_int_equal(resp.status, 200);
        assert_string_equal(resp.content_type,
                            "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
        assert_non_null(resp.etag);
        pbr_init(&r, resp.body.buf, resp.body.len);
        while (pbr_next(&r, &f) == 1) {
                if (f.num == 1)
                        assert_memory_equal(f.data, "2.0", 3);
                if (f.num != 9)
                        continue;
                assert_int_equal(pbr_sub(&r, &f, &defs), 0);
                while (pbr_next(&defs, &g) == 1) {
                        char name[128] = "", ext[1024] = "";

                        assert_int_equal(g.num, 1);
                        assert_int_equal(pbr_sub(&defs, &g, &named), 0);
                        while (pbr_next(&named, &h) == 1) {
                                if (h.num == 1)
                                        (void) snprintf(name, sizeof(name), "%.*s", (int) h.len,
                                                        h.data);
                                if (h.num == 2)
                                        schema_extensions(h.data, h.len, ext, sizeof(ext));
                        }
                        n_defs++;
                        if (streq(name, "io.k8s.api.core.v1.Pod")) {
                                pod = true;
                                assert_non_null(strstr(
                                        ext, "x-kubernetes-group-version-kind=[{\"group\":\"\","
                                             "\"kind\":\"Pod\",\"version\":\"v1\"}]\n;"));
                        }
                }
        }
        assert_int_equal(n_defs, n_api_resources);
        assert_true(pod);
        http_response_release(&resp);
}

static void test_negotiation_and_etag(void **state)
{
        struct http_response resp, again;
        char *weak_list;

        get("text/html", NULL, &resp);
        assert_int_equal(resp.status, 406);
        assert_int_equal(resp.body.len, 0);
        http_response_release(&resp);

        get(NULL, NULL, &resp); /* no Accept: * / *, JSON first */
        assert_string_equal(resp.content_type, "application/json");
        http_response_release(&resp);

        get("application/json;q=0.5, " PB_ASKED, NULL, &resp);
        assert_int_equal(resp.status, 200);
        assert_non_null(strstr(resp.content_type, "protobuf"));
        get(PB_ASKED, resp.etag, &again);
        assert_int_equal(again.status, 304);
        assert_int_equal(again.body.len, 0);
        http_response_release(&again);
        weak_list = NULL;
        assert_true(asprintf(&weak_list, "\"x\", W/%s", resp.etag) > 0);
        get(PB_ASKED, weak_list, &again);
        assert_int_equal(again.status, 304);
        http_response_release(&again);
        free(weak_list);
        get(PB_ASKED, "\"other\"", &again);
        assert_int_equal(again.status, 200);
        http_response_release(&again);
        /* the JSON form has its own tag */
        get("application/json", resp.etag, &again);
        assert_int_equal(again.status, 200);
        http_response_release(&again);
        http_response_release(&resp);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_protobuf),
                cmocka_unit_test(test_negotiation_and_etag),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
