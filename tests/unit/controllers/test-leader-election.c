/* test-leader-election.c: the election state machine with a fake clock and an in-memory Lease
 * store that keeps resourceVersions as the API does: creating, renewing, taking over only after
 * the duration seen from the candidate's own clock, losing at the renew deadline or at the
 * sight of another holder, release, and a write with a stale resourceVersion losing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "controllers/leader-election.h"

/* The Lease as a store keeps it: one object, a counter for resourceVersions. */
struct fake_store {
        json_t *lease;
        long rv;
        bool down;      /* every call fails as an unreachable server */
        bool race_once; /* another writer changes the Lease before the next update lands */
        int updates;
};

static void stamp(struct fake_store *s, json_t *l)
{
        char rv[32];

        (void) snprintf(rv, sizeof(rv), "%ld", ++s->rv);
        json_object_set_new(json_object_ensure(l, "metadata"), "resourceVersion", json_string(rv));
}

static int fake_get(void *ud, int64_t deadline_ms, json_t **ret, struct error **reterr)
{
        struct fake_store *s = ud;

        (void) deadline_ms;
        if (s->down)
                return error_set(reterr, ECONNREFUSED, "connection refused");
        if (!s->lease)
                return -ENOENT;
        *ret = json_deep_copy(s->lease);
        return 0;
}

static int fake_create(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                       struct error **reterr)
{
        struct fake_store *s = ud;

        (void) deadline_ms;
        if (s->down)
                return error_set(reterr, ECONNREFUSED, "connection refused");
        if (s->lease)
                return error_set(reterr, EEXIST, "exists");
        s->lease = json_deep_copy(lease);
        stamp(s, s->lease);
        *ret = json_deep_copy(s->lease);
        return 0;
}

static int fake_update(void *ud, const json_t *lease, int64_t deadline_ms, json_t **ret,
                       struct error **reterr)
{
        struct fake_store *s = ud;

        (void) deadline_ms;
        if (s->down)
                return error_set(reterr, ECONNREFUSED, "connection refused");
        if (!s->lease)
                return error_set(reterr, ENOENT, "gone");
        if (s->race_once) {
                s->race_once = false;
                stamp(s, s->lease);
        }
        /* K8S: the resourceVersion is the update's precondition */
        if (!streq(json_path_string(lease, "metadata.resourceVersion") ?: "",
                   json_path_string(s->lease, "metadata.resourceVersion")))
                return error_set(reterr, ESTALE, "the object has been modified");
        json_decref(s->lease);
        s->lease = json_deep_copy(lease);
        stamp(s, s->lease);
        s->updates++;
        *ret = json_deep_copy(s->lease);
        return 0;
}

static const struct leader_lease_ops fake_ops = {
        .get = fake_get,
        .create = fake_create,
        .update = fake_update,
};

static struct leader_elector *elector(struct fake_store *s, const char *identity)
{
        const struct leader_election_config c = { .name = "kube-controller-manager",
                                                  .identity = identity };
        struct leader_elector *le = NULL;

        assert_int_equal(leader_elector_new(&c, &fake_ops, s, &le, NULL), 0);
        return le;
}

/* wall time for monotonic ms t: 2026-01-01T00:00:00Z + t */
static struct timespec wall(int64_t t)
{
        return (struct timespec){ .tv_sec = 1767225600 + t / 1000,
                                  .tv_nsec = (long) (t % 1000) * 1000000 };
}

static enum leader_event tick(struct leader_elector *le, int64_t t)
{
        struct timespec w = wall(t);
        long wait = -1;
        enum leader_event ev = leader_elector_tick(le, t, &w, 0, &wait, NULL);

        assert_true(wait > 0);
        return ev;
}

static bool try_at(struct leader_elector *le, int64_t t)
{
        struct timespec w = wall(t);

        return leader_elector_try(le, t, &w, NULL);
}

static const char *spec_str(const struct fake_store *s, const char *field)
{
        return json_string_value(json_object_get(json_object_get(s->lease, "spec"), field));
}

static json_int_t spec_int(const struct fake_store *s, const char *field)
{
        return json_integer_value(json_object_get(json_object_get(s->lease, "spec"), field));
}

