/* watch.c: the watch stream: one JSON event per line, {"type":..,"object":..}, or one protobuf
 * frame per event when the client negotiated protobuf (wire.h), filtered by
 * the request's selectors, as Table rows when the client asked for a Table (columns only in
 * the first event, as upstream's watchEmbeddedEncoder). The stream stays open until the client
 * leaves, timeoutSeconds passes or the store closes; a newline every few idle seconds lets the
 * HTTP layer notice a client that went away. Reading never waits: the stream's wake descriptor
 * (the store watcher's eventfd) tells the HTTP layer when there is more, and the layer reads
 * again at least every second, which is when heartbeats and timeoutSeconds are checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/negotiate.h"
#include "apiserver/status.h"
#include "apiserver/table.h"
#include "apiserver/wire.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "store/store.h"

#define WATCH_HEARTBEAT_MS 10000

struct watch_stream {
        struct store_watch *w;
        const struct api_resource *res;
        struct label_selector *ls;
        struct field_selector *fs;
        bool table;
        bool protobuf; /* frames of metav1.WatchEvent in protobuf (wire.h), no heartbeats */
        bool columns_sent;
        enum table_include include;
        struct strbuf pending;
        size_t off;
        int64_t deadline_ms; /* 0: none */
        int64_t last_write_ms;
        bool done;
};

static void watch_stream_free(void *ctx)
{
        struct watch_stream *ws = ctx;

        store_watch_stop(ws->w);
        label_selector_free(ws->ls);
        field_selector_free(ws->fs);
        strbuf_release(&ws->pending);
        free(ws);
}

/* obj's event; json (NULL: none) is obj's compact JSON, already made for every watcher. */
static void append_event(struct watch_stream *ws, const char *type, const json_t *obj,
                         const char *json, size_t json_len)
{
        cleanup_json json_t *ev = NULL;
        cleanup_free char *line = NULL;

        if (ws->protobuf) {
                cleanup_error struct error *err = NULL;
                if (wire_watch_frame(ws->res, type, obj, &ws->pending, &err) < 0) {
                        /* K8S: an object the encoder refuses ends the watch with an ERROR
                         * event (watch.go: InternalError) */
                        cleanup_json json_t *st = status_build(EIO, err->message, NULL);
                        (void) wire_watch_frame(ws->res, "ERROR", st, &ws->pending, NULL);
                        ws->done = true;
                }
                return;
        }
        if (json && !ws->table) {
                /* the bytes json_pack and json_dump_compact would make, without the encoding */
                strbuf_addstr(&ws->pending, "{\"type\":\"");
                strbuf_addstr(&ws->pending, type);
                strbuf_addstr(&ws->pending, "\",\"object\":");
                strbuf_add(&ws->pending, json, json_len);
                strbuf_addstr(&ws->pending, "}\n");
                return;
        }
        if (ws->table && !streq(type, "ERROR")) {
                cleanup_json json_t *items = json_pack("[O]", obj);
                json_t *table = table_build(ws->res, items, !ws->columns_sent, ws->include, NULL);
                json_object_set_new(
                        json_object_get(table, "metadata"), "resourceVersion",
                        json_string(json_path_string(obj, "metadata.resourceVersion") ?: ""));
                ws->columns_sent = true;
                ev = json_pack("{s:s, s:o}", "type", type, "object", table);
        } else {
                ev = json_pack("{s:s, s:O}", "type", type, "object", obj);
        }
        line = json_dump_compact(ev);
        strbuf_addstr(&ws->pending, line);
        strbuf_addch(&ws->pending, '\n');
}

