/* curl-setup.c: libcurl's global initialisation (curl-setup.h). Debian's libcurl is built with
 * libssh2, and its global init calls libssh2_init(0), which initialises OpenSSL's libcrypto for
 * SSH: its configuration, providers and algorithm tables, 1.8 MiB of every process's RSS.
 * flexlet speaks no SSH (every handle is limited to http and https, CURLOPT_PROTOCOLS_STR), so
 * libssh2 is initialised first without its crypto: libcurl's own call then finds it done. */
#include <curl/curl.h>
#include <errno.h>
#include <libssh2.h>
#include <pthread.h>

#include "http/curl-setup.h"

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static CURLcode setup_result;

static void setup(void)
{
        (void) libssh2_init(LIBSSH2_INIT_NO_CRYPTO);
        setup_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int http_curl_setup(struct error **reterr)
{
        (void) pthread_once(&setup_once, setup);
        if (setup_result != CURLE_OK)
                return error_set(reterr, EIO, "initialising libcurl: %s",
                                 curl_easy_strerror(setup_result));
        return 0;
}
