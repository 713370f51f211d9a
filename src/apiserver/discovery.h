/* discovery.h: /api, /apis, /api/v1, /apis/<group>/<version> (aggregated v2 and legacy) and
 * /openapi/v3, all generated from the resource table. */
#ifndef FLEXLET_APISERVER_DISCOVERY_H
#define FLEXLET_APISERVER_DISCOVERY_H

#include <stdbool.h>
#include "apiserver/api.h"

/* True when the Accept header asks for aggregated discovery (apidiscovery.k8s.io v2). */
bool discovery_wants_aggregated(const char *accept);
void discovery_api(struct http_response *resp, bool aggregated, const char *listen);
void discovery_apis(struct http_response *resp, bool aggregated);
/* APIResourceList for a group ("" core) and version; 404 when unknown. */
void discovery_resource_list(struct http_response *resp, const char *group, const char *version);

/* GET /openapi/v3 and /openapi/v3/<api/v1 | apis/g/v>. */
void openapi_v3(struct http_response *resp, const char *rest);
/* GET /openapi/v2 (openapi-v2.c): the Swagger 2.0 document, as JSON or as the gnostic protobuf
 * Document, by the Accept header (kube-openapi's negotiation; 406 without a body when neither
 * is acceptable), with an ETag; 304 when If-None-Match names it. */
void openapi_v2(const struct http_request *req, struct http_response *resp);

#endif
