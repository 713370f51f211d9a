/* test-curl-setup.c: libcurl's process-wide setup (curl-setup.h): it succeeds, every later call
 * answers the same, handles work after it, and it leaves OpenSSL's libcrypto uninitialised,
 * which libcurl's own global init would initialise for libssh2: each is measured in a child
 * process of its own, as the growth of its RSS across the call. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "http/curl-setup.h"

static long rss_kib(void)
{
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        long kib = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld", &kib) == 1)
                        break;
        (void) fclose(f);
        return kib;
}

/* The RSS a child gains across setup(), in KiB, or -1. */
static long rss_growth(void (*setup)(void))
{
        int pipefd[2], status;
        long growth = -1;
        pid_t pid;

        assert_int_equal(pipe(pipefd), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                long before = rss_kib(), after;

                setup();
                after = rss_kib();
                growth = before < 0 || after < 0 ? -1 : after - before;
                _exit(write(pipefd[1], &growth, sizeof(growth)) == sizeof(growth) ? 0 : 1);
        }
        (void) close(pipefd[1]);
        if (read(pipefd[0], &growth, sizeof(growth)) != sizeof(growth))
                growth = -1;
        (void) close(pipefd[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        return growth;
}

static void libcurl_alone(void)
{
        (void) curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void ours(void)
{
        struct error *err = NULL;

        if (http_curl_setup(&err) < 0)
                _exit(2);
}

static void test_setup_once(void **state)
{
        struct error *err = NULL;
        CURL *c;

        assert_int_equal(http_curl_setup(&err), 0);
        assert_int_equal(http_curl_setup(&err), 0);
        assert_null(err);
        c = curl_easy_init();
        assert_non_null(c);
        assert_int_equal(curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https"), CURLE_OK);
        curl_easy_cleanup(c);
}

static void test_libcrypto_left_alone(void **state)
{
        long theirs = rss_growth(libcurl_alone), mine = rss_growth(ours);

        print_message("# RSS growth: libcurl's global init %ld KiB, http_curl_setup %ld KiB\n",
                      theirs, mine);
        assert_true(theirs >= 0 && mine >= 0);
        /* libcrypto's initialisation alone is over a megabyte of pages */
        assert_true(mine + 512 < theirs);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_libcrypto_left_alone),
                cmocka_unit_test(test_setup_once),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
