/* test-protobuf.c: the Kubernetes protobuf codec (api/protobuf.h).
 *
 * - every kind, generated with every field the schema knows set to a non-zero value, survives
 *   JSON -> protobuf -> JSON unchanged, alone and in its envelope, and so do the pods under
 *   tests/api/manifests after schema_check (the stored form);
 * - the body kubectl 1.32 really sends for `kubectl create namespace pbtest` (captured from the
 *   wire) decodes to the object its JSON body would have been;
 * - a pod's encoding read by an independent decoder (`protoc --decode_raw`) shows upstream's
 *   field numbers;
 * - watch frames, the Go zero-value rules, and malformed input (every truncation, wrong wire
 *   types, bad strings, numbers and times) are refused with -EBADMSG;
 * - the schema tables have no two fields on one number. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/protobuf.h"
#include "api/schemas.h"
#include "api/yaml.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/protowire.h"

static const char *const kinds[] = {
        "Pod",
        "Node",
        "Event",
        "Namespace",
        "StorageClass",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Status",
        "PodList",
        "NamespaceList",
        "PodDisruptionBudget",
        "Eviction",
};

/* ---- a fully populated object of any schema ---- */

static unsigned counter;

static json_t *gen(const struct schema *s, unsigned depth)
{
        static const char *const quantities[] = { "1Gi", "250m", "3", "1500M", "100Ki" };
        json_t *v;

        counter++;
        switch (s->kind) {
        case SCHEMA_STRING:
                if (s->go_type && streq(s->go_type, SCHEMA_GO_BYTES))
                        return json_string(counter % 2 ? "AP/+gAA/" : "Zm8=");
                return json_sprintf("v%u-\xc3\xa9", counter);
        case SCHEMA_INTEGER:
                if (s->go_type && streq(s->go_type, "int32"))
                        return json_integer(counter % 3 == 0 ? -(json_int_t) counter : counter);
                return json_integer(counter % 3 == 0 ? -((json_int_t) 1 << 40) - counter
                                                     : ((json_int_t) 1 << 33) + counter);
        case SCHEMA_NUMBER:
                return json_real(counter + 0.25);
        case SCHEMA_BOOLEAN:
                return json_true();
        case SCHEMA_QUANTITY:
                return json_string(quantities[counter % ARRAY_SIZE(quantities)]);
        case SCHEMA_TIME:
                if (s->go_type && streq(s->go_type, SCHEMA_GO_MICRO_TIME))
                        return json_string("2024-02-29T23:59:58.123456Z");
                return json_string(counter % 2 ? "2024-01-02T03:04:05Z" : "1969-07-20T20:17:40Z");
        case SCHEMA_INT_OR_STRING:
                return counter % 2 ? json_integer(-8080) : json_string("http");
        case SCHEMA_ANY:
                return json_pack("{s:{s:{}}}", "f:metadata", "f:name");
        case SCHEMA_OBJECT:
                v = json_object();
                if (depth > 20)
                        return v;
                for (const struct schema_field *f = s->fields; f->name; f++)
                        if (f->pb != 0)
                                json_object_set_new(v, f->name, gen(f->schema, depth + 1));
                return v;
        case SCHEMA_MAP:
                v = json_object();
                json_object_set_new(v, "b/key", gen(s->items, depth + 1));
                json_object_set_new(v, "a", gen(s->items, depth + 1));
                return v;
        case SCHEMA_LIST:
                v = json_array();
                json_array_append_new(v, gen(s->items, depth + 1));
                json_array_append_new(v, gen(s->items, depth + 1));
                return v;
        default:
                return json_null();
        }
}

static void assert_json_equal(const json_t *want, const json_t *got, const char *what)
{
        if (!json_equal(want, got)) {
                cleanup_free char *a = json_dumps(want, JSON_SORT_KEYS);
                cleanup_free char *b = json_dumps(got, JSON_SORT_KEYS);
                fail_msg("%s: round trip differs\nwant %s\ngot  %s", what, a, b);
        }
}

