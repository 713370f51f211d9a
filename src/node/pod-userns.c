/* pod-userns.c: the user namespace ranges of this host's pods (K8S KEP-127, hostUsers: false),
 * as the kubelet's userns manager keeps them: read back from every pod folder's `userns` record
 * when the agent starts, a new range taken and recorded before the pod's sandbox is made, freed
 * when the pod's folder is removed. The ranges themselves are src/node/userns.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/pod-worker-internal.h"
#include "node/userns.h"

static void owner_key(char buf[static 16], uint32_t base)
{
        (void) snprintf(buf, 16, "%u", base);
}

int pod_userns_init(struct pod_host *h, struct error **reterr)
{
        DIR *d;
        struct dirent *e;
        int r = 0;

        h->userns = xcalloc(1, sizeof(*h->userns));
        h->userns_owners = json_object();
        d = opendir(h->pods_dir);
        if (!d)
                return errno == ENOENT ? 0
                                       : error_set(reterr, errno, "user namespaces: open %s: %m",
                                                   h->pods_dir);
        /* K8S MakeUserNsManager: every pod found on disk keeps its range; a record that
         * cannot be read or a range recorded twice stops the agent, as it stops the kubelet */
        while (r >= 0 && (e = readdir(d))) {
                cleanup_free char *dir = NULL;
                uint32_t base;
                char key[16];
                int dfd;

                if (e->d_name[0] == '.')
                        continue;
                dir = xasprintf("%s/%s", h->pods_dir, e->d_name);
                dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (dfd < 0)
                        continue;
                r = userns_record_read(dfd, &base, reterr);
                close(dfd);
                if (r <= 0) {
                        if (r < 0)
                                error_wrap(reterr, "record pod mappings for existing pod \"%s\"",
                                           e->d_name);
                        continue;
                }
                r = userns_ranges_record(h->userns, base);
                if (r < 0) {
                        r = error_set(reterr, -r,
                                      "record pod mappings for existing pod \"%s\": range picked "
                                      "for pod already taken",
                                      e->d_name);
                        break;
                }
                owner_key(key, base);
                json_object_set_new(h->userns_owners, key, json_string(e->d_name));
        }
        closedir(d);
        return r < 0 ? r : 0;
}

void pod_userns_free(struct pod_host *h)
{
        free(h->userns);
        json_decref(h->userns_owners);
}

/* pod_userns_setup under userns_lock */
static int userns_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                        struct error **reterr)
{
        cleanup_close int dfd = -1;
        uint32_t base = 0;
        char key[16];
        const char *owner;
        int r;

        p->userns_base = 0;
        /* K8S: hostUsers unset or true is the host's user namespace */
        if (!json_is_false(json_path(pod, "spec.hostUsers")))
                return 0;
        dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "user namespace: open %s: %m", p->dir);
        r = userns_record_read(dfd, &base, reterr);
        if (r < 0)
                return r;
        if (r > 0) {
                /* K8S GetOrCreateUserNamespaceMappings: the recorded range, which must be this
                 * pod's alone */
                owner_key(key, base);
                owner = json_string_value(json_object_get(h->userns_owners, key));
                if (owner && !streq(owner, p->uid))
                        return error_set(reterr, EEXIST,
                                         "user namespace: range picked for pod \"%s\" already "
                                         "taken",
                                         p->uid);
                if (!owner) {
                        r = userns_ranges_record(h->userns, base);
                        if (r < 0)
                                return error_set(reterr, -r,
                                                 "user namespace: range picked for pod \"%s\" "
                                                 "already taken",
                                                 p->uid);
                        json_object_set_new(h->userns_owners, key, json_string(p->uid));
                }
                p->userns_base = base;
                return 0;
        }
        r = userns_ranges_take(h->userns, &base);
        if (r < 0)
                return error_set(reterr, -r,
                                 "create user namespace: could not find an empty slot to allocate "
                                 "a user namespace");
        /* recorded before anything uses it: a crash after this keeps the range the pod's */
        r = userns_record_write(dfd, base, reterr);
        if (r < 0) {
                userns_ranges_release(h->userns, base);
                return error_wrap(reterr, "create user namespace");
        }
        owner_key(key, base);
        json_object_set_new(h->userns_owners, key, json_string(p->uid));
        p->userns_base = base;
        return 0;
}

int pod_userns_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                     struct error **reterr)
{
        int r;

        /* the ranges are the node's: two pods set up at once must not take the same one */
        pthread_mutex_lock(&h->userns_lock);
        r = userns_setup(h, p, pod, reterr);
        pthread_mutex_unlock(&h->userns_lock);
        return r;
}

void pod_userns_release(struct pod_host *h, const char *uid, uint32_t base)
{
        char key[16];
        const char *owner;

        if (!base || !h->userns)
                return;
        owner_key(key, base);
        pthread_mutex_lock(&h->userns_lock);
        owner = json_string_value(json_object_get(h->userns_owners, key));
        if (owner && streq(owner, uid)) {
                json_object_del(h->userns_owners, key);
                userns_ranges_release(h->userns, base);
        }
        pthread_mutex_unlock(&h->userns_lock);
}

int pod_userns_recorded(const char *pod_dir, uint32_t *ret_base)
{
        cleanup_close int dfd = open(pod_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        uint32_t base = 0;

        if (dfd < 0)
                return -errno;
        if (userns_record_read(dfd, &base, NULL) <= 0)
                base = 0;
        *ret_base = base;
        return 0;
}
