/* tokencleaner.h: the bootstrap token cleaner (K8S: pkg/controller/bootstrap, TokenCleaner, in
 * kube-controller-manager): deletes the bootstrap token Secrets of kube-system (type
 * bootstrap.kubernetes.io/token) whose data "expiration" has passed, or does not parse (which
 * upstream treats as expired), with the Secret's UID as the delete's precondition; a Secret
 * without an expiration is kept. The next pass comes at the nearest expiry of those left. */
#ifndef FLEXLET_CONTROLLERS_TOKENCLEANER_H
#define FLEXLET_CONTROLLERS_TOKENCLEANER_H

#include <jansson.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* The Secrets of the snapshot (values keyed by "<ns>/<name>") that are bootstrap tokens expired
 * at now and not yet being deleted: a new JSON array of {"name", "uid"}. *ret_next is set to the
 * seconds until the nearest expiry of the others (0: none expires). */
json_t *tokencleaner_expired(const json_t *secrets, time_t now, long *ret_next);

struct tokencleaner;

/* Starts the cleaner (an informer over kube-system's bootstrap token Secrets and a pass
 * thread). */
int tokencleaner_start(const struct api_client_options *o, struct tokencleaner **ret,
                       struct error **reterr);
/* Stops it (the pass thread ends after the pass it is in and frees it); NULL-safe, returns
 * NULL. */
struct tokencleaner *tokencleaner_stop(struct tokencleaner *x);

#endif