static json_t *round_trip(const struct schema *s, const json_t *obj, const char *what)
{
        struct error *err = NULL;
        struct strbuf sb;
        json_t *back = NULL;

        strbuf_init(&sb);
        if (pb_encode(s, obj, &sb, &err) < 0)
                fail_msg("%s: encode: %s", what, err->message);
        if (pb_decode(s, sb.buf, sb.len, &back, &err) < 0)
                fail_msg("%s: decode: %s", what, err->message);
        strbuf_release(&sb);
        return back;
}

static void test_round_trip_full(void **state)
{
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
                const struct schema *s = pb_schema_for_kind(kinds[i]);
                json_t *obj, *back, *enveloped = NULL;
                struct error *err = NULL;
                struct strbuf sb;

                assert_non_null(s);
                obj = gen(s, 0);
                back = round_trip(s, obj, kinds[i]);
                assert_json_equal(obj, back, kinds[i]);
                json_decref(back);

                /* In the envelope, with kind and apiVersion. */
                json_object_set_new(obj, "kind", json_string(kinds[i]));
                json_object_set_new(obj, "apiVersion", json_string("v1"));
                strbuf_init(&sb);
                assert_int_equal(pb_encode_object(s, obj, &sb, &err), 0);
                assert_memory_equal(sb.buf, PB_K8S_MAGIC, PB_K8S_MAGIC_LEN);
                if (pb_decode_object(sb.buf, sb.len, &enveloped, &err) < 0)
                        fail_msg("%s: %s", kinds[i], err->message);
                assert_json_equal(obj, enveloped, kinds[i]);
                assert_string_equal(json_object_iter_key(json_object_iter(enveloped)), "kind");
                json_decref(enveloped);
                strbuf_release(&sb);
                json_decref(obj);
        }
}

/* The manifests the API tests apply, as stored (after schema_check). */
static void test_round_trip_manifests(void **state)
{
        static const char *const files[] = {
                "tests/api/manifests/pod-apply.yaml",
                "tests/api/manifests/pod-guaranteed.yaml",
                "tests/api/manifests/pod-web.json",
        };
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
                struct error *err = NULL;
                json_t *obj = NULL, *back;
                char *text;
                size_t len;
                FILE *f = fopen(files[i], "r");

                if (!f)
                        fail_msg("%s: %m (run from the repository root)", files[i]);
                text = xmalloc(1 << 20);
                len = fread(text, 1, (1 << 20) - 1, f);
                fclose(f);
                text[len] = '\0';
                if (yaml_to_json(text, len, &obj, &err) < 0)
                        fail_msg("%s: %s", files[i], err->message);
                free(text);
                if (schema_check(&schema_pod, obj, NULL, NULL, &err) < 0)
                        fail_msg("%s: %s", files[i], err->message);
                back = round_trip(&schema_pod, obj, files[i]);
                /* kind and apiVersion travel in the envelope, not the message. */
                json_object_del(obj, "kind");
                json_object_del(obj, "apiVersion");
                assert_json_equal(obj, back, files[i]);
                json_decref(back);
                json_decref(obj);
        }
}

/* `kubectl create namespace pbtest` (kubectl 1.32, client-go's typed client): the exact body
 * it POSTs, captured on the wire. Go writes every zero-valued field; they decode as absent, as
 * Go's JSON encoder would leave them out (creationTimestamp, a zero Time, included). */
static const char kubectl_namespace[] =
        "k8s\x00"
        "\x0a\x0f\x0a\x02v1\x12\x09Namespace"
        "\x12\x1e"
        "\x0a\x16\x0a\x06pbtest\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00"
        "\x12\x00"
        "\x1a\x02\x0a\x00"
        "\x1a\x00\x22\x00";

static void test_kubectl_namespace(void **state)
{
        struct error *err = NULL;
        json_t *obj = NULL, *want;

        (void) state;
        if (pb_decode_object(kubectl_namespace, sizeof(kubectl_namespace) - 1, &obj, &err) < 0)
                fail_msg("%s", err->message);
        want = json_loads("{\"kind\":\"Namespace\",\"apiVersion\":\"v1\","
                          "\"metadata\":{\"name\":\"pbtest\"},\"spec\":{},\"status\":{}}",
                          0, NULL);
        assert_json_equal(want, obj, "kubectl namespace");
        json_decref(want);
        json_decref(obj);
}

