/* test-etcd-rpc.c: etcd v3's gRPC messages as store/etcd-rpc.c writes and reads them, without an
 * etcd. Every request is taken out of its gRPC frame and read back field by field with
 * protowire's reader against the field numbers of etcd's api/etcdserverpb/rpc.proto and
 * api/mvccpb/kv.proto (proto3 zero scalars left out, as Go's marshalers do, but a Compare's
 * oneof always written); every answer is built with protowire's writer as etcd sends it, with
 * the fields the store does not read (which must be skipped), and decoded; malformed answers
 * are -EBADMSG; then the methods' paths. The framing itself is tested with http/grpc.c
 * (tests/unit/http/test-grpc.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/protowire.h"
#include "http/grpc.h"
#include "store/etcd-rpc.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
/* A string literal's bytes, without its NUL, and their count. */
#define BYTES(s) s, sizeof(s) - 1

/* ---- reading requests back ---- */

/* A message's bytes. */
struct msg {
        const uint8_t *p;
        size_t len;
};

/* The message of the one frame sb holds: flag 0, then a 4-byte big-endian length that is exactly
 * the rest of sb. */
static struct msg only_frame(const struct strbuf *sb)
{
        const uint8_t *b = (const uint8_t *) sb->buf;
        size_t n;

        assert_true(sb->len >= GRPC_FRAME_HEADER);
        assert_int_equal(b[0], 0);
        n = (size_t) b[1] << 24 | (size_t) b[2] << 16 | (size_t) b[3] << 8 | b[4];
        assert_int_equal(n, sb->len - GRPC_FRAME_HEADER);
        return (struct msg){ b + GRPC_FRAME_HEADER, n };
}

/* How many times m has field num; m must be well-formed. */
static size_t count(struct msg m, uint32_t num)
{
        struct pbr r;
        struct pb_field f;
        size_t n = 0;
        int k;

        pbr_init(&r, m.p, m.len);
        while ((k = pbr_next(&r, &f)) == 1)
                n += f.num == num;
        assert_int_equal(k, 0);
        return n;
}

