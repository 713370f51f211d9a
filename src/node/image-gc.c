/* image-gc.c: the node's image garbage collection (see image-gc.h): the policy check, the
 * records of when each image was first seen and last used, the order of removal, one
 * collection measured on the store's filesystem, and the thread that runs it every period. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "client/client.h"
#include "client/event.h"
#include "node/image-gc.h"
#include "node/runtime/runtime.h"

int image_gc_policy_check(const struct image_gc_policy *p, struct error **reterr)
{
        if (p->period_ms <= 0)
                return error_set(reterr, EINVAL,
                                 "image garbage collection: the period must be "
                                 "positive");
        /* K8S: ValidateKubeletConfiguration's messages */
        if (p->high_percent > 100)
                return error_set(reterr, EINVAL,
                                 "invalid configuration: imageGCHighThresholdPercent "
                                 "(--image-gc-high-threshold) %u must be between 0 and 100, "
                                 "inclusive",
                                 p->high_percent);
        if (p->low_percent > 100)
                return error_set(reterr, EINVAL,
                                 "invalid configuration: imageGCLowThresholdPercent "
                                 "(--image-gc-low-threshold) %u must be between 0 and 100, "
                                 "inclusive",
                                 p->low_percent);
        if (p->low_percent >= p->high_percent)
                return error_set(reterr, EINVAL,
                                 "invalid configuration: imageGCLowThresholdPercent "
                                 "(--image-gc-low-threshold) %u must be less than "
                                 "imageGCHighThresholdPercent (--image-gc-high-threshold) %u",
                                 p->low_percent, p->high_percent);
        if (p->min_age_ms < 0)
                return error_set(reterr, EINVAL,
                                 "invalid configuration: imageMinimumGCAge "
                                 "(--image-minimum-gc-age) must not be negative");
        return 0;
}

void image_gc_detect(json_t *records, const json_t *images, const json_t *in_use, int64_t now_ms)
{
        cleanup_json json_t *seen = json_object();
        const char *ref;
        json_t *img, *rec;
        void *tmp;
        size_t i;

        json_array_foreach(images, i, img) {
                if (json_is_true(json_object_get(img, "builtin")) ||
                    !(ref = json_string_value(json_object_get(img, "reference"))))
                        continue;
                json_object_set_new(seen, ref, json_true());
                rec = json_object_get(records, ref);
                if (!rec) {
                        rec = json_pack("{s:I, s:I}", "firstDetected", (json_int_t) now_ms,
                                        "lastUsed", (json_int_t) 0);
                        json_object_set_new(records, ref, rec);
                }
                if (json_object_get(in_use, ref))
                        json_object_set_new(rec, "lastUsed", json_integer(now_ms));
        }
        json_object_foreach_safe(records, tmp, ref, rec)
        {
                if (!json_object_get(seen, ref))
                        json_object_del(records, ref);
        }
}

static int64_t rec_ms(const json_t *rec, const char *key)
{
        return json_integer_value(json_object_get(rec, key));
}

/* least recently used first, then first detected first (records is the qsort_r argument) */
static int by_last_used(const void *pa, const void *pb, void *records)
{
        const json_t *a = json_object_get(records, *(const char *const *) pa);
        const json_t *b = json_object_get(records, *(const char *const *) pb);
        int64_t la = rec_ms(a, "lastUsed"), lb = rec_ms(b, "lastUsed");
        int64_t fa = rec_ms(a, "firstDetected"), fb = rec_ms(b, "firstDetected");

        if (la != lb)
                return la < lb ? -1 : 1;
        if (fa != fb)
                return fa < fb ? -1 : 1;
        return strcmp(*(const char *const *) pa, *(const char *const *) pb);
}