/* protoc --decode_raw, an independent decoder, reads a pod we write with upstream's numbers:
 * Pod{metadata=1{name=1, labels=11{key=1, value=2}}, spec=2{containers=2{name=1, image=2,
 * ports=6{containerPort=3}}, volumes=1{name=1, volumeSource=2{emptyDir=2{sizeLimit=2}}}}}. */
static void test_protoc_decode_raw(void **state)
{
        static const char want[] = "1 {\n"
                                   "  1: \"p\"\n"
                                   "  11 {\n"
                                   "    1: \"app\"\n"
                                   "    2: \"web\"\n"
                                   "  }\n"
                                   "}\n"
                                   "2 {\n"
                                   "  1 {\n"
                                   "    1: \"v\"\n"
                                   "    2 {\n"
                                   "      2 {\n"
                                   "        2 {\n"
                                   "          1: \"1Gi\"\n"
                                   "        }\n"
                                   "      }\n"
                                   "    }\n"
                                   "  }\n"
                                   "  2 {\n"
                                   "    1: \"c\"\n"
                                   "    2: \"nginx\"\n"
                                   "    6 {\n"
                                   "      3: 80\n"
                                   "    }\n"
                                   "  }\n"
                                   "}\n";
        char path[] = "/tmp/test-protobuf-XXXXXX", cmd[128], got[4096];
        struct error *err = NULL;
        struct strbuf sb;
        json_t *pod;
        size_t n;
        FILE *f;
        int fd;

        (void) state;
        if (system("command -v protoc >/dev/null 2>&1") != 0)
                skip(); /* scripts/install-deps.sh installs protobuf-compiler */
        pod = json_loads("{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\"}},"
                         "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
                         "\"ports\":[{\"containerPort\":80}]}],"
                         "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"1Gi\"}}]}}",
                         0, NULL);
        strbuf_init(&sb);
        assert_int_equal(pb_encode(&schema_pod, pod, &sb, &err), 0);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, sb.buf, sb.len), (ssize_t) sb.len);
        close(fd);
        snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s", path);
        f = popen(cmd, "r");
        assert_non_null(f);
        n = fread(got, 1, sizeof(got) - 1, f);
        got[n] = '\0';
        assert_int_equal(pclose(f), 0);
        unlink(path);
        assert_string_equal(got, want);
        strbuf_release(&sb);
        json_decref(pod);
}

/* A VALUE scalar at zero is left out, a POINTER one kept, an ALWAYS one present when absent;
 * an empty message is kept ({}), a zero time left out. */
static void test_go_rules(void **state)
{
        struct error *err = NULL;
        json_t *in, *out, *want;

        (void) state;
        in = json_loads("{\"spec\":{\"hostNetwork\":false,\"nodeName\":\"\","
                        "\"terminationGracePeriodSeconds\":0,\"securityContext\":{},"
                        "\"containers\":[{\"name\":\"c\",\"securityContext\":"
                        "{\"privileged\":false,\"runAsUser\":0}}]},"
                        "\"status\":{\"containerStatuses\":[{\"name\":\"c\"}]}}",
                        0, NULL);
        out = round_trip(&schema_pod, in, "go rules");
        want = json_loads("{\"spec\":{\"terminationGracePeriodSeconds\":0,\"securityContext\":{},"
                          "\"containers\":[{\"name\":\"c\",\"securityContext\":"
                          "{\"privileged\":false,\"runAsUser\":0}}]},"
                          "\"status\":{\"containerStatuses\":[{\"name\":\"c\",\"ready\":false,"
                          "\"restartCount\":0,\"image\":\"\",\"imageID\":\"\"}]}}",
                          0, NULL);
        assert_json_equal(want, out, "go rules");
        json_decref(in);
        json_decref(out);
        json_decref(want);
        (void) err;
}

/* One watch frame: 4-byte big-endian length, WatchEvent{type=1, object=2{raw=1}} without the
 * envelope, the object inside with it. */
