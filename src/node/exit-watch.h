/* exit-watch.h: container exits told to the agent as they happen (K8S: the kubelet's evented
 * PLEG, which takes the runtime's container events instead of relisting the containers every
 * second). One thread waits on the descriptors runtime_container_exit_fd and
 * runtime_sandbox_exit_fd give, each for one run of one pod's container or for its sandbox, and
 * calls the wake function with the pod's uid when one ends; the pod's worker then reads the
 * exit from the state dir as it always does. */
#ifndef FLEXLET_NODE_EXIT_WATCH_H
#define FLEXLET_NODE_EXIT_WATCH_H

#include "base/error.h"

struct exit_watch;

/* Called from the watch's thread when a watched run ended. */
typedef void (*exit_watch_fn)(void *ud, const char *pod_uid);

int exit_watch_new(exit_watch_fn wake, void *ud, struct exit_watch **ret, struct error **reterr);
/* Watches fd (taken over; closed once it fired or at exit_watch_free) for pod_uid, as the
 * watch named key (a run of one of its containers): while a watch of that pod and key has not
 * fired, another is not added (fd is closed), so watching a run again is harmless. */
void exit_watch_add(struct exit_watch *w, const char *pod_uid, const char *key, int fd);
/* Stops the thread (no wake is called after it returns) and closes what is still watched.
 * NULL-safe; returns NULL. */
struct exit_watch *exit_watch_free(struct exit_watch *w);

#endif
