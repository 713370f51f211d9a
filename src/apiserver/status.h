/* status.h: every failure the API returns, as a metav1.Status.
 *
 * One table (status.c) maps an errno to the HTTP code and Status.reason; nothing else in the
 * server picks a code. The helpers below build the exact messages kube-apiserver uses, so
 * kubectl prints upstream's words (kubectl-wire.md §1.1). */
#ifndef FLEXLET_APISERVER_STATUS_H
#define FLEXLET_APISERVER_STATUS_H

#include "api/field-error.h"
#include "apiserver/api.h"
#include "apiserver/resources.h"

/* Errno values the API maps (see status.c for code and reason):
 * ENOENT 404 NotFound, EEXIST 409 AlreadyExists, ESTALE 409 Conflict, EINVAL 400 BadRequest,
 * EPERM 403 Forbidden, EKEYREJECTED 401 Unauthorized, E2BIG 413 RequestEntityTooLarge,
 * EPROTONOSUPPORT 415 UnsupportedMediaType, EOPNOTSUPP 405 MethodNotAllowed,
 * ENOTACCEPT(=ENOMSG here) 406 NotAcceptable, ERANGE 410 Expired, EBADMSG 422 Invalid,
 * ETIMEDOUT 504 Timeout, anything else 500 InternalError. */

/* Writes a Status for errnum with message; details may be NULL (consumed if not). */
void status_respond(struct http_response *resp, int errnum, const char *message, json_t *details);
/* The Status object itself (new reference). */
json_t *status_build(int errnum, const char *message, json_t *details);
/* HTTP code for errnum. */
unsigned status_code(int errnum);

/* K8S: `pods "web" not found`, details {name, kind: "pods"}. */
void status_not_found(struct http_response *resp, const struct api_resource *r, const char *name);
/* K8S: `pods "web" already exists`. */
void status_already_exists(struct http_response *resp, const struct api_resource *r,
                           const char *name);
/* K8S: `Operation cannot be fulfilled on pods "web": <why>`. */
void status_conflict(struct http_response *resp, const struct api_resource *r, const char *name,
                     const char *why);
/* K8S: 422 `Pod "web" is invalid: <errors>` (`StorageClass.storage.k8s.io "fast"` for a kind of
 * a named group) with one cause per field error. */
void status_invalid(struct http_response *resp, const struct api_resource *r, const char *name,
                    const struct field_error_list *errs);
/* K8S: 403 `<plural> "<name>" is forbidden: <why>` (`<plural>.<group>` for a named group). */
void status_forbidden(struct http_response *resp, const struct api_resource *r, const char *name,
                      const char *why);

#define CONFLICT_MODIFIED \
 "the object has been modified; please apply your changes to the latest version and try again"

#endif