static void test_watch_frame(void **state)
{
        struct error *err = NULL;
        struct pb_field f, g;
        struct pbr r, sub;
        struct strbuf sb;
        json_t *ns, *obj = NULL;
        size_t len;
        bool saw_type = false, saw_raw = false;

        (void) state;
        ns = json_loads("{\"kind\":\"Namespace\",\"apiVersion\":\"v1\","
                        "\"metadata\":{\"name\":\"w\",\"resourceVersion\":\"7\"}}",
                        0, NULL);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "xy"); /* frames append */
        assert_int_equal(pb_encode_watch_event("ADDED", &schema_namespace, ns, &sb, &err), 0);
        len = ((size_t) (uint8_t) sb.buf[2] << 24) | ((size_t) (uint8_t) sb.buf[3] << 16) |
              ((size_t) (uint8_t) sb.buf[4] << 8) | (uint8_t) sb.buf[5];
        assert_int_equal(len, sb.len - 2 - PB_WATCH_FRAME_PREFIX);
        assert_int_not_equal(memcmp(sb.buf + 6, PB_K8S_MAGIC, PB_K8S_MAGIC_LEN), 0);
        pbr_init(&r, sb.buf + 6, len);
        while (pbr_next(&r, &f) == 1) {
                if (f.num == 1) {
                        assert_int_equal(f.len, 5);
                        assert_memory_equal(f.data, "ADDED", 5);
                        saw_type = true;
                } else if (f.num == 2) {
                        assert_int_equal(pbr_sub(&r, &f, &sub), 0);
                        assert_int_equal(pbr_next(&sub, &g), 1);
                        assert_int_equal(g.num, 1);
                        assert_memory_equal(g.data, PB_K8S_MAGIC, PB_K8S_MAGIC_LEN);
                        if (pb_decode_object(g.data, g.len, &obj, &err) < 0)
                                fail_msg("%s", err->message);
                        assert_json_equal(ns, obj, "watch object");
                        saw_raw = true;
                }
        }
        assert_true(saw_type && saw_raw);
        json_decref(obj);
        json_decref(ns);
        strbuf_release(&sb);
}

static void expect_bad(const struct schema *s, const char *bytes, size_t n, const char *what)
{
        struct error *err = NULL;
        json_t *obj = NULL;
        int r = pb_decode(s, bytes, n, &obj, &err);

        if (r != -EBADMSG)
                fail_msg("%s: got %d, want -EBADMSG", what, r);
        assert_non_null(err);
        assert_null(obj);
        if (getenv("PB_DEBUG"))
                fprintf(stderr, "%s: %s\n", what, err->message);
        error_free(err);
}