json_t *image_gc_candidates(const json_t *records, const json_t *in_use, int64_t now_ms,
                            int64_t min_age_ms)
{
        size_t n = 0, cap = json_object_size(records);
        cleanup_free const char **refs = xcalloc(cap ? cap : 1, sizeof(*refs));
        json_t *out = json_array();
        const char *ref;
        json_t *rec;

        json_object_foreach((json_t *) records, ref, rec) {
                if (json_object_get(in_use, ref))
                        continue;
                /* K8S: "Image's age is less than the policy's minAge, not eligible" */
                if (now_ms - rec_ms(rec, "firstDetected") < min_age_ms)
                        continue;
                refs[n++] = ref;
        }
        qsort_r(refs, n, sizeof(*refs), by_last_used, (void *) records);
        for (size_t i = 0; i < n; i++)
                json_array_append_new(out, json_string(refs[i]));
        return out;
}

/* ------------------------------------------------------------------ one collection */

struct image_gc {
        char *data_dir, *images, *node_name;
        struct image_gc_policy policy;
        json_t *records; /* reference -> {"firstDetected", "lastUsed"} */
        struct api_client *client;
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        atomic_bool stop;
};

/* the store's filesystem: its size and what an unprivileged writer may still use (as the
 * kubelet's ImageFsStats, capacity and available) */
static int store_fs(const char *images, int64_t *ret_capacity, int64_t *ret_available,
                    struct error **reterr)
{
        struct statvfs st;

        if (statvfs(images, &st) < 0)
                return error_set(reterr, errno, "image store \"%s\": %s", images, strerror(errno));
        *ret_capacity = (int64_t) st.f_blocks * (int64_t) st.f_frsize;
        *ret_available = (int64_t) st.f_bavail * (int64_t) st.f_frsize;
        if (*ret_capacity <= 0)
                return error_set(reterr, EIO, "image store \"%s\": the filesystem has no size",
                                 images);
        return 0;
}

int image_gc_collect(struct image_gc *gc, int64_t now_ms, struct error **reterr)
{
        cleanup_json json_t *images = NULL, *in_use = NULL, *order = NULL;
        int64_t capacity, available, before, to_free, freed = 0;
        int usage;
        size_t i;
        json_t *ref;
        int r;

        r = runtime_image_list(gc->data_dir, &images, reterr);
        if (r < 0)
                return r;
        in_use = runtime_images_in_use(gc->data_dir);
        image_gc_detect(gc->records, images, in_use, now_ms);
        r = store_fs(gc->images, &capacity, &available, reterr);
        if (r < 0)
                return r;
        /* K8S: usagePercent := 100 - int(available*100/capacity) */
        usage = 100 - (int) (available * 100 / capacity);
        if (usage < (int) gc->policy.high_percent)
                return 0;
        to_free = capacity * (int64_t) (100 - gc->policy.low_percent) / 100 - available;
        (void) fprintf(stderr,
                       "flexlet node: image filesystem %d%% full (high threshold %u%%): freeing "
                       "%" PRId64 " bytes down to %u%%\n",
                       usage, gc->policy.high_percent, to_free, gc->policy.low_percent);
        order = image_gc_candidates(gc->records, in_use, now_ms, gc->policy.min_age_ms);
        before = available;
        json_array_foreach(order, i, ref) {
                cleanup_error struct error *err = NULL;

                if (freed >= to_free)
                        break;
                if (runtime_image_remove(gc->data_dir, json_string_value(ref), NULL, &err) < 0) {
                        (void) fprintf(stderr, "flexlet node: image garbage collection: %s\n",
                                       err->message);
                        continue;
                }
                (void) fprintf(stderr, "flexlet node: image garbage collection removed %s\n",
                               json_string_value(ref));
                json_object_del(gc->records, json_string_value(ref));
                /* what the removal really gave back: layers other images share stay */
                if (store_fs(gc->images, &capacity, &available, NULL) == 0)
                        freed = available - before;
        }
        if (freed < to_free)
                return error_set(reterr, ENOSPC,
                                 "Failed to garbage collect required amount of images. Attempted "
                                 "to free %" PRId64 " bytes, but only found %" PRId64
                                 " bytes eligible to free.",
                                 to_free, freed > 0 ? freed : 0);
        return 0;
}

