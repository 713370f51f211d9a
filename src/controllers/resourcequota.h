/* resourcequota.h: the resource quota controller (K8S: pkg/controller/resourcequota,
 * ResourceQuotaController): every quota's status.hard mirrors its spec.hard and its
 * status.used is recomputed from the objects of its namespace (api/quota.h) whenever a quota or
 * a counted object (pods, claims, configmaps, secrets, serviceaccounts, quotas) changes or is
 * deleted, and at least every couple of seconds. The admission plugin charges creates before
 * they are stored; this controller gives back what deletes, terminal pods and shrunk resizes
 * release, and corrects a charge whose object was never stored. */
#ifndef FLEXLET_CONTROLLERS_RESOURCEQUOTA_H
#define FLEXLET_CONTROLLERS_RESOURCEQUOTA_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "api/quota.h"
#include "base/error.h"
#include "client/client.h"

/* K8S: syncResourceQuota's decision, pure: the status quota should have ({hard: spec.hard,
 * used: quota_used_compute(...)}), or NULL when its status already says so. */
json_t *resourcequota_status(const json_t *quota, const struct quota_collection *cols, size_t n,
                             time_t now);

struct resourcequota_controller;

/* Starts the informers and the pass thread. */
int resourcequota_controller_start(const struct api_client_options *o,
                                   struct resourcequota_controller **ret, struct error **reterr);
/* Stops it (NULL-safe); returns NULL. */
struct resourcequota_controller *resourcequota_controller_stop(struct resourcequota_controller *x);

#endif
