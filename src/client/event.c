/* event.c: one Event per call, with the count its caller gives (the node agent's sender counts
 * repeats it merged while they were queued, node/status-sender.h); no rate limiting (client-go's
 * correlator also merges repeats already sent into a PATCH of their count, which flexlet does
 * not do). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/event.h"

int api_client_event(struct api_client *c, const json_t *obj, const char *type, const char *reason,
                     const char *message, const char *component, const char *host,
                     struct error **reterr)
{
        return api_client_event_count(c, obj, type, reason, message, 1, component, host, reterr);
}

int api_client_event_count(struct api_client *c, const json_t *obj, const char *type,
                           const char *reason, const char *message, int count,
                           const char *component, const char *host, struct error **reterr)
{
        const char *ns = json_path_string(obj, "metadata.namespace");
        const char *name = json_path_string(obj, "metadata.name");
        cleanup_json json_t *ev = NULL, *resp = NULL;
        cleanup_free char *ev_name = NULL, *body = NULL, *path = NULL;
        struct timespec ts;
        char now[32];
        long status = 0;
        int r;

        clock_gettime(CLOCK_REALTIME, &ts);
        time_format_rfc3339(ts.tv_sec, now);
        ev_name = xasprintf("%s.%llx", name ? name : "unknown",
                            (unsigned long long) ts.tv_sec * 1000000000ULL +
                                    (unsigned long long) ts.tv_nsec);
        if (!ns || !*ns)
                ns = "default";
        ev = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:s, s:s, "
                       "s:{s:s}, s:s, s:s, s:i, s:s, s:s}",
                       "apiVersion", "v1", "kind", "Event", "metadata", "name", ev_name,
                       "namespace", ns, "involvedObject", "kind",
                       json_string_value(json_object_get(obj, "kind")) ?: "", "namespace",
                       json_path_string(obj, "metadata.namespace") ?: "", "name", name ?: "", "uid",
                       json_path_string(obj, "metadata.uid") ?: "", "apiVersion",
                       json_string_value(json_object_get(obj, "apiVersion")) ?: "v1",
                       "resourceVersion", json_path_string(obj, "metadata.resourceVersion") ?: "",
                       "reason", reason, "message", message, "source", "component", component,
                       "firstTimestamp", now, "lastTimestamp", now, "count", count < 1 ? 1 : count,
                       "type", type, "reportingComponent", component);
        if (host)
                json_object_set_new(json_object_get(ev, "source"), "host", json_string(host));
        body = json_dump_compact(ev);
        path = xasprintf("/api/v1/namespaces/%s/events", ns);
        r = api_client_request(c, "POST", path, "application/json", body, strlen(body), &status,
                               &resp, reterr);
        if (r < 0)
                return r;
        if (status != 201)
                return error_set(reterr, EIO, "create event \"%s\": HTTP %ld: %s", reason, status,
                                 json_string_value(json_object_get(resp, "message")) ?: "");
        return 0;
}
