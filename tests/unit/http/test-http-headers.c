/* test-http-headers.c: http_header_list_has (http/http.h), the token test of comma-separated
 * header values the kubelet's upgrade handshakes use (Connection, X-Stream-Protocol-Version),
 * and the percent decoders: http_unescape (the server's, forgiving) and http_unescape_strict
 * (Go's url.PathUnescape, for impersonation's extra keys). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "http/http.h"

static void test_header_list_has(void **state)
{
        assert_true(http_header_list_has("Upgrade", "upgrade"));
        assert_true(http_header_list_has("keep-alive, Upgrade", "upgrade"));
        assert_true(http_header_list_has(" ,upgrade ,x", "upgrade"));
        assert_true(http_header_list_has("a,portforward.k8s.io", "portforward.k8s.io"));
        assert_false(http_header_list_has("upgrades", "upgrade"));
        assert_false(http_header_list_has("keep-alive", "upgrade"));
        assert_false(http_header_list_has("", "upgrade"));
        assert_false(http_header_list_has(NULL, "upgrade"));
}

static void test_unescape(void **state)
{
        char plain[] = "a%2Fb%2fc%zz%4", nul[] = "x%00y";

        assert_int_equal(http_unescape(plain), strlen("a/b/c%zz%4"));
        assert_string_equal(plain, "a/b/c%zz%4");
        /* an escaped NUL becomes the overlong pair, refused later as not UTF-8 */
        assert_int_equal(http_unescape(nul), 4);
        assert_memory_equal(nul, "x\xC0\x80y", 4);
}

static void test_unescape_strict(void **state)
{
        static const char *const refused[] = { "a%zz", "a%4", "a%", "%00", "ok%2F%G1" };
        char good[] = "foo%2Fbar%41%7e", none[] = "plain";

        assert_int_equal(http_unescape_strict(good), 0);
        assert_string_equal(good, "foo/barA~");
        assert_int_equal(http_unescape_strict(none), 0);
        assert_string_equal(none, "plain");
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                char buf[32];

                strcpy(buf, refused[i]);
                assert_int_equal(http_unescape_strict(buf), -EINVAL);
                assert_string_equal(buf, refused[i]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_list_has),
                cmocka_unit_test(test_unescape),
                cmocka_unit_test(test_unescape_strict),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