/* ------------------------------------------------------------------ the thread */

static int64_t realtime_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* K8S: the kubelet's nodeRef: kind Node, the node's name as its uid too */
static void node_event(struct image_gc *gc, const char *reason, const char *message)
{
        cleanup_json json_t *ref =
                json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Node",
                          "metadata", "name", gc->node_name, "uid", gc->node_name);

        (void) api_client_event(gc->client, ref, "Warning", reason, message, "kubelet",
                                gc->node_name, NULL);
}

static void *gc_main(void *arg)
{
        struct image_gc *gc = arg;
        bool failed_before = false;

        (void) pthread_setname_np(pthread_self(), "image-gc");
        pthread_mutex_lock(&gc->lock);
        while (!atomic_load(&gc->stop)) {
                struct timespec until;
                int64_t deadline = realtime_ms() + gc->policy.period_ms;

                until.tv_sec = (time_t) (deadline / 1000);
                until.tv_nsec = (long) (deadline % 1000) * 1000000L;
                while (!atomic_load(&gc->stop) &&
                       pthread_cond_timedwait(&gc->wake, &gc->lock, &until) != ETIMEDOUT)
                        ;
                if (atomic_load(&gc->stop))
                        break;
                pthread_mutex_unlock(&gc->lock);
                {
                        cleanup_error struct error *err = NULL;

                        if (image_gc_collect(gc, realtime_ms(), &err) < 0) {
                                (void) fprintf(stderr,
                                               "flexlet node: image garbage collection: %s\n",
                                               err->message);
                                /* K8S: GarbageCollect's event, then StartGarbageCollection's
                                 * for a failure repeated */
                                if (err->errnum == ENOSPC)
                                        node_event(gc, "FreeDiskSpaceFailed", err->message);
                                if (failed_before)
                                        node_event(gc, "ImageGCFailed", err->message);
                                failed_before = true;
                        } else {
                                failed_before = false;
                        }
                }
                pthread_mutex_lock(&gc->lock);
        }
        pthread_mutex_unlock(&gc->lock);
        return NULL;
}

static void image_gc_free(struct image_gc *gc)
{
        api_client_free(gc->client);
        json_decref(gc->records);
        pthread_mutex_destroy(&gc->lock);
        pthread_cond_destroy(&gc->wake);
        free(gc->data_dir);
        free(gc->images);
        free(gc->node_name);
        free(gc);
}

int image_gc_start(const char *data_dir, const char *node_name,
                   const struct api_client_options *copts, const struct image_gc_policy *policy,
                   struct image_gc **ret, struct error **reterr)
{
        struct image_gc *gc = xcalloc(1, sizeof(*gc));
        int r;

        gc->data_dir = xstrdup(data_dir);
        gc->images = xasprintf("%s/images", data_dir);
        gc->node_name = xstrdup(node_name);
        gc->policy = *policy;
        gc->records = json_object();
        pthread_mutex_init(&gc->lock, NULL);
        pthread_cond_init(&gc->wake, NULL);
        r = api_client_new(copts, &gc->client, reterr);
        if (r < 0) {
                image_gc_free(gc);
                return r;
        }
        if (pthread_create(&gc->thread, NULL, gc_main, gc) != 0) {
                image_gc_free(gc);
                return error_set(reterr, EAGAIN,
                                 "image garbage collection: cannot start its "
                                 "thread");
        }
        *ret = gc;
        return 0;
}

struct image_gc *image_gc_stop(struct image_gc *gc)
{
        if (!gc)
                return NULL;
        pthread_mutex_lock(&gc->lock);
        atomic_store(&gc->stop, true);
        pthread_cond_signal(&gc->wake);
        pthread_mutex_unlock(&gc->lock);
        pthread_join(gc->thread, NULL);
        image_gc_free(gc);
        return NULL;
}