static ssize_t watch_stream_read(void *ctx, char *buf, size_t max)
{
        struct watch_stream *ws = ctx;

        for (;;) {
                struct store_event ev;
                int64_t now;
                int r;

                if (ws->off < ws->pending.len) {
                        size_t n = ws->pending.len - ws->off;
                        if (n > max)
                                n = max;
                        memcpy(buf, ws->pending.buf + ws->off, n);
                        ws->off += n;
                        if (ws->off == ws->pending.len) {
                                strbuf_reset(&ws->pending);
                                ws->off = 0;
                        }
                        ws->last_write_ms = time_monotonic_ms();
                        return (ssize_t) n;
                }
                if (ws->done)
                        return -1;
                now = time_monotonic_ms();
                if (ws->deadline_ms && now >= ws->deadline_ms)
                        return -1;
                r = store_watch_next(ws->w, 0, &ev);
                if (r < 0) {
                        ws->done = true;
                        continue;
                }
                if (r == 0) {
                        /* a newline is no protobuf frame: the HTTP layer's hangup check alone
                         * ends a quiet protobuf watch whose client left */
                        if (ws->protobuf || now - ws->last_write_ms < WATCH_HEARTBEAT_MS)
                                return 0; /* nothing yet: the wake descriptor will say */
                        strbuf_addch(&ws->pending, '\n');
                        continue;
                }
                if (object_matches(ev.object, ws->ls, ws->fs))
                        append_event(ws, store_event_type_to_string(ev.type), ev.object, ev.json,
                                     ev.json_len);
                store_event_release(&ev);
        }
}

static int watch_stream_wake_fd(void *ctx)
{
        struct watch_stream *ws = ctx;

        /* a finished stream has its last bytes pending and no watcher to wait for */
        return ws->w ? store_watch_fd(ws->w) : -1;
}

void watch_serve(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                 struct http_response *resp, struct label_selector *ls, struct field_selector *fs)
{
        cleanup_error struct error *err = NULL;
        const char *rv_s = http_request_query(req, "resourceVersion");
        const char *timeout_s = http_request_query(req, "timeoutSeconds");
        struct watch_stream *ws;
        struct api_output out;
        uint64_t rv = 0;
        char *end = NULL;
        int r;

        if (rv_s && *rv_s) {
                rv = strtoull(rv_s, &end, 10);
                if (*end) {
                        cleanup_free char *msg = xasprintf("invalid resource version: %s", rv_s);
                        label_selector_free(ls);
                        field_selector_free(fs);
                        status_respond(resp, EINVAL, msg, NULL);
                        return;
                }
        }
        ws = xcalloc(1, sizeof(*ws));
        ws->res = t->res;
        ws->ls = ls;
        ws->fs = fs;
        ws->table = request_wants_table(req);
        ws->protobuf =
                negotiate_output(req->accept, true, &out) == 0 && out.media == API_MEDIA_PROTOBUF;
        if (table_include_from_string(http_request_query(req, "includeObject"), &ws->include) < 0)
                ws->include = TABLE_INCLUDE_METADATA;
        strbuf_init(&ws->pending);
        ws->last_write_ms = time_monotonic_ms();
        if (timeout_s && atoll(timeout_s) > 0)
                ws->deadline_ms = ws->last_write_ms + atoll(timeout_s) * 1000;

        r = store_watch_start(s->store, t->res->plural, t->res->namespaced ? t->ns : NULL, rv,
                              &ws->w, &err);
        if (r == -ERANGE) {
                /* K8S: a watch from a version that left history is one ERROR event, 410. */
                cleanup_free char *msg =
                        xasprintf("too old resource version: %llu (%llu)", (unsigned long long) rv,
                                  (unsigned long long) store_current_rv(s->store));
                cleanup_json json_t *st = status_build(ERANGE, msg, NULL);
                append_event(ws, "ERROR", st, NULL, 0);
                ws->done = true;
        } else if (r < 0) {
                watch_stream_free(ws);
                status_respond(resp, r, err ? err->message : "watch failed", NULL);
                return;
        }
        resp->status = 200;
        resp->content_type =
                negotiate_content_type(ws->protobuf ? API_MEDIA_PROTOBUF : API_MEDIA_JSON, true);
        resp->stream.read = watch_stream_read;
        resp->stream.free = watch_stream_free;
        resp->stream.wake_fd = watch_stream_wake_fd;
        resp->stream.ctx = ws;
}
