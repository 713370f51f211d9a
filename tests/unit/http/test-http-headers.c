/* test-http-headers.c: http_header_list_has (http/http.h), the token test of comma-separated
 * header values the kubelet's upgrade handshakes use (Connection, X-Stream-Protocol-Version). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_list_has),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
