/* pod-step.c: what every part of a pod's step uses (pod-worker.c's lifecycle, pod-resize.c's
 * allocation and resize, pod-claims.c's claims, pod-stats.c's statistics): the step's events,
 * the agent's memory of a container, and the names of a container's runs, cgroups and volumes
 * on this host. It calls none of them: each of those files depends on this one, and
 * pod-worker.c alone on the others. */
#include <dirent.h>
#include <gnutls/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "node/node-metrics.h"
#include "node/pod-worker-internal.h"
#include "node/runtime/runtime.h"

void add_event(struct pod_events *ev, const char *type, const char *reason, char *message)
{
        add_event_about(ev, NULL, type, reason, message);
}

void add_event_about(struct pod_events *ev, const json_t *object, const char *type,
                     const char *reason, char *message)
{
        if (ev->n == ARRAY_SIZE(ev->items)) {
                free(message);
                return;
        }
        ev->items[ev->n++] = (struct pod_event){ .type = type,
                                                 .reason = reason,
                                                 .message = message,
                                                 .object = json_incref((json_t *) object) };
}

/* The highest run number under DATA/pods/<uid>/containers/<name>, -1 when none. */
int latest_run_in(const char *pod_dir, const char *name)
{
        cleanup_free char *path = xasprintf("%s/containers/%s", pod_dir, name);
        DIR *d = opendir(path);
        struct dirent *e;
        int latest = -1;

        if (!d)
                return -1;
        while ((e = readdir(d))) {
                char *end;
                long n = strtol(e->d_name, &end, 10);
                if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end && n < 1000000 &&
                    n > latest)
                        latest = (int) n;
        }
        closedir(d);
        return latest;
}

struct container_memory *container_memory_get(struct pod_memory *p, const char *name)
{
        struct container_memory *c;

        for (size_t i = 0; i < p->n_containers; i++)
                if (streq(p->containers[i].name, name))
                        return &p->containers[i];
        p->containers = xrealloc(p->containers, (p->n_containers + 1) * sizeof(*p->containers));
        c = &p->containers[p->n_containers++];
        *c = (struct container_memory){ .name = xstrdup(name),
                                        .latest = latest_run_in(p->dir, name),
                                        .probe_kill_run = -1,
                                        .pulled_run = -1,
                                        .exit_watched_run = -1,
                                        .running_run = -1 };
        return c;
}

/* A run's container id: sha256 of "<uid>/<name>/<run>" in hex, as long as containerd's. */
void container_id(const char *uid, const char *name, int run, char out[static 65])
{
        cleanup_free char *key = xasprintf("%s/%s/%d", uid, name, run);
        unsigned char digest[32];

        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, key, strlen(key), digest) < 0)
                abort(); /* SHA-256 is always available */
        for (size_t i = 0; i < sizeof(digest); i++)
                (void) snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

char *run_dir(const struct pod_host *h, const struct pod_memory *p, const char *name, int run)
{
        return runtime_container_dir(h->data_dir, p->uid, name, (unsigned) run);
}

char *run_cgroup(const struct pod_memory *p, const char *name, int run)
{
        char id[65];

        container_id(p->uid, name, run, id);
        return xasprintf("%s/%s", p->cgroup, id);
}

char *volume_path(const struct pod_memory *p, const char *name)
{
        return xasprintf("%s/volumes/%s", p->dir, name);
}

struct metric *storage_operations(const struct pod_host *h)
{
        return h->metrics ? h->metrics->storage_operations : NULL;
}

/* Sends sig to the container's newest run when it runs. */
void signal_run(struct step *s, struct container_memory *cm, int sig)
{
        cleanup_free char *dir = NULL;

        if (cm->latest < 0)
                return;
        dir = run_dir(s->h, s->p, cm->name, cm->latest);
        (void) runtime_container_kill(dir, sig, NULL);
}
