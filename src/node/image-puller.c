/* image-puller.c: runs registry pulls (runtime/registry.h) on threads of their own, one per pod
 * container that needs its image, so that a pull never holds the node agent's sync loop; the pod
 * worker starts a pull and reads its result at a later step (image-puller.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/macro.h"
#include "base/strbuf.h"
#include "node/image-puller.h"
#include "node/pod-worker-internal.h"
#include "node/pod-worker.h"
#include "node/runtime/runtime.h"

struct pull_entry {
        struct image_puller *owner;
        char *key;
        char *image;
        struct registry_credential *creds;
        size_t n_creds;
        pthread_t thread;
        enum image_pull_state state;
        struct image_pull_outcome outcome;
        struct pull_entry *next;
};

struct image_puller {
        char *data_dir;
        char **insecure;
        void (*wake)(void *ud, const char *key);
        void *wake_ud;
        int cancel; /* atomic: set when the puller is freed */
        pthread_mutex_t lock;
        struct pull_entry *entries;
};

void image_pull_outcome_release(struct image_pull_outcome *o)
{
        free(o->error);
        free(o->image);
        *o = (struct image_pull_outcome){ 0 };
}

static double since(const struct timespec *t0)
{
        struct timespec t1;

        clock_gettime(CLOCK_MONOTONIC, &t1);
        return (double) (t1.tv_sec - t0->tv_sec) + (double) (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *pull_thread(void *arg)
{
        struct pull_entry *e = arg;
        struct image_puller *p = e->owner;
        const struct registry_pull_options o = { .insecure = (const char *const *) p->insecure,
                                                 .creds = e->creds,
                                                 .n_creds = e->n_creds,
                                                 .cancel = &p->cancel };
        struct registry_pull_result res = { 0 };
        struct error *err = NULL;
        struct timespec t0;
        int r;

        (void) pthread_setname_np(pthread_self(), "image-pull");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        r = registry_pull(p->data_dir, e->image, &o, &res, &err);
        pthread_mutex_lock(&p->lock);
        e->outcome.seconds = since(&t0);
        e->outcome.image = xstrdup(e->image);
        if (r < 0) {
                e->state = IMAGE_PULL_FAILED;
                e->outcome.errnum = -r;
                e->outcome.error = xstrdup(err ? err->message : strerror(-r));
        } else {
                e->state = IMAGE_PULL_DONE;
                e->outcome.size = res.size;
        }
        pthread_mutex_unlock(&p->lock);
        error_free(err);
        registry_pull_result_release(&res);
        if (p->wake && !__atomic_load_n(&p->cancel, __ATOMIC_RELAXED))
                p->wake(p->wake_ud, e->key);
        return NULL;
}

int image_puller_new(const struct image_puller_options *o, struct image_puller **ret)
{
        struct image_puller *p = xcalloc(1, sizeof(*p));
        size_t n = 0;

        p->data_dir = xstrdup(o->data_dir);
        while (o->insecure && o->insecure[n])
                n++;
        p->insecure = xcalloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
                p->insecure[i] = xstrdup(o->insecure[i]);
        p->wake = o->wake;
        p->wake_ud = o->wake_ud;
        pthread_mutex_init(&p->lock, NULL);
        *ret = p;
        return 0;
}

static void entry_free(struct pull_entry *e)
{
        free(e->key);
        free(e->image);
        registry_credentials_free(e->creds, e->n_creds);
        image_pull_outcome_release(&e->outcome);
        free(e);
}

struct image_puller *image_puller_free(struct image_puller *p)
{
        if (!p)
                return NULL;
        __atomic_store_n(&p->cancel, 1, __ATOMIC_RELAXED);
        for (struct pull_entry *e = p->entries, *next; e; e = next) {
                next = e->next;
                (void) pthread_join(e->thread, NULL);
                entry_free(e);
        }
        for (size_t i = 0; p->insecure[i]; i++)
                free(p->insecure[i]);
        free(p->insecure);
        free(p->data_dir);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
}

static struct pull_entry **find(struct image_puller *p, const char *key)
{
        struct pull_entry **e = &p->entries;

        while (*e && !streq((*e)->key, key))
                e = &(*e)->next;
        return e;
}

int image_puller_start(struct image_puller *p, const char *key, const char *image,
                       struct registry_credential *creds, size_t n_creds)
{
        struct pull_entry *e;
        int r;

        pthread_mutex_lock(&p->lock);
        if (*find(p, key)) {
                pthread_mutex_unlock(&p->lock);
                registry_credentials_free(creds, n_creds);
                return -EBUSY;
        }
        e = xcalloc(1, sizeof(*e));
        e->owner = p;
        e->key = xstrdup(key);
        e->image = xstrdup(image);
        e->creds = creds;
        e->n_creds = n_creds;
        e->state = IMAGE_PULL_RUNNING;
        r = pthread_create(&e->thread, NULL, pull_thread, e);
        if (r != 0) {
                pthread_mutex_unlock(&p->lock);
                entry_free(e);
                return -r;
        }
        e->next = p->entries;
        p->entries = e;
        pthread_mutex_unlock(&p->lock);
        return 0;
}

bool image_puller_has(struct image_puller *p, const char *key)
{
        bool has;

        pthread_mutex_lock(&p->lock);
        has = *find(p, key) != NULL;
        pthread_mutex_unlock(&p->lock);
        return has;
}

enum image_pull_state image_puller_poll(struct image_puller *p, const char *key,
                                        struct image_pull_outcome *ret)
{
        struct pull_entry **slot, *e;
        enum image_pull_state s;

        pthread_mutex_lock(&p->lock);
        slot = find(p, key);
        e = *slot;
        s = e ? e->state : IMAGE_PULL_NONE;
        if (s == IMAGE_PULL_DONE || s == IMAGE_PULL_FAILED) {
                *slot = e->next;
                *ret = e->outcome;
                e->outcome = (struct image_pull_outcome){ 0 };
        }
        pthread_mutex_unlock(&p->lock);
        if (s == IMAGE_PULL_DONE || s == IMAGE_PULL_FAILED) {
                (void) pthread_join(e->thread, NULL);
                entry_free(e);
        }
        return s;
}

char *image_pull_duration(double s)
{
        long long ms = (long long) (s * 1000.0);
        long long m = ms / 60000, rest = ms % 60000;
        struct strbuf b;

        if (ms <= 0)
                return xstrdup("0s");
        if (ms < 1000)
                return xasprintf("%lldms", ms);
        strbuf_init(&b);
        if (m >= 60)
                strbuf_addf(&b, "%lldh", m / 60);
        if (m)
                strbuf_addf(&b, "%lldm", m % 60);
        strbuf_addf(&b, "%lld", rest / 1000);
        if (rest % 1000) {
                char frac[8];
                (void) snprintf(frac, sizeof(frac), ".%03lld", rest % 1000);
                for (size_t n = strlen(frac); frac[n - 1] == '0'; n--)
                        frac[n - 1] = '\0';
                strbuf_addstr(&b, frac);
        }
        strbuf_addch(&b, 's');
        return strbuf_detach(&b);
}

/* K8S: the kubelet's keyring over the pod's imagePullSecrets (getPullSecretsForPod, then
 * credentialprovider's dockerconfigjson reading): the matches for the image's registry, in the
 * order the pod names its secrets. Unreadable secrets are named in *ret_missing. */
static void pod_credentials(const struct image_pull_request *q, const char *domain,
                            struct registry_credential **creds, size_t *n, char **ret_missing)
{
        const char *ns = json_path_string_or_empty(q->pod, "metadata.namespace");
        const json_t *refs = json_path(q->pod, "spec.imagePullSecrets"), *ref;
        struct strbuf missing;
        size_t i;

        strbuf_init(&missing);
        json_array_foreach(refs, i, ref) {
                const char *name = json_string_value(json_object_get(ref, "name"));
                cleanup_error struct error *err = NULL;
                json_t *secret = NULL;
                const char *data;
                cleanup_free char *dec = NULL;
                size_t dn;

                if (!name || !*name)
                        continue;
                if (!q->lookup || q->lookup(q->lookup_ud, "secrets", ns, name, &secret, &err) < 0 ||
                    !streq(json_path_string_or_empty(secret, "type"),
                           "kubernetes.io/dockerconfigjson") ||
                    !(data = json_string_value(json_object_get(json_object_get(secret, "data"),
                                                               ".dockerconfigjson"))) ||
                    base64_decode(data, strlen(data), &dec, &dn, NULL) < 0 ||
                    registry_dockerconfig_creds(dec, dn, domain, creds, n, NULL) < 0) {
                        strbuf_addf(&missing, "%s\"%s/%s\"", missing.len ? ", " : "", ns, name);
                }
                if (dec)
                        explicit_bzero(dec, dn);
                json_decref(secret);
        }
        *ret_missing = missing.len ? strbuf_detach(&missing) : NULL;
        strbuf_release(&missing);
}

enum image_pull_state image_puller_step(struct image_puller *p, const struct image_pull_request *q,
                                        struct pod_events *ev, char **ret_message)
{
        struct image_pull_outcome out = { 0 };
        enum image_pull_state s = image_puller_poll(p, q->key, &out);

        *ret_message = NULL;
        if (s == IMAGE_PULL_NONE) {
                struct registry_credential *creds = NULL;
                cleanup_free char *ref = NULL, *missing = NULL;
                size_t n = 0;
                int r;

                if (runtime_image_parse(q->image, &ref, NULL) == 0) {
                        *strchr(ref, '/') = '\0'; /* the registry */
                        pod_credentials(q, ref, &creds, &n, &missing);
                }
                /* K8S: kubelet.go getPullSecretsForPod's event */
                if (missing)
                        add_event(
                                ev, "Warning", "FailedToRetrieveImagePullSecret",
                                xasprintf(
                                        "Unable to retrieve some image pull secrets (%s); attempting to pull the image may not succeed.",
                                        missing));
                r = image_puller_start(p, q->key, q->image, creds, n);
                if (r < 0 && r != -EBUSY) {
                        *ret_message = xasprintf("start the pull: %s", strerror(-r));
                        return IMAGE_PULL_FAILED;
                }
                add_event(ev, "Normal", "Pulling", xasprintf("Pulling image \"%s\"", q->image));
                return IMAGE_PULL_RUNNING;
        }
        if (s == IMAGE_PULL_DONE) {
                cleanup_free char *d = image_pull_duration(out.seconds);
                /* K8S: image_manager.go; no queue here, so the waiting is the pull */
                add_event(
                        ev, "Normal", "Pulled",
                        xasprintf(
                                "Successfully pulled image \"%s\" in %s (%s including waiting). Image size: %llu bytes.",
                                q->image, d, d, (unsigned long long) out.size));
        } else if (s == IMAGE_PULL_FAILED) {
                add_event(ev, "Warning", "Failed",
                          xasprintf("Failed to pull image \"%s\": %s", q->image, out.error));
                /* K8S: kuberuntime's startContainer event for the same failure */
                add_event(ev, "Warning", "Failed", xstrdup("Error: ErrImagePull"));
                *ret_message = TAKE_PTR(out.error);
        }
        image_pull_outcome_release(&out);
        return s;
}
