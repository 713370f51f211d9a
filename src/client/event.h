/* event.h: recording core/v1 Events about an object, as client-go's event recorder writes
 * them (name "<object>.<hex nanoseconds>", involvedObject, source component and host). */
#ifndef FLEXLET_CLIENT_EVENT_H
#define FLEXLET_CLIENT_EVENT_H

#include <jansson.h>

#include "base/error.h"

struct api_client;

/* Posts an Event about obj (a Pod, Node, ...: kind, name, namespace, uid and resourceVersion
 * are taken from it). type is "Normal" or "Warning"; host may be NULL. */
int api_client_event(struct api_client *c, const json_t *obj, const char *type, const char *reason,
                     const char *message, const char *component, const char *host,
                     struct error **reterr);
/* The same with the Event's count: how many times it happened (at least 1). */
int api_client_event_count(struct api_client *c, const json_t *obj, const char *type,
                           const char *reason, const char *message, int count,
                           const char *component, const char *host, struct error **reterr);

#endif
