/* etcd-rpc.c: etcd v3's protobuf messages for the etcd store, and gRPC's framing of them
 * (etcd-rpc.h). Field numbers: etcd api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto. */
#include "store/etcd-rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/protowire.h"
#include "http/grpc.h"

/* rpc.proto's field numbers, by message. */
enum {
        HEADER_REVISION = 3, /* ResponseHeader */

        RANGE_KEY = 1, /* RangeRequest */
        RANGE_END = 2,
        RANGE_LIMIT = 3,
        RANGE_REVISION = 4,
        RANGE_COUNT_ONLY = 9,

        PUT_KEY = 1, /* PutRequest */
        PUT_VALUE = 2,
        PUT_LEASE = 3,

        DELETE_KEY = 1, /* DeleteRangeRequest */
        DELETE_PREV_KV = 3,

        OP_RANGE = 1, /* RequestOp, ResponseOp */
        OP_PUT = 2,
        OP_DELETE = 3,

        COMPARE_TARGET = 2, /* Compare (result 1: EQUAL is 0, left out) */
        COMPARE_KEY = 3,
        COMPARE_VERSION = 4,
        COMPARE_CREATE = 5,
        COMPARE_MOD = 6,

        TXN_COMPARE = 1, /* TxnRequest */
        TXN_SUCCESS = 2,
        TXN_FAILURE = 3,

        COMPACT_REVISION = 1, /* CompactionRequest */
        LEASE_GRANT_TTL = 1,  /* LeaseGrantRequest */
        WATCH_CREATE = 1,     /* WatchRequest */
        WATCH_CREATE_KEY = 1, /* WatchCreateRequest */
        WATCH_CREATE_END = 2,
        WATCH_CREATE_START = 3,

        ANSWER_HEADER = 1,    /* every response */
        RANGE_ANSWER_KVS = 2, /* RangeResponse */
        RANGE_ANSWER_MORE = 3,
        RANGE_ANSWER_COUNT = 4,
        TXN_ANSWER_SUCCEEDED = 2, /* TxnResponse */
        TXN_ANSWER_RESPONSES = 3,
        DELETE_ANSWER_PREV_KVS = 3, /* DeleteRangeResponse */
        LEASE_ANSWER_ID = 2,        /* LeaseGrantResponse */
        LEASE_ANSWER_TTL = 3,
        LEASE_ANSWER_ERROR = 4,
        WATCH_ANSWER_CREATED = 3, /* WatchResponse */
        WATCH_ANSWER_CANCELED = 4,
        WATCH_ANSWER_COMPACT_REVISION = 5,
        WATCH_ANSWER_EVENTS = 11,
        EVENT_TYPE = 1, /* mvccpb.Event */
        EVENT_KV = 2,

        KV_KEY = 1, /* mvccpb.KeyValue */
        KV_CREATE_REVISION = 2,
        KV_MOD_REVISION = 3,
        KV_VERSION = 4,
        KV_VALUE = 5,
        KV_LEASE = 6,
};

const char *etcd_rpc_path(enum etcd_method m)
{
        static const char *const paths[] = {
                [ETCD_RANGE] = "/etcdserverpb.KV/Range",
                [ETCD_TXN] = "/etcdserverpb.KV/Txn",
                [ETCD_DELETE_RANGE] = "/etcdserverpb.KV/DeleteRange",
                [ETCD_COMPACT] = "/etcdserverpb.KV/Compact",
                [ETCD_LEASE_GRANT] = "/etcdserverpb.Lease/LeaseGrant",
                [ETCD_WATCH] = "/etcdserverpb.Watch/Watch",
        };

        return paths[m];
}

/* --- requests --- */

/* Starts a gRPC frame at the end of out, its message written by w (frame_end closes both). */
static size_t frame_begin(struct strbuf *out, struct pbw *w)
{
        size_t at = grpc_frame_begin(out);

        pbw_init(w, out);
        return at;
}

static void frame_end(struct strbuf *out, struct pbw *w, size_t at)
{
        pbw_finish(w);
        grpc_frame_end(out, at);
}