/* m's fields are exactly nums, each once, in any order. */
static void assert_fields(struct msg m, const uint32_t *nums, size_t n)
{
        struct pbr r;
        struct pb_field f;
        size_t total = 0;
        int k;

        pbr_init(&r, m.p, m.len);
        while ((k = pbr_next(&r, &f)) == 1) {
                size_t i = 0;

                while (i < n && nums[i] != f.num)
                        i++;
                if (i == n)
                        fail_msg("field %u is not expected", (unsigned) f.num);
                total++;
        }
        assert_int_equal(k, 0);
        for (size_t i = 0; i < n; i++)
                if (count(m, nums[i]) != 1)
                        fail_msg("field %u: %zu times, want once", (unsigned) nums[i],
                                 count(m, nums[i]));
        assert_int_equal(total, n);
}
#define FIELDS(m, ...)                               \
 assert_fields(m, (const uint32_t[]){ __VA_ARGS__ }, \
               sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/* m's field num, which m has once, with wire type wire. */
static struct pb_field field(struct msg m, uint32_t num, enum pb_wire wire)
{
        struct pbr r;
        struct pb_field f, found = { 0 };
        size_t n = 0;
        int k;

        pbr_init(&r, m.p, m.len);
        while ((k = pbr_next(&r, &f)) == 1)
                if (f.num == num) {
                        found = f;
                        n++;
                }
        assert_int_equal(k, 0);
        if (n != 1)
                fail_msg("field %u: %zu times, want once", (unsigned) num, n);
        if (found.wire != wire)
                fail_msg("field %u: wire type %d, want %d", (unsigned) num, (int) found.wire,
                         (int) wire);
        return found;
}

static uint64_t varint(struct msg m, uint32_t num)
{
        return field(m, num, PB_WIRE_VARINT).u;
}

/* A varint field that may be left out when 0. */
static uint64_t varint_or_zero(struct msg m, uint32_t num)
{
        return count(m, num) ? varint(m, num) : 0;
}

/* m's length-delimited field num (a nested message or bytes). */
static struct msg sub(struct msg m, uint32_t num)
{
        struct pb_field f = field(m, num, PB_WIRE_LEN);

        return (struct msg){ f.data, f.len };
}

static void assert_bytes_field(struct msg m, uint32_t num, const void *want, size_t n)
{
        struct msg s = sub(m, num);

        assert_int_equal(s.len, n);
        if (n)
                assert_memory_equal(s.p, want, n);
}

static void assert_str_field(struct msg m, uint32_t num, const char *want)
{
        assert_bytes_field(m, num, want, strlen(want));
}

/* ---- requests ---- */

/* RangeRequest: key=1 and nothing else for a key read alone at the newest revision. */
static void test_range_key_alone(void **state)
{
        const struct etcd_range r = { .key = "/registry/pods/ns/a\0b", .key_len = 21 };
        struct strbuf sb;
        struct msg m;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_range(&sb, &r);
        m = only_frame(&sb);
        FIELDS(m, 1);
        assert_bytes_field(m, 1, "/registry/pods/ns/a\0b", 21); /* key_len, not strlen */
        strbuf_release(&sb);
}

/* RangeRequest key=1 range_end=2 limit=3 revision=4 count_only=9. */
static void test_range_all(void **state)
{
        const struct etcd_range r = { .key = "/registry/pods/",
                                      .key_len = 15,
                                      .range_end = "/registry/pods0",
                                      .range_end_len = 15,
                                      .revision = (int64_t) 1 << 40,
                                      .limit = 500,
                                      .count_only = true };
        const struct etcd_range every = {
                .key = "\0", .key_len = 1, .range_end = "\0", .range_end_len = 1
        };
        struct strbuf sb;
        struct msg m;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_range(&sb, &r);
        m = only_frame(&sb);
        FIELDS(m, 1, 2, 3, 4, 9);
        assert_str_field(m, 1, "/registry/pods/");
        assert_str_field(m, 2, "/registry/pods0");
        assert_int_equal(varint(m, 3), 500);
        assert_int_equal(varint(m, 4), (uint64_t) 1 << 40);
        assert_int_equal(varint(m, 9), 1);
        strbuf_release(&sb);

        /* every key: key "\0", range_end "\0", lengths honoured */
        strbuf_init(&sb);
        etcd_rpc_range(&sb, &every);
        m = only_frame(&sb);
        FIELDS(m, 1, 2);
        assert_bytes_field(m, 1, "", 1);
        assert_bytes_field(m, 2, "", 1);
        strbuf_release(&sb);
}

/* The frame's length takes all four bytes, big-endian: a 16 MiB key. */
static void test_frame_header_big_endian(void **state)
{
        const size_t n = (size_t) 1 << 24;
        char *key = malloc(n);
        struct etcd_range r = { .key = key, .key_len = n };
        struct strbuf sb;
        struct msg m;

        (void) state;
        assert_non_null(key);
        memset(key, 'k', n);
        strbuf_init(&sb);
        etcd_rpc_range(&sb, &r);
        /* tag 0x0a, the length's 4-byte varint, the key */
        assert_memory_equal(sb.buf, "\x00\x01\x00\x00\x05", 5);
        m = only_frame(&sb);
        FIELDS(m, 1);
        assert_int_equal(sub(m, 1).len, n);
        strbuf_release(&sb);
        free(key);
}

/* Each encoder appends: what out held stays, and each frame reads back whole. */
static void test_requests_append(void **state)
{
        const struct etcd_range r = { .key = "/a", .key_len = 2 };
        const uint8_t *msg;
        size_t len, used, first;
        struct strbuf sb;
        struct pbr pr;
        struct pb_field f;

        (void) state;
        strbuf_init(&sb);
        strbuf_add(&sb, "before", 6);
        etcd_rpc_range(&sb, &r);
        first = sb.len;
        etcd_rpc_delete(&sb, "/b");
        assert_memory_equal(sb.buf, "before", 6);
        assert_int_equal(
                grpc_frame_read((const uint8_t *) sb.buf + 6, sb.len - 6, 1024, &msg, &len, &used),
                1);
        assert_int_equal(used, first - 6);
        assert_int_equal(len, used - GRPC_FRAME_HEADER);
        pbr_init(&pr, msg, len);
        assert_int_equal(pbr_next(&pr, &f), 1);
        assert_int_equal(f.num, 1);
        assert_int_equal(f.len, 2);
        assert_memory_equal(f.data, "/a", 2);
        assert_int_equal(pbr_next(&pr, &f), 0);
        assert_int_equal(grpc_frame_read((const uint8_t *) sb.buf + first, sb.len - first, 1024,
                                         &msg, &len, &used),
                         1);
        assert_int_equal(used, sb.len - first);
        assert_int_equal(count((struct msg){ msg, len }, 3), 1);
        strbuf_release(&sb);
}

/* The failure branch of every txn: RequestOp{request_range=1{key=1}}. */
static void assert_failure_reads(struct msg txn, const char *key)
{
        struct msg op = sub(txn, 3);
        struct msg range;

        FIELDS(op, 1);
        range = sub(op, 1);
        FIELDS(range, 1);
        assert_str_field(range, 1, key);
}

/* TxnRequest compare=1 success=2 failure=3; Compare result=1 (EQUAL, 0) target=2 key=3
 * mod_revision=6; RequestOp request_put=2; PutRequest key=1 value=2 (no lease). */
static void test_txn_put(void **state)
{
        const struct etcd_txn t = { .key = "/registry/pods/ns/a",
                                    .target = ETCD_COMPARE_MOD,
                                    .equals = 41,
                                    .value = "v\0\xff",
                                    .value_len = 3 };
        struct strbuf sb;
        struct msg m, cmp, op, put;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_txn(&sb, &t);
        m = only_frame(&sb);
        FIELDS(m, 1, 2, 3);
        cmp = sub(m, 1);
        FIELDS(cmp, 2, 3, 6);
        assert_int_equal(varint(cmp, 2), 2); /* MOD */
        assert_str_field(cmp, 3, "/registry/pods/ns/a");
        assert_int_equal(varint(cmp, 6), 41);
        op = sub(m, 2);
        FIELDS(op, 2);
        put = sub(op, 2);
        FIELDS(put, 1, 2);
        assert_str_field(put, 1, "/registry/pods/ns/a");
        assert_bytes_field(put, 2, "v\0\xff", 3);
        assert_failure_reads(m, "/registry/pods/ns/a");
        strbuf_release(&sb);
}

/* PutRequest lease=3 when the txn has one. */
static void test_txn_put_lease(void **state)
{
        const struct etcd_txn t = { .key = "/registry/events/ns/e",
                                    .target = ETCD_COMPARE_CREATE,
                                    .equals = 0,
                                    .value = "{}",
                                    .value_len = 2,
                                    .lease = 0x694d7a3b2c1d0e0f };
        struct strbuf sb;
        struct msg m, put;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_txn(&sb, &t);
        m = only_frame(&sb);
        put = sub(sub(m, 2), 2);
        FIELDS(put, 1, 2, 3);
        assert_str_field(put, 1, "/registry/events/ns/e");
        assert_str_field(put, 2, "{}");
        assert_int_equal(varint(put, 3), 0x694d7a3b2c1d0e0f);
        strbuf_release(&sb);
}

/* An empty value is a put of "", not a delete. */
static void test_txn_put_empty(void **state)
{
        const struct etcd_txn t = { .key = "/k", .value = "", .value_len = 0 };
        struct strbuf sb;
        struct msg m, op, put;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_txn(&sb, &t);
        m = only_frame(&sb);
        op = sub(m, 2);
        FIELDS(op, 2);
        put = sub(op, 2);
        assert_str_field(put, 1, "/k");
        assert_int_equal(count(put, 3), 0);
        if (count(put, 2))
                assert_int_equal(sub(put, 2).len, 0);
        strbuf_release(&sb);
}

/* value NULL: RequestOp request_delete_range=3; DeleteRangeRequest key=1 prev_kv=3. */
static void test_txn_delete(void **state)
{
        const struct etcd_txn t = { .key = "/registry/pods/ns/a",
                                    .target = ETCD_COMPARE_VERSION,
                                    .equals = 3 };
        struct strbuf sb;
        struct msg m, cmp, op, del;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_txn(&sb, &t);
        m = only_frame(&sb);
        FIELDS(m, 1, 2, 3);
        cmp = sub(m, 1);
        FIELDS(cmp, 3, 4); /* target VERSION is 0 */
        assert_int_equal(varint(cmp, 4), 3);
        op = sub(m, 2);
        FIELDS(op, 3);
        del = sub(op, 3);
        FIELDS(del, 1, 3);
        assert_str_field(del, 1, "/registry/pods/ns/a");
        assert_int_equal(varint(del, 3), 1);
        assert_failure_reads(m, "/registry/pods/ns/a");
        strbuf_release(&sb);
}

/* Each compare target: Compare target=2 (VERSION=0 left out, CREATE=1, MOD=2) and the oneof's
 * field version=4, create_revision=5, mod_revision=6, written also when it compares with 0. */
static void test_txn_compare_targets(void **state)
{
        static const struct {
                enum etcd_compare_target target;
                int64_t equals;
                uint32_t field;
        } cases[] = {
                { ETCD_COMPARE_VERSION, 0, 4 }, { ETCD_COMPARE_VERSION, 7, 4 },
                { ETCD_COMPARE_CREATE, 0, 5 },  { ETCD_COMPARE_CREATE, 99, 5 },
                { ETCD_COMPARE_MOD, 0, 6 },     { ETCD_COMPARE_MOD, (int64_t) 1 << 33, 6 },
        };

        (void) state;
        for (size_t i = 0; i < N_ELEMS(cases); i++) {
                const struct etcd_txn t = { .key = "/key",
                                            .target = cases[i].target,
                                            .equals = cases[i].equals,
                                            .value = "v",
                                            .value_len = 1 };
                struct strbuf sb;
                struct msg cmp;

                strbuf_init(&sb);
                etcd_rpc_txn(&sb, &t);
                cmp = sub(only_frame(&sb), 1);
                assert_int_equal(varint_or_zero(cmp, 1), 0); /* result EQUAL */
                if (cases[i].target == ETCD_COMPARE_VERSION)
                        FIELDS(cmp, 3, 4);
                else
                        FIELDS(cmp, 2, 3, cases[i].field);
                assert_int_equal(varint_or_zero(cmp, 2), (uint64_t) cases[i].target);
                assert_str_field(cmp, 3, "/key");
                assert_int_equal(varint(cmp, cases[i].field), (uint64_t) cases[i].equals);
                strbuf_release(&sb);
        }
}

/* DeleteRangeRequest key=1 prev_kv=3, no range_end. */
static void test_delete(void **state)
{
        struct strbuf sb;
        struct msg m;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_delete(&sb, "/registry/leases/kube-node-lease/n1");
        m = only_frame(&sb);
        FIELDS(m, 1, 3);
        assert_str_field(m, 1, "/registry/leases/kube-node-lease/n1");
        assert_int_equal(varint(m, 3), 1);
        strbuf_release(&sb);
}

/* LeaseGrantRequest TTL=1 (no ID=2: etcd picks it). */
static void test_lease_grant(void **state)
{
        struct strbuf sb;
        struct msg m;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_lease_grant(&sb, 3600);
        m = only_frame(&sb);
        FIELDS(m, 1);
        assert_int_equal(varint(m, 1), 3600);
        strbuf_release(&sb);
}

/* CompactionRequest revision=1 (no physical=2). */
static void test_compact(void **state)
{
        struct strbuf sb;
        struct msg m;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_compact(&sb, ((int64_t) 1 << 33) + 5);
        m = only_frame(&sb);
        FIELDS(m, 1);
        assert_int_equal(varint(m, 1), ((uint64_t) 1 << 33) + 5);
        strbuf_release(&sb);
}

/* WatchRequest create_request=1; WatchCreateRequest key=1 range_end=2 start_revision=3, no
 * prev_kv=6. */
static void test_watch_create(void **state)
{
        struct strbuf sb;
        struct msg m, c;

        (void) state;
        strbuf_init(&sb);
        etcd_rpc_watch_create(&sb, "/registry/pods/", "/registry/pods0", 1234);
        m = only_frame(&sb);
        FIELDS(m, 1);
        c = sub(m, 1);
        FIELDS(c, 1, 2, 3);
        assert_str_field(c, 1, "/registry/pods/");
        assert_str_field(c, 2, "/registry/pods0");
        assert_int_equal(varint(c, 3), 1234);
        strbuf_release(&sb);

        /* from now: no start_revision */
        strbuf_init(&sb);
        etcd_rpc_watch_create(&sb, "/registry/", "/registry0", 0);
        c = sub(only_frame(&sb), 1);
        FIELDS(c, 1, 2);
        assert_str_field(c, 1, "/registry/");
        assert_str_field(c, 2, "/registry0");
        strbuf_release(&sb);
}

/* ---- answers ---- */

/* Unknown fields of every wire type, at numbers no message here has. */
static void put_unknown(struct pbw *w)
{
        pbw_int64(w, 1000, -5);
        pbw_double(w, 1001, 2.5);
        pbw_string(w, 1002, "unknown");
        pbw_tag(w, 1003, PB_WIRE_FIXED32);
        strbuf_add(w->sb, "\1\2\3\4", 4);
        assert_int_equal(pbw_begin(w, 1004), 0);
        pbw_string(w, 1, "nested");
        pbw_end(w);
}

/* ResponseHeader cluster_id=1 member_id=2 revision=3 raft_term=4, in field 1. */
static void put_header(struct pbw *w, int64_t revision)
{
        assert_int_equal(pbw_begin(w, 1), 0);
        pbw_uint64(w, 1, 0xcdef0123456789abull);
        pbw_uint64(w, 2, 0x1122334455667788ull);
        pbw_int64(w, 3, revision);
        pbw_uint64(w, 4, 5);
        put_unknown(w);
        pbw_end(w);
}

/* mvccpb.KeyValue key=1 create_revision=2 mod_revision=3 version=4 value=5 (left out when
 * NULL) lease=6 (left out when 0), in field `field`. */
static void put_kv(struct pbw *w, uint32_t field, const char *key, const char *value,
                   int64_t create, int64_t mod, int64_t version, int64_t lease)
{
        assert_int_equal(pbw_begin(w, field), 0);
        pbw_string(w, 1, key);
        pbw_int64(w, 2, create);
        pbw_int64(w, 3, mod);
        pbw_int64(w, 4, version);
        if (value)
                pbw_string(w, 5, value);
        if (lease)
                pbw_int64(w, 6, lease);
        pbw_end(w);
}

static void answer_begin(struct strbuf *sb, struct pbw *w)
{
        strbuf_init(sb);
        pbw_init(w, sb);
}

/* The answer w wrote to sb, decoded. */
static void decode(enum etcd_method m, struct pbw *w, const struct strbuf *sb,
                   struct etcd_answer *a)
{
        pbw_finish(w);
        assert_int_equal(etcd_rpc_answer(m, (const uint8_t *) sb->buf, sb->len, a), 0);
}

/* p[0..n) lies in sb's bytes. */
static void assert_in(const struct strbuf *sb, const uint8_t *p, size_t n)
{
        const uint8_t *b = (const uint8_t *) sb->buf;

        assert_non_null(p);
        assert_true(p >= b && p + n <= b + sb->len);
}

/* kv is key=value (value "": none, value_len 0) with those numbers, its bytes in sb. */
static void assert_kv(const struct strbuf *sb, const struct etcd_kv *kv, const char *key,
                      const char *value, int64_t create, int64_t mod, int64_t version,
                      int64_t lease)
{
        assert_int_equal(kv->key_len, strlen(key));
        assert_in(sb, kv->key, kv->key_len);
        assert_memory_equal(kv->key, key, kv->key_len);
        assert_non_null(kv->value);
        assert_int_equal(kv->value_len, strlen(value));
        if (kv->value_len) {
                assert_in(sb, kv->value, kv->value_len);
                assert_memory_equal(kv->value, value, kv->value_len);
        }
        assert_int_equal(kv->create_revision, create);
        assert_int_equal(kv->mod_revision, mod);
        assert_int_equal(kv->version, version);
        assert_int_equal(kv->lease, lease);
}

/* What no method but the one named has is zero. */
static void assert_no_range(const struct etcd_answer *a)
{
        assert_false(a->more);
        assert_int_equal(a->count, 0);
}

static void assert_no_lease(const struct etcd_answer *a)
{
        assert_int_equal(a->lease_id, 0);
        assert_int_equal(a->lease_ttl, 0);
        assert_null(a->lease_error);
        assert_int_equal(a->lease_error_len, 0);
}

static void assert_no_watch(const struct etcd_answer *a)
{
        assert_false(a->created);
        assert_false(a->canceled);
        assert_int_equal(a->compact_revision, 0);
        assert_null(a->events);
        assert_int_equal(a->n_events, 0);
}

static void assert_no_kvs(const struct etcd_answer *a)
{
        assert_null(a->kvs);
        assert_int_equal(a->n_kvs, 0);
}

/* RangeResponse header=1 kvs=2 more=3 count=4; kvs point into the answer, a kv without value
 * has "", unknown fields everywhere are skipped. */
static void test_answer_range(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_unknown(&w);
        put_header(&w, 1234);
        put_kv(&w, 2, "/registry/pods/ns/a", "{\"kind\":\"Pod\"}", 5, 6, 2, 77);
        put_kv(&w, 2, "/registry/pods/ns/b", NULL, 7, 7, 1, 0);
        /* a kv with unknown fields around its own, and an empty value given */
        assert_int_equal(pbw_begin(&w, 2), 0);
        put_unknown(&w);
        pbw_string(&w, 1, "/registry/pods/ns/c");
        pbw_bytes(&w, 5, "", 0);
        pbw_int64(&w, 3, 9);
        put_unknown(&w);
        pbw_end(&w);
        pbw_bool(&w, 3, true);
        pbw_int64(&w, 4, 3);
        put_unknown(&w);
        decode(ETCD_RANGE, &w, &sb, &a);
        assert_int_equal(a.revision, 1234);
        assert_int_equal(a.n_kvs, 3);
        assert_kv(&sb, &a.kvs[0], "/registry/pods/ns/a", "{\"kind\":\"Pod\"}", 5, 6, 2, 77);
        assert_kv(&sb, &a.kvs[1], "/registry/pods/ns/b", "", 7, 7, 1, 0);
        assert_kv(&sb, &a.kvs[2], "/registry/pods/ns/c", "", 0, 9, 0, 0);
        assert_true(a.more);
        assert_int_equal(a.count, 3);
        assert_false(a.succeeded);
        assert_no_lease(&a);
        assert_no_watch(&a);
        etcd_answer_release(&a);
        assert_null(a.kvs);
        assert_int_equal(a.n_kvs, 0);
        strbuf_release(&sb);
}

/* A count_only answer; an empty message is an answer of zeros. */
static void test_answer_range_count(void **state)
{
        static const uint8_t none[1];
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 50);
        pbw_int64(&w, 4, 1000);
        decode(ETCD_RANGE, &w, &sb, &a);
        assert_int_equal(a.revision, 50);
        assert_int_equal(a.count, 1000);
        assert_false(a.more);
        assert_no_kvs(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);

        for (int m = ETCD_RANGE; m <= ETCD_WATCH; m++) {
                memset(&a, 0xff, sizeof(a)); /* zeroed by the decoder */
                assert_int_equal(etcd_rpc_answer((enum etcd_method) m, none, 0, &a), 0);
                assert_int_equal(a.revision, 0);
                assert_no_kvs(&a);
                assert_no_range(&a);
                assert_false(a.succeeded);
                assert_no_lease(&a);
                assert_no_watch(&a);
                etcd_answer_release(&a);
        }
}

