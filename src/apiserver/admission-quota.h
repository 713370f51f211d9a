/* admission-quota.h: the ResourceQuota admission plugin (K8S: apiserver
 * pkg/admission/plugin/resourcequota, a validating plugin that kube-apiserver runs last): every
 * create in a namespace, a pod's resize, a pod whose Terminating scope flips and a claim's
 * update are checked against the namespace's quotas (api/quota.h) and, when they fit, charged
 * to each quota's status.used before the object is stored, so that two racing requests cannot
 * both take the last room. */
#ifndef FLEXLET_APISERVER_ADMISSION_QUOTA_H
#define FLEXLET_APISERVER_ADMISSION_QUOTA_H

#include <jansson.h>
#include <stdbool.h>

#include "apiserver/resources.h"
#include "base/error.h"

struct store;

/* K8S: ResourceQuota.Validate for a write of obj (old: NULL on create, the stored object on an
 * update) of resource r in namespace ns through sub. Objects outside a namespace, events and
 * requests no evaluator handles pass untouched. A request that fits is charged: each quota it
 * changes gets its new status.used written with a compare-and-swap on the quota's
 * resourceVersion, re-read and re-checked on a conflict (upstream updates the quota's status
 * with a resourceVersion precondition the same way); a dry run is checked but charges nothing.
 * Returns 0, or -EPERM with upstream's message ("exceeded quota: ...", "failed quota: ...",
 * "status unknown for quota: ...") or another -errno from the store in *reterr. Any thread. */
int resource_quota_admit(struct store *store, const struct api_resource *r, const char *ns,
                         enum api_subresource sub, const json_t *obj, const json_t *old,
                         bool dry_run, struct error **reterr);

#endif
