/* leader-election.h: leader election over a coordination.k8s.io/v1 Lease, as client-go's
 * tools/leaderelection with its LeaseLock does it for kube-controller-manager and kube-scheduler:
 * one holder at a time, named in spec.holderIdentity, renews the Lease every retry period; a
 * candidate takes it over once it has seen the Lease stand still for leaseDurationSeconds; every
 * write carries the resourceVersion last read, so of two candidates only one wins.
 *
 * Two layers:
 * - struct leader_elector: the state machine over a lease store (struct leader_lease_ops) and
 *   the times its caller passes in; no thread, no clock, no network, so tests drive it with a
 *   fake clock and an in-memory lease;
 * - struct leader_election: a thread that runs an elector against the API (a Lease in
 *   kube-system through struct api_client) and calls back when leadership starts and stops.
 *
 * K8S: expiry is judged on the candidate's own monotonic clock from the moment it last saw the
 * Lease change (observedTime), never by comparing the holder's renewTime with this machine's
 * wall clock, so clock skew between machines does not matter.
 *
 * Leadership lost: client-go's kube-controller-manager and kube-scheduler exit the process
 * ("leaderelection lost") and are restarted. flexlet's controllers share their process with an
 * API server that must keep serving, so a lost lease instead stops the controllers at once
 * (stopped_leading) and the election campaigns again. A holder that sees another identity
 * holding its Lease stops at once too, without waiting for its renew deadline. */
#ifndef FLEXLET_CONTROLLERS_LEADER_ELECTION_H
#define FLEXLET_CONTROLLERS_LEADER_ELECTION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: kube-controller-manager's and kube-scheduler's defaults (componentbaseconfig
 * LeaderElectionConfiguration: --leader-elect-lease-duration 15s, --leader-elect-renew-deadline
 * 10s, --leader-elect-retry-period 2s) and their locks (resourceLock leases, kube-system). */
#define LEADER_ELECTION_NAMESPACE          "kube-system"
#define LEADER_ELECTION_CONTROLLER_MANAGER "kube-controller-manager"
#define LEADER_ELECTION_SCHEDULER          "kube-scheduler"
#define LEADER_ELECTION_LEASE_DURATION_MS  15000
#define LEADER_ELECTION_RENEW_DEADLINE_MS  10000
#define LEADER_ELECTION_RETRY_PERIOD_MS    2000
/* K8S: leaderelection.JitterFactor: a candidate waits retry period * (1 + up to 1.2) */
#define LEADER_ELECTION_JITTER_FACTOR 1.2
/* hostname, '_', a UUID */
#define LEADER_ELECTION_IDENTITY_MAX 320

struct leader_election_config {
        const char *namespace_; /* NULL: kube-system */
        const char *name;       /* the Lease's name; required */
        const char *identity;   /* holderIdentity; required, see leader_election_identity() */
        long lease_duration_ms; /* 0: the defaults above */
        long renew_deadline_ms;
        long retry_period_ms;
};

/* Where the Lease lives. Each call may take until deadline_ms (monotonic ms; 0: no limit) and
 * should give up with -ETIMEDOUT past it. Objects passed in are borrowed; *ret is a new
 * reference to the Lease as stored (with its new resourceVersion). */
struct leader_lease_ops {
        /* 0 and *ret, or -ENOENT when there is no such Lease, or another -errno */
        int (*get)(void *ud, int64_t deadline_ms, json_t **ret, struct error **reterr);
        /* creates lease; -EEXIST when one exists */
        int (*create)(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                      struct error **reterr);
        /* replaces the Lease with lease, whose metadata.resourceVersion must still be the
         * stored one: -ESTALE (409 Conflict) when it is not */
        int (*update)(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                      struct error **reterr);
};

/* What a tick did. */
enum leader_event {
        LEADER_EVENT_NONE,
        LEADER_EVENT_STARTED, /* this identity now holds the Lease: start the work */
        LEADER_EVENT_STOPPED, /* it lost it (renew deadline passed, or another holds it) */
};

/* Checks c as leader_elector_new does, so a command can refuse bad flags before it starts
 * anything. */
int leader_election_config_check(const struct leader_election_config *c, struct error **reterr);

struct leader_elector;