/* TxnResponse header=1 succeeded=2 responses=3; ResponseOp response_put=2: no kvs. */
static void test_answer_txn_put(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 10);
        pbw_bool(&w, 2, true);
        assert_int_equal(pbw_begin(&w, 3), 0);
        assert_int_equal(pbw_begin(&w, 2), 0); /* PutResponse */
        put_header(&w, 10);
        pbw_end(&w);
        pbw_end(&w);
        put_unknown(&w);
        decode(ETCD_TXN, &w, &sb, &a);
        assert_int_equal(a.revision, 10);
        assert_true(a.succeeded);
        assert_no_kvs(&a);
        assert_no_range(&a);
        assert_no_lease(&a);
        assert_no_watch(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* A failed compare: ResponseOp response_range=1, its RangeResponse's kvs=2. */
static void test_answer_txn_range(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 11);
        /* succeeded false: left out */
        assert_int_equal(pbw_begin(&w, 3), 0);
        put_unknown(&w);
        assert_int_equal(pbw_begin(&w, 1), 0);
        put_header(&w, 11);
        put_kv(&w, 2, "/registry/pods/ns/a", "current", 3, 8, 4, 0);
        pbw_int64(&w, 4, 1);
        put_unknown(&w);
        pbw_end(&w);
        pbw_end(&w);
        decode(ETCD_TXN, &w, &sb, &a);
        assert_int_equal(a.revision, 11);
        assert_false(a.succeeded);
        assert_int_equal(a.n_kvs, 1);
        assert_kv(&sb, &a.kvs[0], "/registry/pods/ns/a", "current", 3, 8, 4, 0);
        assert_no_range(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);

        /* the key is gone: a range of nothing */
        answer_begin(&sb, &w);
        put_header(&w, 12);
        pbw_bool(&w, 2, false);
        assert_int_equal(pbw_begin(&w, 3), 0);
        assert_int_equal(pbw_begin(&w, 1), 0);
        put_header(&w, 12);
        pbw_end(&w);
        pbw_end(&w);
        decode(ETCD_TXN, &w, &sb, &a);
        assert_int_equal(a.revision, 12);
        assert_false(a.succeeded);
        assert_no_kvs(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* A delete in a txn: ResponseOp response_delete_range=3, DeleteRangeResponse header=1
 * deleted=2 prev_kvs=3. */
static void test_answer_txn_delete(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 13);
        pbw_bool(&w, 2, true);
        assert_int_equal(pbw_begin(&w, 3), 0);
        assert_int_equal(pbw_begin(&w, 3), 0);
        put_header(&w, 13);
        pbw_int64(&w, 2, 1);
        put_kv(&w, 3, "/registry/pods/ns/a", "last", 3, 12, 5, 0);
        pbw_end(&w);
        pbw_end(&w);
        decode(ETCD_TXN, &w, &sb, &a);
        assert_int_equal(a.revision, 13);
        assert_true(a.succeeded);
        assert_int_equal(a.n_kvs, 1);
        assert_kv(&sb, &a.kvs[0], "/registry/pods/ns/a", "last", 3, 12, 5, 0);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* Only the first ResponseOp's kvs count (etcd-rpc.h), whatever the second holds. */
static void test_answer_txn_first_response(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 14);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(pbw_begin(&w, 3), 0);
                assert_int_equal(pbw_begin(&w, 1), 0);
                put_kv(&w, 2, i ? "/second" : "/first", "v", 1, 1, 1, 0);
                pbw_end(&w);
                pbw_end(&w);
        }
        decode(ETCD_TXN, &w, &sb, &a);
        assert_int_equal(a.n_kvs, 1);
        assert_kv(&sb, &a.kvs[0], "/first", "v", 1, 1, 1, 0);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* The first ResponseOp a range of nothing (as a put's would be): its kvs, none, are the
 * answer's; a second response's kvs are not. */
static void test_answer_txn_empty_first_response(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;
        size_t n;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 15);
        assert_int_equal(pbw_begin(&w, 3), 0);
        assert_int_equal(pbw_begin(&w, 1), 0);
        put_header(&w, 15);
        pbw_end(&w);
        pbw_end(&w);
        assert_int_equal(pbw_begin(&w, 3), 0);
        assert_int_equal(pbw_begin(&w, 1), 0);
        put_kv(&w, 2, "/second", "v", 1, 1, 1, 0);
        pbw_end(&w);
        pbw_end(&w);
        decode(ETCD_TXN, &w, &sb, &a);
        n = a.n_kvs;
        etcd_answer_release(&a); /* before the check: nothing leaks when it fails */
        strbuf_release(&sb);
        assert_int_equal(n, 0);
}

/* DeleteRangeResponse header=1 deleted=2 prev_kvs=3. */
static void test_answer_delete_range(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 20);
        pbw_int64(&w, 2, 1);
        put_kv(&w, 3, "/registry/leases/kube-node-lease/n1", NULL, 4, 19, 15, 0);
        put_unknown(&w);
        decode(ETCD_DELETE_RANGE, &w, &sb, &a);
        assert_int_equal(a.revision, 20);
        assert_int_equal(a.n_kvs, 1);
        assert_kv(&sb, &a.kvs[0], "/registry/leases/kube-node-lease/n1", "", 4, 19, 15, 0);
        assert_no_range(&a);
        assert_false(a.succeeded);
        assert_no_lease(&a);
        assert_no_watch(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);

        /* nothing was there */
        answer_begin(&sb, &w);
        put_header(&w, 21);
        decode(ETCD_DELETE_RANGE, &w, &sb, &a);
        assert_int_equal(a.revision, 21);
        assert_no_kvs(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* LeaseGrantResponse header=1 ID=2 TTL=3 error=4. */
static void test_answer_lease_grant(void **state)
{
        static const char why[] = "etcdserver: too many requests";
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 30);
        pbw_int64(&w, 2, 0x694d7a3b2c1d0e0f);
        pbw_int64(&w, 3, 60);
        put_unknown(&w);
        decode(ETCD_LEASE_GRANT, &w, &sb, &a);
        assert_int_equal(a.revision, 30);
        assert_int_equal(a.lease_id, 0x694d7a3b2c1d0e0f);
        assert_int_equal(a.lease_ttl, 60);
        assert_null(a.lease_error);
        assert_int_equal(a.lease_error_len, 0);
        assert_no_kvs(&a);
        assert_no_watch(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);

        answer_begin(&sb, &w);
        put_header(&w, 31);
        pbw_string(&w, 4, why);
        decode(ETCD_LEASE_GRANT, &w, &sb, &a);
        assert_int_equal(a.lease_id, 0);
        assert_int_equal(a.lease_error_len, strlen(why));
        assert_in(&sb, a.lease_error, a.lease_error_len);
        assert_memory_equal(a.lease_error, why, strlen(why));
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* WatchResponse header=1 watch_id=2 created=3: the watch's creation. */
static void test_answer_watch_created(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 100);
        pbw_int64(&w, 2, 7);
        pbw_bool(&w, 3, true);
        put_unknown(&w);
        decode(ETCD_WATCH, &w, &sb, &a);
        assert_int_equal(a.revision, 100);
        assert_true(a.created);
        assert_false(a.canceled);
        assert_int_equal(a.compact_revision, 0);
        assert_int_equal(a.n_events, 0);
        assert_no_kvs(&a);
        assert_no_range(&a);
        assert_no_lease(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* events=11 of mvccpb.Event type=1 (PUT 0, left out or not; DELETE 1) kv=2 prev_kv=3: the
 * event's kv is kv, whatever prev_kv holds and wherever it stands. */
static void test_answer_watch_events(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 105);
        pbw_int64(&w, 2, 7);
        assert_int_equal(pbw_begin(&w, 11), 0); /* a PUT, type left out */
        put_kv(&w, 3, "/registry/pods/ns/a", "old", 101, 103, 1, 0);
        put_kv(&w, 2, "/registry/pods/ns/a", "new", 101, 104, 2, 0);
        put_kv(&w, 3, "/registry/pods/ns/a", "old", 101, 103, 1, 0);
        pbw_end(&w);
        assert_int_equal(pbw_begin(&w, 11), 0); /* a DELETE: a kv without value */
        pbw_int64(&w, 1, 1);
        assert_int_equal(pbw_begin(&w, 2), 0);
        pbw_string(&w, 1, "/registry/pods/ns/b");
        pbw_int64(&w, 3, 105);
        pbw_end(&w);
        put_unknown(&w);
        pbw_end(&w);
        put_unknown(&w);
        assert_int_equal(pbw_begin(&w, 11), 0); /* a PUT, type written */
        pbw_int64(&w, 1, 0);
        put_unknown(&w);
        put_kv(&w, 2, "/registry/pods/ns/c", "c", 105, 105, 1, 88);
        pbw_end(&w);
        decode(ETCD_WATCH, &w, &sb, &a);
        assert_int_equal(a.revision, 105);
        assert_false(a.created);
        assert_false(a.canceled);
        assert_int_equal(a.n_events, 3);
        assert_int_equal(a.events[0].type, ETCD_EVENT_PUT);
        assert_kv(&sb, &a.events[0].kv, "/registry/pods/ns/a", "new", 101, 104, 2, 0);
        assert_int_equal(a.events[1].type, ETCD_EVENT_DELETE);
        assert_kv(&sb, &a.events[1].kv, "/registry/pods/ns/b", "", 0, 105, 0, 0);
        assert_int_equal(a.events[2].type, ETCD_EVENT_PUT);
        assert_kv(&sb, &a.events[2].kv, "/registry/pods/ns/c", "c", 105, 105, 1, 88);
        assert_no_kvs(&a);
        etcd_answer_release(&a);
        assert_null(a.events);
        assert_int_equal(a.n_events, 0);
        strbuf_release(&sb);
}

/* canceled=4 compact_revision=5 cancel_reason=6: a watch from a compacted revision. */
static void test_answer_watch_canceled(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_header(&w, 200);
        pbw_int64(&w, 2, 7);
        pbw_bool(&w, 4, true);
        pbw_int64(&w, 5, 40);
        pbw_string(&w, 6, "etcdserver: mvcc: required revision has been compacted");
        decode(ETCD_WATCH, &w, &sb, &a);
        assert_int_equal(a.revision, 200);
        assert_false(a.created);
        assert_true(a.canceled);
        assert_int_equal(a.compact_revision, 40);
        assert_int_equal(a.n_events, 0);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* CompactionResponse header=1. */
static void test_answer_compact(void **state)
{
        struct strbuf sb;
        struct pbw w;
        struct etcd_answer a;

        (void) state;
        answer_begin(&sb, &w);
        put_unknown(&w);
        put_header(&w, 9);
        pbw_int64(&w, 2, 1); /* a field of other answers: nothing here */
        decode(ETCD_COMPACT, &w, &sb, &a);
        assert_int_equal(a.revision, 9);
        assert_no_kvs(&a);
        assert_no_range(&a);
        assert_false(a.succeeded);
        assert_no_lease(&a);
        assert_no_watch(&a);
        etcd_answer_release(&a);
        strbuf_release(&sb);
}

/* ---- malformed answers ---- */

static void expect_bad(const char *what, enum etcd_method m, const void *bytes, size_t n)
{
        struct etcd_answer a;
        int r = etcd_rpc_answer(m, bytes, n, &a);

        etcd_answer_release(&a);
        if (r != -EBADMSG)
                fail_msg("%s (method %d): got %d, want -EBADMSG", what, (int) m, r);
}

/* Every strict prefix of an answer of one nested top-level field (with nesting inside) is cut
 * short somewhere: -EBADMSG, never a read past it (each prefix copied to a buffer of its own). */
static void test_answer_truncated(void **state)
{
        (void) state;
        for (int m = ETCD_RANGE; m <= ETCD_WATCH; m++) {
                static const uint32_t top[] = {
                        [ETCD_RANGE] = 2,   [ETCD_TXN] = 3,         [ETCD_DELETE_RANGE] = 3,
                        [ETCD_COMPACT] = 1, [ETCD_LEASE_GRANT] = 1, [ETCD_WATCH] = 11
                };
                struct strbuf sb;
                struct pbw w;

                answer_begin(&sb, &w);
                assert_int_equal(pbw_begin(&w, top[m]), 0);
                if (m == ETCD_TXN) {
                        assert_int_equal(pbw_begin(&w, 1), 0);
                        put_kv(&w, 2, "/registry/pods/ns/a", "value", 1, 2, 3, 4);
                        pbw_end(&w);
                } else if (m == ETCD_WATCH) {
                        pbw_int64(&w, 1, 1);
                        put_kv(&w, 2, "/registry/pods/ns/a", "value", 1, 2, 3, 4);
                } else if (top[m] == 1) {
                        pbw_int64(&w, 3, 1234567);
                } else {
                        pbw_string(&w, 1, "/registry/pods/ns/a");
                        pbw_int64(&w, 2, 1);
                        pbw_string(&w, 5, "value");
                }
                pbw_end(&w);
                pbw_finish(&w);
                for (size_t n = 1; n < sb.len; n++) {
                        uint8_t *cut = malloc(n);
                        char what[64];

                        assert_non_null(cut);
                        memcpy(cut, sb.buf, n);
                        snprintf(what, sizeof(what), "cut at %zu of %zu", n, sb.len);
                        expect_bad(what, (enum etcd_method) m, cut, n);
                        free(cut);
                }
                strbuf_release(&sb);
        }
}

/* A known field of the wrong wire type, an event type not PUT or DELETE. */
static void test_answer_wrong_types(void **state)
{
        static const struct {
                const char *what;
                enum etcd_method m;
                const char *bytes;
                size_t n;
        } cases[] = {
                { "header as a varint", ETCD_RANGE, BYTES("\x08\x01") },
                { "header as a varint", ETCD_COMPACT, BYTES("\x08\x01") },
                { "header as fixed32", ETCD_WATCH, BYTES("\x0d\x01\x02\x03\x04") },
                { "header revision as bytes", ETCD_TXN, BYTES("\x0a\x02\x1a\x00") },
                { "header revision as fixed64", ETCD_LEASE_GRANT,
                  BYTES("\x0a\x09\x19\x01\x02\x03\x04\x05\x06\x07\x08") },
                { "kvs as a varint", ETCD_RANGE, BYTES("\x10\x01") },
                { "more as bytes", ETCD_RANGE, BYTES("\x1a\x01\x01") },
                { "count as fixed64", ETCD_RANGE, BYTES("\x21\x01\x00\x00\x00\x00\x00\x00\x00") },
                { "kv key as a varint", ETCD_RANGE, BYTES("\x12\x02\x08\x01") },
                { "kv value as a varint", ETCD_RANGE, BYTES("\x12\x02\x28\x01") },
                { "kv value as fixed32", ETCD_RANGE, BYTES("\x12\x05\x2d\x01\x02\x03\x04") },
                { "kv create_revision as bytes", ETCD_RANGE, BYTES("\x12\x02\x12\x00") },
                { "kv mod_revision as bytes", ETCD_RANGE, BYTES("\x12\x02\x1a\x00") },
                { "kv version as bytes", ETCD_RANGE, BYTES("\x12\x02\x22\x00") },
                { "kv lease as bytes", ETCD_RANGE, BYTES("\x12\x02\x32\x00") },
                { "succeeded as bytes", ETCD_TXN, BYTES("\x12\x01\x01") },
                { "responses as a varint", ETCD_TXN, BYTES("\x18\x01") },
                { "response_range as a varint", ETCD_TXN, BYTES("\x1a\x02\x08\x01") },
                { "response_delete_range as fixed32", ETCD_TXN,
                  BYTES("\x1a\x05\x1d\x00\x00\x00\x00") },
                { "range kvs as a varint in a txn", ETCD_TXN, BYTES("\x1a\x04\x0a\x02\x10\x01") },
                { "prev_kvs as a varint in a txn", ETCD_TXN, BYTES("\x1a\x04\x1a\x02\x18\x01") },
                { "kv key as a varint in a txn", ETCD_TXN,
                  BYTES("\x1a\x06\x0a\x04\x12\x02\x08\x01") },
                { "prev_kvs as a varint", ETCD_DELETE_RANGE, BYTES("\x18\x01") },
                { "prev_kv key as a varint", ETCD_DELETE_RANGE, BYTES("\x1a\x02\x08\x01") },
                { "lease ID as bytes", ETCD_LEASE_GRANT, BYTES("\x12\x00") },
                { "lease TTL as fixed64", ETCD_LEASE_GRANT,
                  BYTES("\x19\x01\x00\x00\x00\x00\x00\x00\x00") },
                { "lease error as a varint", ETCD_LEASE_GRANT, BYTES("\x20\x01") },
                { "created as bytes", ETCD_WATCH, BYTES("\x1a\x00") },
                { "canceled as bytes", ETCD_WATCH, BYTES("\x22\x00") },
                { "compact_revision as bytes", ETCD_WATCH, BYTES("\x2a\x00") },
                { "events as a varint", ETCD_WATCH, BYTES("\x58\x01") },
                { "event type as bytes", ETCD_WATCH, BYTES("\x5a\x02\x0a\x00") },
                { "event kv as a varint", ETCD_WATCH, BYTES("\x5a\x02\x10\x01") },
                { "event kv key as a varint", ETCD_WATCH, BYTES("\x5a\x04\x12\x02\x08\x01") },
                { "event type 2", ETCD_WATCH, BYTES("\x5a\x02\x08\x02") },
                { "event type -1", ETCD_WATCH,
                  BYTES("\x5a\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01") },
                { "event type 2^32", ETCD_WATCH, BYTES("\x5a\x06\x08\x80\x80\x80\x80\x10") },
                { "event type 2 after a good event", ETCD_WATCH,
                  BYTES("\x5a\x02\x08\x01\x5a\x02\x08\x02") },
        };

        (void) state;
        for (size_t i = 0; i < N_ELEMS(cases); i++)
                expect_bad(cases[i].what, cases[i].m, cases[i].bytes, cases[i].n);
}

/* Bytes that are not protobuf, for every method. */
static void test_answer_garbage(void **state)
{
        static const struct {
                const char *what;
                const char *bytes;
                size_t n;
        } cases[] = {
                { "field 0", BYTES("\x00\x01") },
                { "group start", BYTES("\x0b") },
                { "wire type 7", BYTES("\x0f") },
                { "varint of 11 bytes", BYTES("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01") },
                { "truncated varint", BYTES("\x20\x96") },
                { "length past the end", BYTES("\x0a\x05") },
                { "huge length", BYTES("\x12\xff\xff\xff\xff\xff\xff\xff\xff\x7f") },
                { "truncated fixed64", BYTES("\x79\x01\x02\x03") },
                { "JSON", BYTES("{\"error\":\"etcdserver: request timed out\"}") },
                { "HTML", BYTES("<html><body>502 Bad Gateway</body></html>") },
                { "good field then garbage", BYTES("\x0a\x02\x18\x05\xff") },
        };

        (void) state;
        for (int m = ETCD_RANGE; m <= ETCD_WATCH; m++)
                for (size_t i = 0; i < N_ELEMS(cases); i++)
                        expect_bad(cases[i].what, (enum etcd_method) m, cases[i].bytes, cases[i].n);
}

/* ---- paths ---- */

static void test_paths(void **state)
{
        (void) state;
        assert_string_equal(etcd_rpc_path(ETCD_RANGE), "/etcdserverpb.KV/Range");
        assert_string_equal(etcd_rpc_path(ETCD_TXN), "/etcdserverpb.KV/Txn");
        assert_string_equal(etcd_rpc_path(ETCD_DELETE_RANGE), "/etcdserverpb.KV/DeleteRange");
        assert_string_equal(etcd_rpc_path(ETCD_COMPACT), "/etcdserverpb.KV/Compact");
        assert_string_equal(etcd_rpc_path(ETCD_LEASE_GRANT), "/etcdserverpb.Lease/LeaseGrant");
        assert_string_equal(etcd_rpc_path(ETCD_WATCH), "/etcdserverpb.Watch/Watch");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_range_key_alone),
                cmocka_unit_test(test_range_all),
                cmocka_unit_test(test_frame_header_big_endian),
                cmocka_unit_test(test_requests_append),
                cmocka_unit_test(test_txn_put),
                cmocka_unit_test(test_txn_put_lease),
                cmocka_unit_test(test_txn_put_empty),
                cmocka_unit_test(test_txn_delete),
                cmocka_unit_test(test_txn_compare_targets),
                cmocka_unit_test(test_delete),
                cmocka_unit_test(test_lease_grant),
                cmocka_unit_test(test_compact),
                cmocka_unit_test(test_watch_create),
                cmocka_unit_test(test_answer_range),
                cmocka_unit_test(test_answer_range_count),
                cmocka_unit_test(test_answer_txn_put),
                cmocka_unit_test(test_answer_txn_range),
                cmocka_unit_test(test_answer_txn_delete),
                cmocka_unit_test(test_answer_txn_first_response),
                cmocka_unit_test(test_answer_txn_empty_first_response),
                cmocka_unit_test(test_answer_delete_range),
                cmocka_unit_test(test_answer_lease_grant),
                cmocka_unit_test(test_answer_watch_created),
                cmocka_unit_test(test_answer_watch_events),
                cmocka_unit_test(test_answer_watch_canceled),
                cmocka_unit_test(test_answer_compact),
                cmocka_unit_test(test_answer_truncated),
                cmocka_unit_test(test_answer_wrong_types),
                cmocka_unit_test(test_answer_garbage),
                cmocka_unit_test(test_paths),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
