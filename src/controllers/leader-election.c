/* leader-election.c: the election state machine (try, tick, release) over a lease store, and
 * the thread that runs it against the API with a Lease in kube-system. What the controllers do
 * once elected is the caller's (the callbacks); which credential the requests carry is the
 * client options'. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "base/uuid.h"
#include "client/event.h"
#include "controllers/leader-election.h"

struct leader_elector {
        char *namespace_;
        char *name;
        char *identity;
        long lease_duration_ms;
        long renew_deadline_ms;
        long retry_period_ms;
        struct leader_lease_ops ops;
        void *ud;

        /* K8S observedRecord / observedTime: the Lease last read or written (NULL: none yet)
         * and when its spec was last seen to change */
        json_t *observed;
        int64_t observed_ms;
        bool leading;          /* as of the last tick: started and not yet stopped */
        int64_t last_renew_ms; /* the last successful try while leading */
        int64_t next_try_ms;   /* 0: now */
        char *reported_holder; /* what leader_elector_new_holder last returned */
};

static long or_default(long v, long def)
{
        return v > 0 ? v : def;
}

int leader_election_config_check(const struct leader_election_config *c, struct error **reterr)
{
        long lease = or_default(c->lease_duration_ms, LEADER_ELECTION_LEASE_DURATION_MS);
        long renew = or_default(c->renew_deadline_ms, LEADER_ELECTION_RENEW_DEADLINE_MS);
        long retry = or_default(c->retry_period_ms, LEADER_ELECTION_RETRY_PERIOD_MS);

        if (!c->name || !*c->name)
                return error_set(reterr, EINVAL, "leader election: a lock name is required");
        if (!c->identity || !*c->identity)
                return error_set(reterr, EINVAL, "leader election: identity cannot be empty");
        /* K8S: NewLeaderElector's checks and words */
        if (lease <= renew)
                return error_set(reterr, EINVAL,
                                 "leader election: leaseDuration must be greater than "
                                 "renewDeadline");
        if ((double) renew <= LEADER_ELECTION_JITTER_FACTOR * (double) retry)
                return error_set(reterr, EINVAL,
                                 "leader election: renewDeadline must be greater than "
                                 "retryPeriod*JitterFactor");
        /* whole seconds on the wire (spec.leaseDurationSeconds) */
        if (lease % 1000)
                return error_set(reterr, EINVAL,
                                 "leader election: leaseDuration must be whole seconds");
        return 0;
}

int leader_elector_new(const struct leader_election_config *c, const struct leader_lease_ops *ops,
                       void *ud, struct leader_elector **ret, struct error **reterr)
{
        struct leader_elector *le;
        int r = leader_election_config_check(c, reterr);

        if (r < 0)
                return r;
        le = xcalloc(1, sizeof(*le));
        le->namespace_ = xstrdup(c->namespace_ ?: LEADER_ELECTION_NAMESPACE);
        le->name = xstrdup(c->name);
        le->identity = xstrdup(c->identity);
        le->lease_duration_ms = or_default(c->lease_duration_ms, LEADER_ELECTION_LEASE_DURATION_MS);
        le->renew_deadline_ms = or_default(c->renew_deadline_ms, LEADER_ELECTION_RENEW_DEADLINE_MS);
        le->retry_period_ms = or_default(c->retry_period_ms, LEADER_ELECTION_RETRY_PERIOD_MS);
        le->ops = *ops;
        le->ud = ud;
        le->reported_holder = xstrdup("");
        *ret = le;
        return 0;
}

struct leader_elector *leader_elector_free(struct leader_elector *le)
{
        if (!le)
                return NULL;
        json_decref(le->observed);
        free(le->namespace_);
        free(le->name);
        free(le->identity);
        free(le->reported_holder);
        free(le);
        return NULL;
}

const char *leader_elector_holder(const struct leader_elector *le)
{
        return json_path_string(le->observed, "spec.holderIdentity") ?: "";
}

static bool is_holder(const struct leader_elector *le)
{
        return streq(leader_elector_holder(le), le->identity);
}

bool leader_elector_is_leader(const struct leader_elector *le)
{
        return le->leading;
}