static void key_only(struct pbw *w, uint32_t field, const char *key)
{
        (void) pbw_begin(w, field);
        pbw_bytes(w, RANGE_KEY, key, strlen(key));
        pbw_end(w);
}

void etcd_rpc_range(struct strbuf *out, const struct etcd_range *r)
{
        struct pbw w;
        size_t at = frame_begin(out, &w);

        pbw_bytes(&w, RANGE_KEY, r->key, r->key_len);
        if (r->range_end)
                pbw_bytes(&w, RANGE_END, r->range_end, r->range_end_len);
        if (r->limit)
                pbw_int64(&w, RANGE_LIMIT, r->limit);
        if (r->revision)
                pbw_int64(&w, RANGE_REVISION, r->revision);
        if (r->count_only)
                pbw_bool(&w, RANGE_COUNT_ONLY, true);
        frame_end(out, &w, at);
}

void etcd_rpc_txn(struct strbuf *out, const struct etcd_txn *t)
{
        static const uint32_t against[] = { [ETCD_COMPARE_VERSION] = COMPARE_VERSION,
                                            [ETCD_COMPARE_CREATE] = COMPARE_CREATE,
                                            [ETCD_COMPARE_MOD] = COMPARE_MOD };
        struct pbw w;
        size_t at = frame_begin(out, &w);

        (void) pbw_begin(&w, TXN_COMPARE);
        if (t->target != ETCD_COMPARE_VERSION)
                pbw_int32(&w, COMPARE_TARGET, (int32_t) t->target);
        pbw_bytes(&w, COMPARE_KEY, t->key, strlen(t->key));
        /* the oneof is written even when 0: "create_revision == 0" is the comparison */
        pbw_tag(&w, against[t->target], PB_WIRE_VARINT);
        pbw_varint(&w, (uint64_t) t->equals);
        pbw_end(&w);
        (void) pbw_begin(&w, TXN_SUCCESS);
        if (t->value) {
                (void) pbw_begin(&w, OP_PUT);
                pbw_bytes(&w, PUT_KEY, t->key, strlen(t->key));
                pbw_bytes(&w, PUT_VALUE, t->value, t->value_len);
                if (t->lease)
                        pbw_int64(&w, PUT_LEASE, t->lease);
                pbw_end(&w);
        } else {
                (void) pbw_begin(&w, OP_DELETE);
                pbw_bytes(&w, DELETE_KEY, t->key, strlen(t->key));
                pbw_bool(&w, DELETE_PREV_KV, true);
                pbw_end(&w);
        }
        pbw_end(&w);
        (void) pbw_begin(&w, TXN_FAILURE);
        key_only(&w, OP_RANGE, t->key);
        pbw_end(&w);
        frame_end(out, &w, at);
}

void etcd_rpc_delete(struct strbuf *out, const char *key)
{
        struct pbw w;
        size_t at = frame_begin(out, &w);

        pbw_bytes(&w, DELETE_KEY, key, strlen(key));
        pbw_bool(&w, DELETE_PREV_KV, true);
        frame_end(out, &w, at);
}

void etcd_rpc_lease_grant(struct strbuf *out, int64_t ttl_s)
{
        struct pbw w;
        size_t at = frame_begin(out, &w);

        pbw_int64(&w, LEASE_GRANT_TTL, ttl_s);
        frame_end(out, &w, at);
}

void etcd_rpc_compact(struct strbuf *out, int64_t revision)
{
        struct pbw w;
        size_t at = frame_begin(out, &w);

        pbw_int64(&w, COMPACT_REVISION, revision);
        frame_end(out, &w, at);
}

void etcd_rpc_watch_create(struct strbuf *out, const char *key, const char *range_end,
                           int64_t start_revision)
{
        struct pbw w;
        size_t at = frame_begin(out, &w);

        (void) pbw_begin(&w, WATCH_CREATE);
        pbw_bytes(&w, WATCH_CREATE_KEY, key, strlen(key));
        pbw_bytes(&w, WATCH_CREATE_END, range_end, strlen(range_end));
        if (start_revision)
                pbw_int64(&w, WATCH_CREATE_START, start_revision);
        pbw_end(&w);
        frame_end(out, &w, at);
}