static void test_malformed(void **state)
{
        struct error *err = NULL;
        json_t *obj = NULL, *pod;
        struct strbuf sb;

        (void) state;
        /* Pod.metadata (1) .name (1): */
        expect_bad(&schema_pod, "\x0a\x03\x0a\x01\xff", 5, "invalid UTF-8");
        expect_bad(&schema_pod, "\x0a\x03\x0a\x01\x00", 5, "NUL in a string");
        expect_bad(&schema_pod, "\x0a\x02\x08\x01", 4, "varint for a string");
        expect_bad(&schema_pod,
                   "\x0a\x05\x0a\x05"
                   "abc",
                   7, "length past the end");
        expect_bad(&schema_pod, "\x0b", 1, "group");
        /* Pod.metadata.creationTimestamp (8) {seconds: 2^62}: */
        expect_bad(&schema_pod, "\x0a\x0c\x42\x0a\x08\x80\x80\x80\x80\x80\x80\x80\x80\x40", 14,
                   "time out of range");
        /* PodSpec.terminationGracePeriodSeconds is int64; PodSpec.priority (25) int32: */
        expect_bad(&schema_pod, "\x12\x07\xc8\x01\x80\x80\x80\x80\x10", 9, "int32 overflow");
        /* Pod.metadata.labels (11) {key: "a", value: "\xff"}: */
        expect_bad(&schema_pod,
                   "\x0a\x08\x5a\x06\x0a\x01"
                   "a\x12\x01\xff",
                   10, "map value");
        /* NodeStatus... PodSpec.containers (2) .resources (8) .limits (1) {key cpu, value
         * Quantity{string "x"}}: */
        expect_bad(&schema_pod,
                   "\x12\x11\x12\x0f\x42\x0d\x0a\x0b\x0a\x03"
                   "cpu\x12\x04\x0a\x02"
                   "xx",
                   19, "bad quantity");

        /* Every truncation of a pod (three levels deep: a few hundred bytes) is refused or
         * decodes; never a read past the end. */
        pod = gen(&schema_pod, 18);
        strbuf_init(&sb);
        assert_int_equal(pb_encode(&schema_pod, pod, &sb, &err), 0);
        for (size_t n = 0; n < sb.len; n++) {
                char *copy = xmalloc(n ? n : 1);
                int r;
                memcpy(copy, sb.buf, n);
                r = pb_decode(&schema_pod, copy, n, &obj, &err);
                if (r == 0) {
                        json_decref(obj);
                } else {
                        assert_int_equal(r, -EBADMSG);
                        err = error_free(err);
                }
                obj = NULL;
                free(copy);
        }
        strbuf_release(&sb);
        json_decref(pod);

        /* Unknown fields are skipped. */
        assert_int_equal(pb_decode(&schema_pod, "\x0a\x05\xf8\x07\x01\x0a\x00", 7, &obj, &err), 0);
        pod = json_pack("{s:{}}", "metadata");
        assert_json_equal(pod, obj, "unknown field");
        json_decref(pod);
        json_decref(obj);
}

static void test_envelope(void **state)
{
        char *av = NULL, *kind = NULL;
        struct error *err = NULL;
        const void *raw;
        size_t raw_len;
        json_t *obj = NULL;

        (void) state;
        assert_int_equal(pb_decode_envelope("{}", 2, &av, &kind, &raw, &raw_len, &err), -EBADMSG);
        assert_string_equal(err->message, "provided data does not appear to be a protobuf "
                                          "message, expected prefix [107 56 115 0]");
        err = error_free(err);
        assert_int_equal(pb_decode_envelope(kubectl_namespace, sizeof(kubectl_namespace) - 1, &av,
                                            &kind, &raw, &raw_len, &err),
                         0);
        assert_string_equal(av, "v1");
        assert_string_equal(kind, "Namespace");
        assert_int_equal(raw_len, 0x1e);
        free(av);
        free(kind);
        /* An unknown kind. */
        assert_int_equal(pb_decode_object("k8s\x00\x0a\x09\x0a\x02v1\x12\x03"
                                          "Foo",
                                          15, &obj, &err),
                         -ENOENT);
        assert_string_equal(err->message, "no kind \"Foo\" is registered for version \"v1\"");
        err = error_free(err);
        /* A content encoding. */
        assert_int_equal(pb_decode_object("k8s\x00\x1a\x04gzip", 10, &obj, &err), -EBADMSG);
        err = error_free(err);
        /* Encoding needs kind and apiVersion. */
        {
                struct strbuf sb;
                json_t *ns = json_pack("{s:{}}", "metadata");
                strbuf_init(&sb);
                strbuf_addstr(&sb, "keep");
                assert_int_equal(pb_encode_object(&schema_namespace, ns, &sb, &err), -EINVAL);
                assert_int_equal(sb.len, 4);
                err = error_free(err);
                json_decref(ns);
                strbuf_release(&sb);
        }
}

/* Encoding refuses values of the wrong JSON type and leaves out untouched. */
static void test_encode_errors(void **state)
{
        struct error *err = NULL;
        struct strbuf sb;
        json_t *pod;

        (void) state;
        pod = json_loads("{\"spec\":{\"containers\":[{\"name\":5}]}}", 0, NULL);
        strbuf_init(&sb);
        assert_int_equal(pb_encode(&schema_pod, pod, &sb, &err), -EINVAL);
        assert_string_equal(err->message,
                            "protobuf: encoding v1.Pod: spec: containers: [0]: name: expected "
                            "string, got number");
        assert_int_equal(sb.len, 0);
        err = error_free(err);
        json_decref(pod);
        pod = json_loads("{\"spec\":{\"priority\":4294967296}}", 0, NULL);
        assert_int_equal(pb_encode(&schema_pod, pod, &sb, &err), -EINVAL);
        err = error_free(err);
        json_decref(pod);
        strbuf_release(&sb);
}

