/* test-token-cache.c: the service account token cache over a real store: an answer is found
 * again, a deleted (or being deleted) account, pod or secret forgets the answers naming its
 * uid and only those, an answer decided while the store changed (a stale epoch) is not kept,
 * and one past its token's end is not answered. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apiserver/authn.h"
#include "apiserver/token-cache.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

struct fixture {
        char dir[64];
        struct store *store;
        struct token_cache *cache;
};

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));
        cleanup_free char *db = NULL;

        strcpy(f->dir, "/tmp/flexlet-test-token-cache.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        db = xasprintf("%s/store.db", f->dir);
        assert_int_equal(store_open_sqlite(db, &f->store, NULL), 0);
        assert_int_equal(token_cache_new(f->store, &f->cache, NULL), 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", f->dir);

        token_cache_free(f->cache);
        store_close(f->store);
        assert_int_equal(system(cmd), 0);
        free(f);
        return 0;
}

static void put_object(struct store *s, const char *resource, const char *name, const char *uid,
                       bool deleting)
{
        json_t *obj = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", name, "namespace", "ns",
                                "uid", uid);

        if (deleting)
                json_object_set_new(json_object_get(obj, "metadata"), "deletionTimestamp",
                                    json_string("2030-01-01T00:00:00Z"));
        if (store_create(s, resource, "ns", name, obj, NULL) == -EEXIST)
                assert_true(store_update(s, resource, "ns", name, obj, 0, NULL) >= 0);
        json_decref(obj);
}

static void digest_of(unsigned char d[32], unsigned char seed)
{
        for (int i = 0; i < 32; i++)
                d[i] = (unsigned char) (seed * 31 + i);
}

/* Whether the cache still answers for d, asked for up to about 5 s until it does not (the
 * following thread's pace is not asserted, only that it gets there). */
static bool forgotten(struct token_cache *c, const unsigned char d[32])
{
        for (int i = 0; i < 500; i++) {
                struct authn_user *u = token_cache_get(c, d);

                if (!u)
                        return true;
                authn_user_free(u);
                (void) usleep(10000);
        }
        return false;
}

static void test_hits_and_forgets(void **state)
{
        static const char *const groups[] = { "system:serviceaccounts", NULL };
        struct fixture *f = *state;
        cleanup_authn_user struct authn_user *user =
                authn_user_new("system:serviceaccount:ns:sa", "sa-uid", groups);
        unsigned char d1[32], d2[32], d3[32];
        int64_t later = (int64_t) time(NULL) + 3600;
        struct authn_user *got;

        put_object(f->store, "serviceaccounts", "sa", "sa-uid", false);
        put_object(f->store, "pods", "p", "pod-uid", false);
        digest_of(d1, 1);
        digest_of(d2, 2);
        digest_of(d3, 3);
        /* d1: the account alone; d2: bound to the pod; d3: the account, kept */
        token_cache_put(f->cache, d1, token_cache_epoch(f->cache), user,
                        &(struct token_cache_refs){ .sa_uid = "sa-uid", .valid_until = later });
        token_cache_put(f->cache, d2, token_cache_epoch(f->cache), user,
                        &(struct token_cache_refs){
                                .sa_uid = "sa-uid", .pod_uid = "pod-uid", .valid_until = later });
        got = token_cache_get(f->cache, d1);
        assert_non_null(got);
        assert_string_equal(got->name, "system:serviceaccount:ns:sa");
        assert_string_equal(got->uid, "sa-uid");
        authn_user_free(got);

        /* the pod marked for deletion: the pod-bound answer goes, the other stays */
        put_object(f->store, "pods", "p", "pod-uid", true);
        assert_true(forgotten(f->cache, d2));
        got = token_cache_get(f->cache, d1);
        assert_non_null(got);
        authn_user_free(got);

        /* the account deleted: every answer naming it goes */
        assert_int_equal(store_delete(f->store, "serviceaccounts", "ns", "sa", 0, NULL, NULL), 0);
        assert_true(forgotten(f->cache, d1));

        /* an answer decided before that change (its epoch older) is not kept */
        {
                uint64_t stale = token_cache_epoch(f->cache) - 1;

                token_cache_put(f->cache, d3, stale, user,
                                &(struct token_cache_refs){ .sa_uid = "x", .valid_until = later });
                assert_null(token_cache_get(f->cache, d3));
        }
        /* nor answered past its token's end */
        token_cache_put(f->cache, d3, token_cache_epoch(f->cache), user,
                        &(struct token_cache_refs){ .sa_uid = "x",
                                                    .valid_until = (int64_t) time(NULL) - 1 });
        assert_null(token_cache_get(f->cache, d3));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hits_and_forgets, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
