/* etcd-rpc.h: the messages of etcd's v3 gRPC API that the etcd store sends and reads, in
 * protobuf (field numbers from etcd's api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto, 3.4),
 * each framed as a gRPC message (http/grpc.h: a zero compression flag and a 4-byte
 * big-endian length). Pure functions over bytes: the transport is store-etcd.c's.
 *
 * The store's requests are few shapes: a range, a txn on one key (compare its version,
 * create_revision or mod_revision; then put or delete it; else read it), a delete, a lease
 * grant, a compaction, a watch. Every answer decodes into one struct etcd_answer whose keys and
 * values are slices of the bytes decoded: those must outlive it. Decoding treats the bytes as
 * hostile (protowire.h's reader): malformed input is -EBADMSG, never a read past the end. */
#ifndef FLEXLET_STORE_ETCD_RPC_H
#define FLEXLET_STORE_ETCD_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/strbuf.h"

enum etcd_method {
        ETCD_RANGE,
        ETCD_TXN,
        ETCD_DELETE_RANGE,
        ETCD_COMPACT,
        ETCD_LEASE_GRANT,
        ETCD_WATCH,
};
/* The method's gRPC path ("/etcdserverpb.KV/Range", ...). */
const char *etcd_rpc_path(enum etcd_method m);

/* mvccpb.KeyValue; key and value point into the decoded bytes. */
struct etcd_kv {
        const uint8_t *key, *value;
        size_t key_len, value_len;
        int64_t create_revision, mod_revision, version, lease;
};

/* mvccpb.Event's type */
enum etcd_event_type { ETCD_EVENT_PUT = 0, ETCD_EVENT_DELETE = 1 };

struct etcd_event {
        enum etcd_event_type type;
        struct etcd_kv kv;
};

/* Any answer of the methods above, decoded: the fields its message has, the rest zero. */
struct etcd_answer {
        int64_t revision; /* header.revision */
        /* RangeResponse.kvs; a txn's: the kvs of its first response (a range's kvs, a delete's
         * prev_kvs); DeleteRangeResponse.prev_kvs */
        struct etcd_kv *kvs;
        size_t n_kvs;
        bool more;      /* RangeResponse */
        int64_t count;  /* RangeResponse */
        bool succeeded; /* TxnResponse */
        int64_t lease_id, lease_ttl;
        const uint8_t *lease_error; /* LeaseGrantResponse.error, lease_error_len bytes */
        size_t lease_error_len;
        /* WatchResponse */
        bool created, canceled;
        int64_t compact_revision;
        struct etcd_event *events;
        size_t n_events;
};

void etcd_answer_release(struct etcd_answer *a);

/* RangeRequest of [key, range_end) (range_end NULL: key alone) at revision (0: the newest), at
 * most limit keys (0: all), or only their count. */
struct etcd_range {
        const void *key;
        size_t key_len;
        const void *range_end;
        size_t range_end_len;
        int64_t revision, limit;
        bool count_only;
};

enum etcd_compare_target {
        ETCD_COMPARE_VERSION = 0,
        ETCD_COMPARE_CREATE = 1,
        ETCD_COMPARE_MOD = 2
};

/* A TxnRequest on one key: if the key's target equals `equals`, put value (with lease when
 * non-zero) or, when value is NULL, delete the key with its prev_kv; else read the key. */
struct etcd_txn {
        const char *key;
        enum etcd_compare_target target;
        int64_t equals;
        const void *value;
        size_t value_len;
        int64_t lease;
};

/* Each appends one framed request to out. */
void etcd_rpc_range(struct strbuf *out, const struct etcd_range *r);
void etcd_rpc_txn(struct strbuf *out, const struct etcd_txn *t);
/* DeleteRangeRequest of key with prev_kv. */
void etcd_rpc_delete(struct strbuf *out, const char *key);
void etcd_rpc_lease_grant(struct strbuf *out, int64_t ttl_s);
void etcd_rpc_compact(struct strbuf *out, int64_t revision);
/* WatchRequest{create_request} of [key, range_end) from start_revision, without prev_kv. */
void etcd_rpc_watch_create(struct strbuf *out, const char *key, const char *range_end,
                           int64_t start_revision);

/* Decodes one answer message (a frame's contents) of method m into *ret (zeroed first;
 * etcd_answer_release after, also on failure). -EBADMSG when malformed. */
int etcd_rpc_answer(enum etcd_method m, const uint8_t *msg, size_t len, struct etcd_answer *ret);

#endif