/* []byte fields (Secret data, ConfigMap binaryData): base64 in JSON, raw bytes on the wire. */
/* clang-format off */
static const struct schema_field bytes_fields[] = {
        { "data", SCHEMA_MAP_OF(&schema_bytes), 2, SCHEMA_GO_VALUE },
        { "raw", &schema_bytes, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_bytes_holder = SCHEMA_STRUCT("Secret", bytes_fields);

static void test_bytes(void **state)
{
        struct error *err = NULL;
        struct strbuf sb;
        json_t *obj, *back = NULL;

        (void) state;
        obj = json_loads("{\"data\":{\"k\":\"AP8=\"},\"raw\":\"Zm9v\"}", 0, NULL);
        strbuf_init(&sb);
        assert_int_equal(pb_encode(&schema_bytes_holder, obj, &sb, &err), 0);
        /* data {key "k", value 00 ff}, raw "foo" */
        assert_int_equal(sb.len, 14);
        assert_memory_equal(sb.buf,
                            "\x12\x07\x0a\x01k\x12\x02\x00\xff\x1a\x03"
                            "foo",
                            14);
        assert_int_equal(pb_decode(&schema_bytes_holder, sb.buf, sb.len, &back, &err), 0);
        assert_json_equal(obj, back, "bytes");
        json_decref(back);
        json_decref(obj);
        strbuf_reset(&sb);
        obj = json_loads("{\"raw\":\"Zm9v!\"}", 0, NULL);
        assert_int_equal(pb_encode(&schema_bytes_holder, obj, &sb, &err), -EINVAL);
        assert_string_equal(
                err->message,
                "protobuf: encoding v1.Secret: raw: illegal base64 data at input byte 4");
        error_free(err);
        json_decref(obj);
        strbuf_release(&sb);
}

/* K8S: map[string]ExtraValue (authorization/v1 SubjectAccessReviewSpec.extra): each value a
 * message {repeated string items = 1}, an empty list an empty message. */
static void test_extra_values(void **state)
{
        struct error *err = NULL;
        struct strbuf sb;
        json_t *obj, *back = NULL;

        (void) state;
        obj = json_loads("{\"spec\":{\"extra\":{\"k\":[\"a\",\"b\"],\"z\":[]}}}", 0, NULL);
        strbuf_init(&sb);
        assert_int_equal(pb_encode(&schema_subject_access_review, obj, &sb, &err), 0);
        /* spec {extra {key "k", value {items "a", items "b"}}, {key "z", value {}}} */
        assert_int_equal(sb.len, 22);
        assert_memory_equal(sb.buf,
                            "\x12\x14\x2a\x0b\x0a\x01k\x12\x06\x0a\x01"
                            "a\x0a\x01"
                            "b\x2a\x05\x0a\x01z\x12\x00",
                            22);
        assert_int_equal(pb_decode(&schema_subject_access_review, sb.buf, sb.len, &back, &err), 0);
        assert_json_equal(json_object_get(obj, "spec"), json_object_get(back, "spec"), "extra");
        json_decref(back);
        json_decref(obj);
        strbuf_release(&sb);
}

/* K8S: a PodDisruptionBudget's IntOrString bounds keep their type through protobuf (an
 * integer minAvailable, a percentage maxUnavailable), and an Eviction carries its
 * DeleteOptions (gracePeriodSeconds 0 is a set pointer, kept). */
static void test_policy(void **state)
{
        json_t *pdb = json_loads("{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},"
                                 "\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":"
                                 "{\"app\":\"web\"}}},\"status\":{\"disruptionsAllowed\":0,"
                                 "\"currentHealthy\":1,\"desiredHealthy\":1,\"expectedPods\":1,"
                                 "\"disruptedPods\":{\"w1\":\"2026-01-01T00:00:00Z\"},"
                                 "\"conditions\":[{\"type\":\"DisruptionAllowed\",\"status\":"
                                 "\"False\",\"reason\":\"InsufficientPods\",\"message\":\"\","
                                 "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}",
                                 0, NULL);
        json_t *pct = json_loads("{\"metadata\":{\"name\":\"half\"},\"spec\":{\"maxUnavailable\":"
                                 "\"50%\",\"unhealthyPodEvictionPolicy\":\"AlwaysAllow\"},"
                                 "\"status\":{\"disruptionsAllowed\":0,\"currentHealthy\":0,"
                                 "\"desiredHealthy\":0,\"expectedPods\":0}}",
                                 0, NULL);
        json_t *ev = json_loads("{\"metadata\":{\"name\":\"w1\",\"namespace\":\"default\"},"
                                "\"deleteOptions\":{\"gracePeriodSeconds\":0,\"dryRun\":[\"All\"],"
                                "\"preconditions\":{\"uid\":\"u1\"}}}",
                                0, NULL);
        json_t *back;

        (void) state;
        assert_non_null(pdb);
        assert_non_null(pct);
        assert_non_null(ev);
        back = round_trip(pb_schema_for_kind("PodDisruptionBudget"), pdb, "pdb");
        assert_json_equal(pdb, back, "pdb");
        json_decref(back);
        back = round_trip(pb_schema_for_kind("PodDisruptionBudget"), pct, "pdb percent");
        assert_json_equal(pct, back, "pdb percent");
        json_decref(back);
        back = round_trip(pb_schema_for_kind("Eviction"), ev, "eviction");
        assert_json_equal(ev, back, "eviction");
        json_decref(back);
        json_decref(pdb);
        json_decref(pct);
        json_decref(ev);
}

/* No two fields of a struct share a number, an embedded message's number is no field's own,
 * and no field is numbered past 2^29-1. */
static void check_numbers(const struct schema *s, unsigned depth)
{
        if (depth > 30)
                return;
        if (s->kind == SCHEMA_LIST || s->kind == SCHEMA_MAP) {
                check_numbers(s->items, depth + 1);
                return;
        }
        if (s->kind != SCHEMA_OBJECT)
                return;
        for (const struct schema_field *a = s->fields; a->name; a++) {
                if (a->pb == 0)
                        continue;
                for (const struct schema_field *b = a + 1; b->name; b++) {
                        if (b->pb == 0)
                                continue;
                        if (a->pb == b->pb && SCHEMA_FIELD_EMBED(a) == SCHEMA_FIELD_EMBED(b))
                                fail_msg("%s: %s and %s are both %u", s->go_type, a->name, b->name,
                                         a->pb);
                        if ((SCHEMA_FIELD_EMBED(a) == 0 && SCHEMA_FIELD_EMBED(b) == a->pb) ||
                            (SCHEMA_FIELD_EMBED(b) == 0 && SCHEMA_FIELD_EMBED(a) == b->pb))
                                fail_msg("%s: %s and %s's embedded message share %u", s->go_type,
                                         a->name, b->name, a->pb);
                }
                check_numbers(a->schema, depth + 1);
        }
}

static void test_schema_numbers(void **state)
{
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
                check_numbers(pb_schema_for_kind(kinds[i]), 0);
        assert_null(pb_schema_for_kind("Foo"));
        assert_null(pb_schema_for_kind("FooList"));
        assert_null(pb_schema_for_kind("List"));
        assert_ptr_equal(pb_schema_for_kind("PodList"), schema_list_for_kind("PodList"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip_full),
                cmocka_unit_test(test_round_trip_manifests),
                cmocka_unit_test(test_kubectl_namespace),
                cmocka_unit_test(test_protoc_decode_raw),
                cmocka_unit_test(test_go_rules),
                cmocka_unit_test(test_watch_frame),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_envelope),
                cmocka_unit_test(test_encode_errors),
                cmocka_unit_test(test_schema_numbers),
                cmocka_unit_test(test_bytes),
                cmocka_unit_test(test_extra_values),
                cmocka_unit_test(test_policy),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
