/* image-gc.h: the kubelet's image garbage collection (K8S: pkg/kubelet/images/
 * image_gc_manager.go). Every period, when the filesystem of the node's image store
 * (DATA/images) is at least high_percent full, the images that no container of this node was
 * started on are removed, least recently used first and none first seen less than min_age ago,
 * until the filesystem is back to low_percent. The built-in busybox is never removed. */
#ifndef FLEXLET_NODE_IMAGE_GC_H
#define FLEXLET_NODE_IMAGE_GC_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"

struct api_client_options;

/* K8S: the kubelet's defaults (KubeletConfiguration) */
#define IMAGE_GC_DEFAULT_HIGH_PERCENT 85     /* imageGCHighThresholdPercent */
#define IMAGE_GC_DEFAULT_LOW_PERCENT  80     /* imageGCLowThresholdPercent */
#define IMAGE_GC_DEFAULT_MIN_AGE_MS   120000 /* imageMinimumGCAge: 2m */
#define IMAGE_GC_DEFAULT_PERIOD_MS    300000 /* ImageGCPeriod: 5m */

/* IMAGE_GC_POLICY_DEFAULT, then the flags. high_percent 100 turns the collection off, as
 * upstream's "ImageGCHighThresholdPercent is set 100, Disable image GC". */
struct image_gc_policy {
        unsigned high_percent;
        unsigned low_percent;
        int64_t min_age_ms;
        int64_t period_ms;
};
#define IMAGE_GC_POLICY_DEFAULT                                            \
 ((struct image_gc_policy){ .high_percent = IMAGE_GC_DEFAULT_HIGH_PERCENT, \
                            .low_percent = IMAGE_GC_DEFAULT_LOW_PERCENT,   \
                            .min_age_ms = IMAGE_GC_DEFAULT_MIN_AGE_MS,     \
                            .period_ms = IMAGE_GC_DEFAULT_PERIOD_MS })

/* Checks the policy as the kubelet's validation does (`invalid configuration:
 * imageGCLowThresholdPercent (--image-gc-low-threshold) N must be less than
 * imageGCHighThresholdPercent (--image-gc-high-threshold) M`, each between 0 and 100). */
int image_gc_policy_check(const struct image_gc_policy *p, struct error **reterr);

/* K8S: detectImages: records is reference -> {"firstDetected": ms, "lastUsed": ms}. Images
 * listed (runtime_image_list's array) and not yet recorded are first detected at now_ms; those
 * in in_use (a set of references) were last used at now_ms; records of images gone are
 * dropped; the built-in busybox is not recorded. */
void image_gc_detect(json_t *records, const json_t *images, const json_t *in_use, int64_t now_ms);

/* K8S: freeSpace's order: the recorded images not in in_use and first detected at least
 * min_age_ms before now_ms, least recently used first, then first detected first. A JSON array
 * of references (new reference). */
json_t *image_gc_candidates(const json_t *records, const json_t *in_use, int64_t now_ms,
                            int64_t min_age_ms);

struct image_gc;

/* One collection over data_dir's store at now_ms (K8S: GarbageCollect). -ENOSPC with upstream's
 * `Failed to garbage collect required amount of images. Attempted to free N bytes, but only
 * found M bytes eligible to free.` when removing every candidate was not enough. */
int image_gc_collect(struct image_gc *gc, int64_t now_ms, struct error **reterr);

/* Starts the collection's thread for the store under data_dir, posting its events
 * (FreeDiskSpaceFailed, and ImageGCFailed on a failure repeated) about Node node_name with
 * its own client from copts. The policy must have passed image_gc_policy_check. */
int image_gc_start(const char *data_dir, const char *node_name,
                   const struct api_client_options *copts, const struct image_gc_policy *policy,
                   struct image_gc **ret, struct error **reterr);
/* Stops the thread (waiting for a collection under way) and frees gc; NULL is a no-op. */
struct image_gc *image_gc_stop(struct image_gc *gc);

#endif