/* --- answers --- */

void etcd_answer_release(struct etcd_answer *a)
{
        free(a->kvs);
        free(a->events);
        *a = (struct etcd_answer){ 0 };
}

/* The field's value when it has the wire type asked for; -EBADMSG otherwise. */
static int want(const struct pb_field *f, enum pb_wire wire)
{
        return f->wire == wire ? 0 : -EBADMSG;
}

static int header_of(const struct pbr *r, const struct pb_field *f, int64_t *ret_revision)
{
        struct pbr h;
        struct pb_field g;
        int k = pbr_sub(r, f, &h);

        while (k >= 0 && (k = pbr_next(&h, &g)) == 1)
                if (g.num == HEADER_REVISION)
                        k = want(&g, PB_WIRE_VARINT) ?: (*ret_revision = (int64_t) g.u, 1);
        return k;
}

static int kv_of(const struct pbr *r, const struct pb_field *f, struct etcd_kv *kv)
{
        struct pbr s;
        struct pb_field g;
        int k = pbr_sub(r, f, &s);

        *kv = (struct etcd_kv){ 0 };
        while (k >= 0 && (k = pbr_next(&s, &g)) == 1) {
                switch (g.num) {
                case KV_KEY:
                case KV_VALUE:
                        k = want(&g, PB_WIRE_LEN);
                        if (g.num == KV_KEY) {
                                kv->key = g.data;
                                kv->key_len = g.len;
                        } else {
                                kv->value = g.data;
                                kv->value_len = g.len;
                        }
                        break;
                case KV_CREATE_REVISION:
                case KV_MOD_REVISION:
                case KV_VERSION:
                case KV_LEASE:
                        k = want(&g, PB_WIRE_VARINT);
                        *(g.num == KV_CREATE_REVISION ? &kv->create_revision
                          : g.num == KV_MOD_REVISION  ? &kv->mod_revision
                          : g.num == KV_VERSION       ? &kv->version
                                                      : &kv->lease) = (int64_t) g.u;
                        break;
                default:
                        break;
                }
        }
        /* a key value without its value (a key read alone, an empty value) is valid */
        if (k == 0 && !kv->value)
                kv->value = (const uint8_t *) "";
        return k;
}

static int add_kv(struct etcd_answer *a, const struct pbr *r, const struct pb_field *f)
{
        if (want(f, PB_WIRE_LEN) < 0)
                return -EBADMSG;
        a->kvs = xrealloc(a->kvs, (a->n_kvs + 1) * sizeof(*a->kvs));
        return kv_of(r, f, &a->kvs[a->n_kvs++]);
}

/* A txn's first ResponseOp: the kvs of its range or its delete's prev_kvs (a put's answer
 * holds none the store reads). */
static int txn_response(struct etcd_answer *a, const struct pbr *r, const struct pb_field *f)
{
        struct pbr op, res;
        struct pb_field g, h;
        int k = want(f, PB_WIRE_LEN) ?: pbr_sub(r, f, &op);

        while (k >= 0 && (k = pbr_next(&op, &g)) == 1) {
                uint32_t kvs = g.num == OP_RANGE    ? RANGE_ANSWER_KVS
                               : g.num == OP_DELETE ? DELETE_ANSWER_PREV_KVS
                                                    : 0;

                if (!kvs)
                        continue;
                k = want(&g, PB_WIRE_LEN) ?: pbr_sub(&op, &g, &res);
                while (k >= 0 && (k = pbr_next(&res, &h)) == 1)
                        if (h.num == kvs)
                                k = add_kv(a, &res, &h) ?: 1;
        }
        return k;
}

