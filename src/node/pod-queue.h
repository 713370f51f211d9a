/* pod-queue.h: the node agent's work queue of pods, what the pod workers take their next pod
 * from (K8S: pkg/kubelet/pod_workers.go, one worker goroutine per pod UID fed by UpdatePod).
 *
 * A pod is marked dirty by whatever concerns it alone: a watch change of the pod, a probe
 * verdict, the periodic resync, a timer the last step asked for. Marks coalesce: a pod marked
 * ten times before a worker takes it is stepped once. A pod is handed to one worker at a time
 * (pod_queue_take .. pod_queue_done); a mark that arrives while a worker has it makes it dirty
 * again, and it is handed out once more after pod_queue_done, so no change is lost and no pod is
 * stepped by two threads at once. Dirty pods are handed out in the order they were first marked,
 * the urgent ones (a change, a verdict, a timer) before those only the periodic resync marked:
 * a pod whose spec just changed does not wait behind a pass over every pod.
 *
 * Threads: every function may be called from any thread (one mutex inside); pod_queue_take
 * blocks. uids are copied; the uid pod_queue_take returns is the caller's to free. */
#ifndef FLEXLET_NODE_POD_QUEUE_H
#define FLEXLET_NODE_POD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pod_queue;

struct pod_queue *pod_queue_new(void);
/* Frees the queue; no thread may be in pod_queue_take any more (pod_queue_stop first). */
struct pod_queue *pod_queue_free(struct pod_queue *q);

/* uid is to be stepped as soon as a worker is free (or, while a worker has it, once more after
 * pod_queue_done). */
void pod_queue_mark(struct pod_queue *q, const char *uid);
/* pod_queue_mark for the periodic resync: stepped after every urgent pod (an urgent mark
 * while it waits moves it ahead). */
void pod_queue_mark_resync(struct pod_queue *q, const char *uid);
/* uid is to be stepped at the monotonic time due_ms (time_monotonic_ms()); of several timers of
 * one pod the earliest counts; a pod already dirty stays dirty. */
void pod_queue_mark_at(struct pod_queue *q, const char *uid, int64_t due_ms);

/* Waits for a dirty pod no worker has and hands it to the caller (a new string), or returns NULL
 * once the queue is stopped. The caller steps it, then calls pod_queue_done. *ret_urgent (if
 * not NULL) says whether anything but the periodic resync marked it since it was last taken. */
char *pod_queue_take(struct pod_queue *q, bool *ret_urgent);
/* The worker that took uid is done with it. */
void pod_queue_done(struct pod_queue *q, const char *uid);

/* Wakes every pod_queue_take, which returns NULL from now on. */
void pod_queue_stop(struct pod_queue *q);

/* Pods dirty and not yet taken, and pods a worker has (for tests and metrics). */
void pod_queue_counts(struct pod_queue *q, size_t *ret_dirty, size_t *ret_running);

#endif