/* A new elector that holds nothing yet. The config's strings and ops are copied; ud is
 * borrowed. -EINVAL (with *reterr) for a missing name or identity, or durations out of order
 * (K8S: leaseDuration > renewDeadline > retryPeriod * JitterFactor, each > 0). */
int leader_elector_new(const struct leader_election_config *c, const struct leader_lease_ops *ops,
                       void *ud, struct leader_elector **ret, struct error **reterr);
struct leader_elector *leader_elector_free(struct leader_elector *le);

/* K8S tryAcquireOrRenew: one attempt to acquire or renew the Lease at monotonic time now_ms,
 * writing wall as renewTime (and acquireTime when acquiring). True when this identity holds the
 * Lease afterwards. A failure to reach the store is false with *reterr set (reterr may be
 * NULL); a Lease that another identity holds and has renewed within its duration is false with
 * *reterr untouched. */
bool leader_elector_try(struct leader_elector *le, int64_t now_ms, const struct timespec *wall,
                        struct error **reterr);

/* One step of the election loop at now_ms: when a try is due, runs it and says what changed
 * for the caller (started or stopped leading); otherwise does nothing. *ret_wait_ms is how long
 * until the next step is due. jitter_ms (0 to retry period * JitterFactor) is added to a
 * candidate's wait, as client-go's wait.JitterUntil, but a candidate's next step is never
 * later than the moment the Lease it saw held runs out; a leader renews every retry period. A
 * leader that has not renewed for the renew deadline, or sees another holder, stops leading. */
enum leader_event leader_elector_tick(struct leader_elector *le, int64_t now_ms,
                                      const struct timespec *wall, long jitter_ms,
                                      long *ret_wait_ms, struct error **reterr);

/* Gives the Lease up if this identity holds it (K8S release, ReleaseOnCancel): holderIdentity
 * "" and leaseDurationSeconds 1, so a candidate takes it at its next try instead of waiting
 * out the duration. The elector holds nothing afterwards, even when the write failed (then the
 * Lease simply expires). */
int leader_elector_release(struct leader_elector *le, int64_t now_ms, const struct timespec *wall,
                           struct error **reterr);

/* Whether this identity leads (as of its last try or tick). */
bool leader_elector_is_leader(const struct leader_elector *le);
/* The holder last observed ("" when none), borrowed until the next call on le. */
const char *leader_elector_holder(const struct leader_elector *le);
/* The holder observed, when it differs from what the last call returned (K8S OnNewLeader);
 * NULL otherwise. Borrowed until the next call on le. */
const char *leader_elector_new_holder(struct leader_elector *le);

/* K8S: kube-controller-manager's and kube-scheduler's identity, "<hostname>_<uuid>" (a new
 * UUID for every process, so a restarted process is a new candidate). */
void leader_election_identity(char out[static LEADER_ELECTION_IDENTITY_MAX]);

struct leader_election_callbacks {
        /* On the election's thread when this process becomes the leader: start the work. A
         * negative return gives the Lease up again and campaigns on after a retry period. */
        int (*started_leading)(void *ud);
        /* On the election's thread when leadership ends, before the Lease is released: stop
         * the work. why says how it was lost ("the lease is held by ...", "the lease was not
         * renewed within ...: <the last failure>"); NULL at leader_election_stop. */
        void (*stopped_leading)(void *ud, const char *why);
        /* Optional: on the election's thread when another holder (or none: "") is observed. */
        void (*new_leader)(void *ud, const char *identity);
        void *ud;
};

struct leader_election;

/* Starts the election thread against the API server the client options reach (the Lease at
 * /apis/coordination.k8s.io/v1/namespaces/NS/leases/NAME). A request is given the lease
 * duration less the renew deadline (5 s) of silence at most. Returns once the first attempt is
 * over, so a server that is alone (or first) has its work started when this returns, as it would
 * without an election. The config, options and callbacks are copied. */
int leader_election_start(const struct api_client_options *o,
                          const struct leader_election_config *c,
                          const struct leader_election_callbacks *cb, struct leader_election **ret,
                          struct error **reterr);
/* Stops the thread: if leading, stopped_leading runs, then the Lease is released. Returns when
 * all of that is done. NULL-safe; returns NULL. */
struct leader_election *leader_election_stop(struct leader_election *e);

#endif