static int event_of(struct etcd_answer *a, const struct pbr *r, const struct pb_field *f)
{
        struct pbr s;
        struct pb_field g;
        struct etcd_event *ev;
        int k = want(f, PB_WIRE_LEN) ?: pbr_sub(r, f, &s);

        if (k < 0)
                return k;
        a->events = xrealloc(a->events, (a->n_events + 1) * sizeof(*a->events));
        ev = &a->events[a->n_events++];
        /* an event without a kv reads as one of an empty key and value at revision 0 */
        *ev = (struct etcd_event){ .type = ETCD_EVENT_PUT,
                                   .kv = { .key = (const uint8_t *) "",
                                           .value = (const uint8_t *) "" } };
        while ((k = pbr_next(&s, &g)) == 1) {
                if (g.num == EVENT_TYPE) {
                        if (want(&g, PB_WIRE_VARINT) < 0 || g.u > ETCD_EVENT_DELETE)
                                return -EBADMSG;
                        ev->type = (enum etcd_event_type) g.u;
                } else if (g.num == EVENT_KV) {
                        k = want(&g, PB_WIRE_LEN) ?: kv_of(&s, &g, &ev->kv);
                        if (k < 0)
                                return k;
                }
        }
        return k;
}

/* One field of method m's answer. */
static int answer_field(enum etcd_method m, struct etcd_answer *a, const struct pbr *r,
                        const struct pb_field *f)
{
        if (f->num == ANSWER_HEADER)
                return want(f, PB_WIRE_LEN) ?: header_of(r, f, &a->revision);
        switch (m) {
        case ETCD_RANGE:
                if (f->num == RANGE_ANSWER_KVS)
                        return add_kv(a, r, f);
                if (f->num == RANGE_ANSWER_MORE || f->num == RANGE_ANSWER_COUNT) {
                        if (want(f, PB_WIRE_VARINT) < 0)
                                return -EBADMSG;
                        if (f->num == RANGE_ANSWER_MORE)
                                a->more = f->u != 0;
                        else
                                a->count = (int64_t) f->u;
                }
                return 0;
        case ETCD_TXN:
                if (f->num == TXN_ANSWER_SUCCEEDED) {
                        a->succeeded = f->u != 0;
                        return want(f, PB_WIRE_VARINT);
                }
                /* the responses: etcd_rpc_answer's */
                return 0;
        case ETCD_DELETE_RANGE:
                return f->num == DELETE_ANSWER_PREV_KVS ? add_kv(a, r, f) : 0;
        case ETCD_LEASE_GRANT:
                if (f->num == LEASE_ANSWER_ERROR) {
                        a->lease_error = f->data;
                        a->lease_error_len = f->len;
                        return want(f, PB_WIRE_LEN);
                }
                if (f->num == LEASE_ANSWER_ID || f->num == LEASE_ANSWER_TTL) {
                        *(f->num == LEASE_ANSWER_ID ? &a->lease_id : &a->lease_ttl) =
                                (int64_t) f->u;
                        return want(f, PB_WIRE_VARINT);
                }
                return 0;
        case ETCD_WATCH:
                switch (f->num) {
                case WATCH_ANSWER_CREATED:
                case WATCH_ANSWER_CANCELED:
                        *(f->num == WATCH_ANSWER_CREATED ? &a->created : &a->canceled) = f->u != 0;
                        return want(f, PB_WIRE_VARINT);
                case WATCH_ANSWER_COMPACT_REVISION:
                        a->compact_revision = (int64_t) f->u;
                        return want(f, PB_WIRE_VARINT);
                case WATCH_ANSWER_EVENTS:
                        return event_of(a, r, f);
                default:
                        return 0;
                }
        case ETCD_COMPACT:
                return 0;
        }
        return 0;
}

int etcd_rpc_answer(enum etcd_method m, const uint8_t *msg, size_t len, struct etcd_answer *ret)
{
        struct pbr r;
        struct pb_field f;
        size_t responses = 0;
        int k;

        *ret = (struct etcd_answer){ 0 };
        pbr_init(&r, msg, len);
        while ((k = pbr_next(&r, &f)) == 1) {
                /* a txn's first response only: every txn here has one operation a branch */
                if (m == ETCD_TXN && f.num == TXN_ANSWER_RESPONSES) {
                        if (responses++ == 0 && txn_response(ret, &r, &f) < 0)
                                return -EBADMSG;
                        continue;
                }
                if (answer_field(m, ret, &r, &f) < 0)
                        return -EBADMSG;
        }
        return k < 0 ? -EBADMSG : 0;
}