static void test_first_candidate_creates_the_lease(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");

        (void) state;
        assert_int_equal(tick(a, 1000), LEADER_EVENT_STARTED);
        assert_true(leader_elector_is_leader(a));
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-a_1");
        assert_int_equal(spec_int(&s, "leaseDurationSeconds"), 15);
        assert_int_equal(spec_int(&s, "leaseTransitions"), 0);
        assert_string_equal(spec_str(&s, "acquireTime"), "2026-01-01T00:00:01.000000Z");
        assert_string_equal(spec_str(&s, "renewTime"), "2026-01-01T00:00:01.000000Z");
        assert_string_equal(json_path_string(s.lease, "metadata.namespace"), "kube-system");
        assert_string_equal(json_path_string(s.lease, "metadata.name"), "kube-controller-manager");
        /* the next try is a retry period on; nothing happens before it */
        assert_int_equal(tick(a, 2999), LEADER_EVENT_NONE);
        assert_int_equal(s.updates, 0);
        /* a renewal moves renewTime only */
        assert_int_equal(tick(a, 3000), LEADER_EVENT_NONE);
        assert_int_equal(s.updates, 1);
        assert_string_equal(spec_str(&s, "acquireTime"), "2026-01-01T00:00:01.000000Z");
        assert_string_equal(spec_str(&s, "renewTime"), "2026-01-01T00:00:03.000000Z");
        assert_int_equal(spec_int(&s, "leaseTransitions"), 0);
        leader_elector_free(a);
        json_decref(s.lease);
}

