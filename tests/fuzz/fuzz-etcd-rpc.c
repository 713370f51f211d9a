/* fuzz-etcd-rpc.c: libFuzzer target for the etcd store's reading of etcd's answers
 * (store/etcd-rpc.h), as from a broken or hostile etcd. The first byte picks the method (mod 6)
 * whose answer the rest is decoded as; the whole input also goes through the gRPC frame reader.
 * No crash, no leak, no read past
 * the end; and what is read holds together: a decoded answer's keys, values and lease error lie
 * in the input, a kv's value is never NULL, an event is a PUT or a DELETE, only a watch has
 * events and only a range, txn or delete has kvs; a frame lies in the input and is what its
 * header says. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/grpc.h"
#include "store/etcd-rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* p[0..n) lies in buf[0..len) (an empty slice anywhere). */
static void check_in(const uint8_t *p, size_t n, const uint8_t *buf, size_t len)
{
        if (n == 0)
                return;
        if (!p || p < buf || p + n > buf + len)
                abort();
}

static void check_kv(const struct etcd_kv *kv, const uint8_t *msg, size_t len)
{
        if (!kv->value)
                abort();
        check_in(kv->key, kv->key_len, msg, len);
        check_in(kv->value, kv->value_len, msg, len);
}

static void check_answer(enum etcd_method m, const struct etcd_answer *a, const uint8_t *msg,
                         size_t len)
{
        if ((a->n_kvs != 0) != (a->kvs != NULL) || (a->n_events != 0) != (a->events != NULL))
                abort();
        if (a->n_kvs && m != ETCD_RANGE && m != ETCD_TXN && m != ETCD_DELETE_RANGE)
                abort();
        if (a->n_events && m != ETCD_WATCH)
                abort();
        for (size_t i = 0; i < a->n_kvs; i++)
                check_kv(&a->kvs[i], msg, len);
        for (size_t i = 0; i < a->n_events; i++) {
                const struct etcd_event *ev = &a->events[i];

                if (ev->type != ETCD_EVENT_PUT && ev->type != ETCD_EVENT_DELETE)
                        abort();
                /* an event without a kv reads as an empty one */
                check_kv(&ev->kv, msg, len);
        }
        check_in(a->lease_error, a->lease_error_len, msg, len);
        if (m != ETCD_LEASE_GRANT && (a->lease_error || a->lease_id || a->lease_ttl))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct etcd_answer a;
        const uint8_t *msg = NULL;
        size_t len = 0, used = 0;
        int r;

        if (size > 0) {
                enum etcd_method m = (enum etcd_method)(data[0] % 6);

                if (etcd_rpc_path(m)[0] != '/')
                        abort();
                r = etcd_rpc_answer(m, data + 1, size - 1, &a);
                if (r == 0)
                        check_answer(m, &a, data + 1, size - 1);
                else if (r != -EBADMSG)
                        abort();
                etcd_answer_release(&a);
        }

        r = grpc_frame_read(data, size, 1 << 16, &msg, &len, &used);
        if (r == 1) {
                if (msg != data + GRPC_FRAME_HEADER || used != GRPC_FRAME_HEADER + len ||
                    used > size || len > 1 << 16 || data[0] != 0)
                        abort();
        } else if (r == 0) {
                if (size >= GRPC_FRAME_HEADER && data[0] != 0)
                        abort();
        } else if (r != -EBADMSG) {
                abort();
        }

        return 0;
}