const char *leader_elector_new_holder(struct leader_elector *le)
{
        const char *h = leader_elector_holder(le);

        if (!le->observed || streq(h, le->reported_holder))
                return NULL;
        free(le->reported_holder);
        le->reported_holder = xstrdup(h);
        return le->reported_holder;
}

/* K8S isLeaseValid: observedTime + leaseDurationSeconds is still ahead. */
static bool lease_valid(const struct leader_elector *le, int64_t now_ms)
{
        const json_t *d = json_path(le->observed, "spec.leaseDurationSeconds");
        int64_t duration_ms = json_is_integer(d) ? (int64_t) json_integer_value(d) * 1000 : 0;

        return le->observed && le->observed_ms + duration_ms > now_ms;
}

static void observe(struct leader_elector *le, json_t *lease, int64_t now_ms)
{
        json_decref(le->observed);
        le->observed = lease;
        le->observed_ms = now_ms;
}

static json_int_t spec_int(const json_t *lease, const char *field)
{
        const json_t *v = json_object_get(json_object_get(lease, "spec"), field);

        return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* K8S LeaderElectionRecordToLeaseSpec: every field set. */
static json_t *record(const char *holder, long duration_s, const char *acquire, const char *renew,
                      json_int_t transitions)
{
        return json_pack("{s:s, s:i, s:s, s:s, s:I}", "holderIdentity", holder,
                         "leaseDurationSeconds", (int) duration_s, "acquireTime", acquire,
                         "renewTime", renew, "leaseTransitions", transitions);
}

/* base (a stored Lease: metadata with its resourceVersion) with spec replaced. */
static json_t *with_spec(const json_t *base, json_t *spec)
{
        json_t *l = json_deep_copy(base);

        json_object_set_new(l, "spec", spec);
        return l;
}

static int64_t deadline_of(const struct leader_elector *le, int64_t now_ms)
{
        /* a leader's requests end by its renew deadline; a candidate's within a retry period */
        return le->leading ? le->last_renew_ms + le->renew_deadline_ms
                           : now_ms + le->retry_period_ms;
}

bool leader_elector_try(struct leader_elector *le, int64_t now_ms, const struct timespec *wall,
                        struct error **reterr)
{
        char now_text[40];
        int64_t deadline = deadline_of(le, now_ms);
        json_t *got = NULL, *stored = NULL;
        json_t *desired;
        int r;

        time_format_rfc3339_micro(wall, now_text);
        /* 1. K8S fast path: the holder of a valid lease updates what it wrote last. */
        if (is_holder(le) && lease_valid(le, now_ms)) {
                cleanup_json json_t *upd = with_spec(
                        le->observed,
                        record(le->identity, le->lease_duration_ms / 1000,
                               json_path_string(le->observed, "spec.acquireTime") ?: now_text,
                               now_text, spec_int(le->observed, "leaseTransitions")));

                if (le->ops.update(le->ud, upd, deadline, &stored, NULL) >= 0) {
                        observe(le, stored, now_ms);
                        return true;
                }
                /* falls back to reading the Lease, as upstream's slow path */
        }
        /* 2. read it, or create it */
        r = le->ops.get(le->ud, deadline, &got, reterr);
        if (r == -ENOENT) {
                cleanup_json json_t *lease = json_pack(
                        "{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "coordination.k8s.io/v1",
                        "kind", "Lease", "metadata", "name", le->name, "namespace", le->namespace_,
                        "spec",
                        record(le->identity, le->lease_duration_ms / 1000, now_text, now_text, 0));

                if (le->ops.create(le->ud, lease, deadline, &stored, reterr) < 0)
                        return false;
                observe(le, stored, now_ms);
                return true;
        }
        if (r < 0)
                return false;
        /* 3. K8S: a spec that changed since we last looked restarts the duration */
        if (!le->observed ||
            !json_equal(json_object_get(le->observed, "spec"), json_object_get(got, "spec")))
                observe(le, got, now_ms);
        else
                observe(le, got, le->observed_ms);
        if (*leader_elector_holder(le) && lease_valid(le, now_ms) && !is_holder(le))
                return false;
        /* 4. take it (or keep it): a new holder counts a transition */
        if (is_holder(le))
                desired = record(le->identity, le->lease_duration_ms / 1000,
                                 json_path_string(le->observed, "spec.acquireTime") ?: now_text,
                                 now_text, spec_int(le->observed, "leaseTransitions"));
        else
                desired = record(le->identity, le->lease_duration_ms / 1000, now_text, now_text,
                                 spec_int(le->observed, "leaseTransitions") + 1);
        {
                cleanup_json json_t *upd = with_spec(le->observed, desired);

                if (le->ops.update(le->ud, upd, deadline, &stored, reterr) < 0)
                        return false;
        }
        observe(le, stored, now_ms);
        return true;
}

enum leader_event leader_elector_tick(struct leader_elector *le, int64_t now_ms,
                                      const struct timespec *wall, long jitter_ms,
                                      long *ret_wait_ms, struct error **reterr)
{
        enum leader_event ev = LEADER_EVENT_NONE;
        bool held;

        if (le->next_try_ms > now_ms) {
                *ret_wait_ms = (long) (le->next_try_ms - now_ms);
                return LEADER_EVENT_NONE;
        }
        if (le->leading && now_ms - le->last_renew_ms >= le->renew_deadline_ms) {
                /* K8S renew: the deadline passed without a successful renewal */
                le->leading = false;
                ev = LEADER_EVENT_STOPPED;
        } else {
                held = leader_elector_try(le, now_ms, wall, reterr);
                if (held) {
                        le->last_renew_ms = now_ms;
                        if (!le->leading)
                                ev = LEADER_EVENT_STARTED;
                        le->leading = true;
                } else if (le->leading && *leader_elector_holder(le) && !is_holder(le)) {
                        /* another identity holds it: our work stops now, not at the deadline */
                        le->leading = false;
                        ev = LEADER_EVENT_STOPPED;
                }
        }
        le->next_try_ms = now_ms + le->retry_period_ms + (le->leading ? 0 : jitter_ms);
        /* flexlet: a candidate also tries the moment the holder's Lease runs out in its view,
         * instead of up to a jittered period later (upstream), which keeps a takeover within
         * the duration and one retry period of the last renewal; the resourceVersion still
         * decides between candidates */
        if (!le->leading && *leader_elector_holder(le) && !is_holder(le) &&
            lease_valid(le, now_ms)) {
                int64_t expiry =
                        le->observed_ms + spec_int(le->observed, "leaseDurationSeconds") * 1000;

                if (expiry < le->next_try_ms)
                        le->next_try_ms = expiry;
        }
        *ret_wait_ms = (long) (le->next_try_ms - now_ms);
        return ev;
}

int leader_elector_release(struct leader_elector *le, int64_t now_ms, const struct timespec *wall,
                           struct error **reterr)
{
        char now_text[40];
        cleanup_json json_t *upd = NULL;
        json_t *stored = NULL;
        bool held = is_holder(le);
        int r;

        le->leading = false;
        le->next_try_ms = now_ms + le->retry_period_ms;
        if (!held || !le->observed)
                return 0;
        time_format_rfc3339_micro(wall, now_text);
        /* K8S release: no holder, a one-second duration, the transitions kept */
        upd = with_spec(le->observed, record("", 1, now_text, now_text,
                                             spec_int(le->observed, "leaseTransitions")));
        r = le->ops.update(le->ud, upd, now_ms + le->retry_period_ms, &stored, reterr);
        if (r < 0)
                return r;
        observe(le, stored, now_ms);
        return 0;
}

void leader_election_identity(char out[static LEADER_ELECTION_IDENTITY_MAX])
{
        char host[HOST_NAME_MAX + 1] = "";
        char uuid[UUID_STRING_LEN + 1];

        if (gethostname(host, sizeof(host)) < 0 || !host[0])
                strcpy(host, "localhost");
        host[HOST_NAME_MAX] = '\0';
        uuid_random(uuid);
        (void) snprintf(out, LEADER_ELECTION_IDENTITY_MAX, "%s_%s", host, uuid);
}

/* ---- the Lease through the API ---- */

struct leader_election {
        struct leader_election_callbacks cb;
        struct leader_elector *le;
        struct api_client *client;
        char *path;       /* the Lease */
        char *collection; /* its namespace's leases */
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stopping;
        bool first_done; /* the first attempt (and its callback) is over */
};

/* The request may not start past the deadline (the client's idle timeout bounds it once
 * started). */
static int lease_request(struct leader_election *e, const char *method, const char *path,
                         const json_t *body, int64_t deadline_ms, long *ret_status, json_t **ret,
                         struct error **reterr)
{
        cleanup_free char *text = body ? json_dump_compact(body) : NULL;

        if (deadline_ms && time_monotonic_ms() >= deadline_ms)
                return error_set(reterr, ETIMEDOUT, "%s \"%s\": the deadline passed", method, path);
        return api_client_request(e->client, method, path, NULL, text, text ? strlen(text) : 0,
                                  ret_status, ret, reterr);
}

static int lease_answer(long status, json_t *body, long ok, const char *what, json_t **ret,
                        struct error **reterr)
{
        if (status == ok && json_is_object(body)) {
                *ret = body;
                return 0;
        }
        {
                cleanup_json json_t *b = body;
                const char *msg = json_string_value(json_object_get(b, "message")) ?: "";

                if (status == 404)
                        return -ENOENT;
                if (status == 409)
                        return error_set(reterr, what[0] == 'c' ? EEXIST : ESTALE,
                                         "%s the lease: %s", what, msg);
                return error_set(reterr, EIO, "%s the lease: HTTP %ld: %s", what, status, msg);
        }
}

static int api_lease_get(void *ud, int64_t deadline_ms, json_t **ret, struct error **reterr)
{
        struct leader_election *e = ud;
        json_t *body = NULL;
        long status = 0;
        int r = lease_request(e, "GET", e->path, NULL, deadline_ms, &status, &body, reterr);

        return r < 0 ? r : lease_answer(status, body, 200, "reading", ret, reterr);
}

static int api_lease_create(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                            struct error **reterr)
{
        struct leader_election *e = ud;
        json_t *body = NULL;
        long status = 0;
        int r = lease_request(e, "POST", e->collection, lease, deadline_ms, &status, &body, reterr);

        return r < 0 ? r : lease_answer(status, body, 201, "creating", ret, reterr);
}

static int api_lease_update(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                            struct error **reterr)
{
        struct leader_election *e = ud;
        json_t *body = NULL;
        long status = 0;
        int r = lease_request(e, "PUT", e->path, lease, deadline_ms, &status, &body, reterr);

        if (r >= 0 && status == 404)
                return error_set(reterr, ENOENT, "updating the lease: it was deleted");
        return r < 0 ? r : lease_answer(status, body, 200, "updating", ret, reterr);
}

static const struct leader_lease_ops api_lease_ops = {
        .get = api_lease_get,
        .create = api_lease_create,
        .update = api_lease_update,
};

static void now_wall(struct timespec *ts)
{
        (void) clock_gettime(CLOCK_REALTIME, ts);
}

/* K8S: LeaseLock.RecordEvent, "<identity> became leader", reason LeaderElection, on the
 * Lease, from the component named as the Lease; best effort, as upstream's recorder. */
static void record_event(struct leader_election *e, const char *what)
{
        cleanup_free char *msg = xasprintf("%s %s", e->le->identity, what);

        if (e->le->observed)
                (void) api_client_event(e->client, e->le->observed, "Normal", "LeaderElection", msg,
                                        e->le->name, NULL, NULL);
}

static void *election_main(void *arg)
{
        struct leader_election *e = arg;
        unsigned seed = (unsigned) time_monotonic_ms() ^ (unsigned) (uintptr_t) e;

        struct error *last_err = NULL; /* why the last try failed */

        (void) pthread_setname_np(pthread_self(), "leader-elect");
        pthread_mutex_lock(&e->lock);
        while (!e->stopping) {
                struct error *err = NULL;
                struct timespec wall, until;
                long wait_ms = 0;
                long jitter =
                        (long) ((double) rand_r(&seed) / RAND_MAX * LEADER_ELECTION_JITTER_FACTOR *
                                (double) e->le->retry_period_ms);
                enum leader_event ev;
                const char *holder;

                pthread_mutex_unlock(&e->lock);
                now_wall(&wall);
                ev = leader_elector_tick(e->le, time_monotonic_ms(), &wall, jitter, &wait_ms, &err);
                if (err) {
                        error_free(last_err);
                        last_err = err;
                } else if (leader_elector_is_leader(e->le)) {
                        last_err = error_free(last_err);
                }
                if (ev == LEADER_EVENT_STARTED) {
                        record_event(e, "became leader");
                        if (e->cb.started_leading(e->cb.ud) < 0) {
                                e->cb.stopped_leading(e->cb.ud, "its work did not start");
                                now_wall(&wall);
                                (void) leader_elector_release(e->le, time_monotonic_ms(), &wall,
                                                              NULL);
                        }
                } else if (ev == LEADER_EVENT_STOPPED) {
                        cleanup_free char *why =
                                *leader_elector_holder(e->le) &&
                                                !streq(leader_elector_holder(e->le),
                                                       e->le->identity)
                                        ? xasprintf("the lease is held by %s",
                                                    leader_elector_holder(e->le))
                                        : xasprintf("the lease was not renewed within %ld ms: %s",
                                                    e->le->renew_deadline_ms,
                                                    last_err ? last_err->message : "no answer");

                        e->cb.stopped_leading(e->cb.ud, why);
                }
                holder = leader_elector_new_holder(e->le);
                if (holder && e->cb.new_leader)
                        e->cb.new_leader(e->cb.ud, holder);
                pthread_mutex_lock(&e->lock);
                if (!e->first_done) {
                        e->first_done = true;
                        pthread_cond_broadcast(&e->cond);
                }
                until = time_after_ms(CLOCK_MONOTONIC, wait_ms);
                while (!e->stopping && pthread_cond_timedwait(&e->cond, &e->lock, &until) == 0)
                        ;
        }
        pthread_mutex_unlock(&e->lock);
        error_free(last_err);
        if (leader_elector_is_leader(e->le)) {
                struct timespec wall;

                /* the work stops before the Lease goes (K8S ReleaseOnCancel's rule) */
                e->cb.stopped_leading(e->cb.ud, NULL);
                now_wall(&wall);
                (void) leader_elector_release(e->le, time_monotonic_ms(), &wall, NULL);
        }
        return NULL;
}

int leader_election_start(const struct api_client_options *o,
                          const struct leader_election_config *c,
                          const struct leader_election_callbacks *cb, struct leader_election **ret,
                          struct error **reterr)
{
        struct api_client_options co = *o;
        struct leader_election *e = xcalloc(1, sizeof(*e));
        pthread_condattr_t ca;
        int r;

        e->cb = *cb;
        r = leader_elector_new(c, &api_lease_ops, e, &e->le, reterr);
        if (r >= 0) {
                /* A lease request that stalls this long has failed: a leader's last request,
                 * started before its renew deadline, ends by the time the Lease runs out. */
                co.idle_timeout_ms = e->le->lease_duration_ms - e->le->renew_deadline_ms;
                r = api_client_new(&co, &e->client, reterr);
        }
        if (r < 0) {
                leader_elector_free(e->le);
                free(e);
                return r;
        }
        e->collection =
                xasprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases", e->le->namespace_);
        e->path = xasprintf("%s/%s", e->collection, e->le->name);
        pthread_mutex_init(&e->lock, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&e->cond, &ca);
        pthread_condattr_destroy(&ca);
        if (pthread_create(&e->thread, NULL, election_main, e) != 0)
                abort(); /* only when the process is out of resources */
        pthread_mutex_lock(&e->lock);
        while (!e->first_done)
                pthread_cond_wait(&e->cond, &e->lock);
        pthread_mutex_unlock(&e->lock);
        *ret = e;
        return 0;
}

struct leader_election *leader_election_stop(struct leader_election *e)
{
        if (!e)
                return NULL;
        pthread_mutex_lock(&e->lock);
        e->stopping = true;
        pthread_cond_signal(&e->cond);
        pthread_mutex_unlock(&e->lock);
        (void) pthread_join(e->thread, NULL);
        pthread_cond_destroy(&e->cond);
        pthread_mutex_destroy(&e->lock);
        api_client_free(e->client);
        leader_elector_free(e->le);
        free(e->path);
        free(e->collection);
        free(e);
        return NULL;
}
