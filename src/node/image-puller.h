/* image-puller.h: image pulls off the pod worker's thread (K8S: pkg/kubelet/images' puller with
 * parallel pulls: each pull runs by itself and its result is read at a later sync).
 *
 * Contract:
 * - image_puller_start starts a pull of `image` for `key` (the pod's uid and container name) on a
 *   thread of its own, taking the credentials; a key already pulling is left alone (-EBUSY).
 * - image_puller_poll says how key's pull stands: RUNNING, or DONE / FAILED once, with its
 *   outcome (then the key is forgotten); NONE when there is none.
 * - wake(ud, key) is called from the pull's thread when it ends, so the pod is stepped soon.
 * - image_puller_free stops the transfers under way and waits for their threads. */
#ifndef FLEXLET_NODE_IMAGE_PULLER_H
#define FLEXLET_NODE_IMAGE_PULLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node/pod-config.h"
#include "node/runtime/registry.h"

struct pod_events;

struct image_puller;

struct image_puller_options {
        const char *data_dir;
        const char *const *insecure; /* HOST[:PORT] served over plain http; NULL-ended; copied */
        void (*wake)(void *ud, const char *key);
        void *wake_ud;
};

int image_puller_new(const struct image_puller_options *o, struct image_puller **ret);
struct image_puller *image_puller_free(struct image_puller *p);

enum image_pull_state {
        IMAGE_PULL_NONE,
        IMAGE_PULL_RUNNING,
        IMAGE_PULL_DONE,
        IMAGE_PULL_FAILED,
};

struct image_pull_outcome {
        char *error;    /* FAILED: the message (containerd's words); owned */
        int errnum;     /* FAILED: positive errno */
        double seconds; /* how long the pull took */
        uint64_t size;  /* DONE: bytes of config and layers */
        char *image;    /* the image pulled, as asked; owned */
};
void image_pull_outcome_release(struct image_pull_outcome *o);

/* creds (may be NULL) are taken, freed with registry_credentials_free. */
int image_puller_start(struct image_puller *p, const char *key, const char *image,
                       struct registry_credential *creds, size_t n_creds);
enum image_pull_state image_puller_poll(struct image_puller *p, const char *key,
                                        struct image_pull_outcome *ret);
/* Whether key has a pull running or an outcome not yet read. */
bool image_puller_has(struct image_puller *p, const char *key);

/* One pod step's look at a container's pull (K8S: EnsureImageExists past its policy checks):
 * starts it when none runs (event Pulling, and FailedToRetrieveImagePullSecret when a named
 * Secret cannot be read or is not a kubernetes.io/dockerconfigjson one), and when it has ended
 * adds Pulled ("Successfully pulled image ... in ... (... including waiting). Image size: N
 * bytes.") or Failed ("Failed to pull image ...: ..." and "Error: ErrImagePull"), with the
 * failure's words in *ret_message (owned). Credentials come from the pod's imagePullSecrets
 * through lookup. */
struct image_pull_request {
        const char *key;   /* "<pod uid>/<container>" */
        const char *image; /* as the pod names it */
        const json_t *pod;
        pod_object_lookup_fn lookup;
        void *lookup_ud;
};
enum image_pull_state image_puller_step(struct image_puller *p, const struct image_pull_request *q,
                                        struct pod_events *ev, char **ret_message);

/* Go's time.Duration.String() of s truncated to milliseconds ("523ms", "1.5s", "2m3.004s"). */
char *image_pull_duration(double s);

#endif