static void test_candidate_waits_while_the_leader_renews(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        /* a renews every 2 s for a minute: b never takes it, however long it has waited */
        for (int64_t t = 2000; t < 60000; t += 1000) {
                if (t % 2000 == 0)
                        assert_int_equal(tick(a, t), LEADER_EVENT_NONE);
                assert_false(try_at(b, t + 500));
        }
        assert_true(leader_elector_is_leader(a));
        assert_string_equal(leader_elector_holder(b), "host-a_1");
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

static void test_takeover_after_the_duration_from_the_candidates_view(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        assert_int_equal(tick(a, 2000), LEADER_EVENT_NONE); /* last renewal, then a dies */
        /* b first sees the Lease at 5 s: it counts the duration from then, not from renewTime */
        assert_false(try_at(b, 5000));
        assert_false(try_at(b, 19999));
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-a_1");
        assert_true(try_at(b, 20000));
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-b_2");
        assert_int_equal(spec_int(&s, "leaseTransitions"), 1);
        assert_string_equal(spec_str(&s, "acquireTime"), "2026-01-01T00:00:20.000000Z");
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

/* The candidate's jittered wait never passes the moment the Lease it saw runs out. */
static void test_candidate_wakes_when_the_lease_runs_out(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");
        struct timespec w;
        long wait = 0;

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED); /* a then dies */
        w = wall(1000);
        assert_int_equal(leader_elector_tick(b, 1000, &w, 2400, &wait, NULL), LEADER_EVENT_NONE);
        assert_int_equal(wait, 4400); /* b first saw it at 1 s: it runs out at 16 s */
        w = wall(13000);
        assert_int_equal(leader_elector_tick(b, 13000, &w, 2400, &wait, NULL), LEADER_EVENT_NONE);
        assert_int_equal(wait, 3000);
        w = wall(16000);
        assert_int_equal(leader_elector_tick(b, 16000, &w, 2400, &wait, NULL),
                         LEADER_EVENT_STARTED);
        assert_int_equal(wait, 2000); /* a leader renews every retry period, unjittered */
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-b_2");
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

static void test_leader_stops_at_the_renew_deadline(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        assert_int_equal(tick(a, 2000), LEADER_EVENT_NONE);
        s.down = true;
        for (int64_t t = 4000; t < 12000; t += 2000)
                assert_int_equal(tick(a, t), LEADER_EVENT_NONE); /* still within 10 s */
        assert_true(leader_elector_is_leader(a));
        assert_int_equal(tick(a, 12000), LEADER_EVENT_STOPPED);
        assert_false(leader_elector_is_leader(a));
        /* the store is back: a campaigns again and, still the holder, leads again */
        s.down = false;
        assert_int_equal(tick(a, 14000), LEADER_EVENT_STARTED);
        leader_elector_free(a);
        json_decref(s.lease);
}

static void test_leader_stops_at_once_on_another_holder(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        /* someone took the Lease (an operator's edit, a paused leader's successor) */
        json_object_set_new(json_object_get(s.lease, "spec"), "holderIdentity",
                            json_string("host-c_3"));
        s.rv++;
        json_object_set_new(json_object_get(s.lease, "metadata"), "resourceVersion",
                            json_string("99"));
        assert_int_equal(tick(a, 2000), LEADER_EVENT_STOPPED);
        assert_false(leader_elector_is_leader(a));
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-c_3");
        leader_elector_free(a);
        json_decref(s.lease);
}

static void test_release_lets_the_next_take_over_at_once(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");
        struct timespec w = wall(3000);

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        assert_false(try_at(b, 1000));
        assert_int_equal(leader_elector_release(a, 3000, &w, NULL), 0);
        assert_false(leader_elector_is_leader(a));
        assert_string_equal(spec_str(&s, "holderIdentity"), "");
        assert_int_equal(spec_int(&s, "leaseDurationSeconds"), 1);
        assert_int_equal(spec_int(&s, "leaseTransitions"), 0);
        /* no holder: b takes it at its next try, long before 15 s */
        assert_int_equal(tick(b, 3500), LEADER_EVENT_STARTED);
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-b_2");
        assert_int_equal(spec_int(&s, "leaseTransitions"), 1);
        assert_int_equal(spec_int(&s, "leaseDurationSeconds"), 15);
        /* a release by one who does not hold it writes nothing */
        int before = s.updates;
        assert_int_equal(leader_elector_release(a, 4000, &w, NULL), 0);
        assert_int_equal(s.updates, before);
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

static void test_stale_resource_version_loses(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");
        struct timespec w = wall(1000);

        (void) state;
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        assert_int_equal(leader_elector_release(a, 1000, &w, NULL), 0);
        /* b reads the free Lease, but another writer lands first: b's update is refused */
        s.race_once = true;
        assert_false(try_at(b, 1500));
        assert_false(leader_elector_is_leader(b));
        assert_string_equal(spec_str(&s, "holderIdentity"), "");
        /* the next try reads the new version and wins */
        assert_true(try_at(b, 3500));
        assert_string_equal(spec_str(&s, "holderIdentity"), "host-b_2");
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

static void test_new_holder_is_reported_once(void **state)
{
        struct fake_store s = { 0 };
        struct leader_elector *a = elector(&s, "host-a_1");
        struct leader_elector *b = elector(&s, "host-b_2");

        (void) state;
        assert_null(leader_elector_new_holder(b)); /* nothing observed yet */
        assert_int_equal(tick(a, 0), LEADER_EVENT_STARTED);
        assert_false(try_at(b, 100));
        assert_string_equal(leader_elector_new_holder(b), "host-a_1");
        assert_false(try_at(b, 2100));
        assert_null(leader_elector_new_holder(b));
        leader_elector_free(a);
        leader_elector_free(b);
        json_decref(s.lease);
}

static void test_config_is_checked(void **state)
{
        static const struct {
                long lease, renew, retry;
                const char *message; /* NULL: accepted */
        } cases[] = {
                { 0, 0, 0, NULL },
                { 15000, 15000, 2000, "leaseDuration must be greater than renewDeadline" },
                { 15000, 2400, 2000,
                  "renewDeadline must be greater than retryPeriod*JitterFactor" },
                { 15500, 10000, 2000, "leaseDuration must be whole seconds" },
                { 4000, 3000, 1000, NULL },
        };
        struct fake_store s = { 0 };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct leader_election_config c = { .name = "l",
                                                          .identity = "me",
                                                          .lease_duration_ms = cases[i].lease,
                                                          .renew_deadline_ms = cases[i].renew,
                                                          .retry_period_ms = cases[i].retry };
                cleanup_error struct error *err = NULL;
                struct leader_elector *le = NULL;
                int r = leader_elector_new(&c, &fake_ops, &s, &le, &err);

                if (!cases[i].message) {
                        assert_int_equal(r, 0);
                        leader_elector_free(le);
                        continue;
                }
                assert_int_equal(r, -EINVAL);
                assert_non_null(strstr(err->message, cases[i].message));
        }
        {
                const struct leader_election_config c = { .name = "l", .identity = "" };
                cleanup_error struct error *err = NULL;
                struct leader_elector *le = NULL;

                assert_int_equal(leader_elector_new(&c, &fake_ops, &s, &le, &err), -EINVAL);
                assert_non_null(strstr(err->message, "identity cannot be empty"));
        }
}

static void test_identity_is_host_and_uuid(void **state)
{
        char a[LEADER_ELECTION_IDENTITY_MAX], b[LEADER_ELECTION_IDENTITY_MAX];
        const char *ua, *ub;

        (void) state;
        leader_election_identity(a);
        leader_election_identity(b);
        ua = strrchr(a, '_');
        ub = strrchr(b, '_');
        assert_non_null(ua);
        assert_true(ua > a);
        assert_int_equal(strlen(ua + 1), 36);
        assert_memory_equal(a, b, (size_t) (ua - a)); /* the same host */
        assert_string_not_equal(ua, ub);              /* a new UUID each */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_first_candidate_creates_the_lease),
                cmocka_unit_test(test_candidate_waits_while_the_leader_renews),
                cmocka_unit_test(test_takeover_after_the_duration_from_the_candidates_view),
                cmocka_unit_test(test_candidate_wakes_when_the_lease_runs_out),
                cmocka_unit_test(test_leader_stops_at_the_renew_deadline),
                cmocka_unit_test(test_leader_stops_at_once_on_another_holder),
                cmocka_unit_test(test_release_lets_the_next_take_over_at_once),
                cmocka_unit_test(test_stale_resource_version_loses),
                cmocka_unit_test(test_new_holder_is_reported_once),
                cmocka_unit_test(test_config_is_checked),
                cmocka_unit_test(test_identity_is_host_and_uuid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
