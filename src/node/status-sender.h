/* status-sender.h: the node agent's writes about its pods, off the sync thread. The sync step
 * hands in a pod's newest status, its events and the final delete of a finished pod; a few
 * threads of their own send them with their own API clients, so that a slow answer for one
 * pod never holds up the step of another (K8S: the kubelet's status manager and its event
 * recorder, both asynchronous).
 *
 * Per pod: the latest status wins (a status handed in before the previous one went out
 * replaces it, so only the newer is sent); its statuses go out one at a time in order, and so
 * do its events, neither waiting for the other's retries (K8S: the status manager and the
 * event recorder are apart); its delete goes last, after its status and every event handed in
 * before it. Statuses first: a status to send goes before events, and events wait while any
 * status is being sent (what clients wait for gets the CPU first: a burst's statuses are not
 * held up behind the events that explain them). Failures are retried with back-off. */
#ifndef FLEXLET_NODE_STATUS_SENDER_H
#define FLEXLET_NODE_STATUS_SENDER_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"

struct api_client_options;
struct status_sender;

/* How fast events go to the API server: qps a second on average, up to burst at once after a
 * quiet while; qps 0: no limit. Events beyond wait in the queue (STATUS_SENDER_MAX_EVENTS).
 * K8S: the kubelet's --event-qps and --event-burst (KubeletConfiguration eventRecordQPS 50 and
 * eventBurst 100 by default), a token bucket on its event client. */
struct event_rate {
        unsigned qps, burst;
};
#define EVENT_RATE_DEFAULT ((struct event_rate){ .qps = 50, .burst = 100 })

/* Starts n_threads senders (at least 1), each with its own client made from copts (borrowed:
 * must outlive the sender). component and host are the events' source (copied); rate limits
 * the events (burst at least 1 when qps is not 0). */
int status_sender_start(const struct api_client_options *copts, unsigned n_threads,
                        const char *component, const char *host, const struct event_rate *rate,
                        struct status_sender **ret, struct error **reterr);

/* Sends what is queued for up to flush_ms more, then stops (requests still running are
 * cancelled) and frees the sender. Whatever is left unsent is dropped: a later agent computes
 * the same status again from the host. NULL-safe; returns NULL. */
struct status_sender *status_sender_stop(struct status_sender *s, long flush_ms);

/* The status the pod last had handed in (new reference), as long as the API may not have it
 * yet: while it is queued or being sent, or while the pod the caller holds (its
 * metadata.resourceVersion) is older than the one the write answered. NULL otherwise: then the
 * pod's own status is current. K8S: the kubelet computes the next status from its status
 * manager's cache, not from the informer's possibly older copy. */
json_t *status_sender_latest(struct status_sender *s, const json_t *pod);

/* Whether pod (its uid and metadata.resourceVersion) is the object the sender's last status
 * write of it produced: the watch's echo of the agent's own write, which tells the agent
 * nothing it did not decide (a change by anyone else between is a version, and an event, of
 * its own, delivered before). */
bool status_sender_wrote(struct status_sender *s, const json_t *pod);

/* Queues status (the whole pod status; the reference is taken) to be written to pod's status
 * subresource with a merge patch; replaces a status of the same pod not yet sent. */
void status_sender_status(struct status_sender *s, const json_t *pod, json_t *status);

/* Queues an Event about object (pod, or what the pod uses, such as a claim) for pod's queue.
 * An event equal (same object, type, reason and message) to one still queued for the pod adds
 * to that one's count instead. At most STATUS_SENDER_MAX_EVENTS are queued on the node; beyond
 * that new events are dropped (counted in status_sender_dropped_events). */
void status_sender_event(struct status_sender *s, const json_t *pod, const json_t *object,
                         const char *type, const char *reason, const char *message);

/* Queues the kubelet's final zero-grace delete of pod (guarded by its uid), sent after the
 * pod's status and events queued before it. */
void status_sender_delete(struct status_sender *s, const json_t *pod);

/* Forgets the idle pods that are not in live (uid -> anything): their objects are gone. */
void status_sender_prune(struct status_sender *s, const json_t *live);

/* K8S client-go tools/record: maxQueuedEvents = 1000 (the broadcaster's queue; events beyond it
 * are dropped) and maxTriesPerEvent = 12. */
#define STATUS_SENDER_MAX_EVENTS      1000
#define STATUS_SENDER_EVENT_MAX_TRIES 12

/* How many events were dropped because the queue was full, or after their last try. */
unsigned long status_sender_dropped_events(struct status_sender *s);

#endif
