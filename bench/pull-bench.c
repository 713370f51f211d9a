/* pull-bench.c: run-pull-bench.sh's measuring half: one registry pull (registry.h, what the
 * node's image puller runs) of an image into a fresh node data dir, timed around the call alone.
 *
 *   pull-bench --data-dir DIR --image REF [--insecure HOST:PORT] [--creds USER:PASSWORD]
 *
 * Prints "pull.ms <ms>", "pull.bytes <config and layers fetched>" and "pull.layers_new <n>".
 * Dies (exit 1) when the pull fails. */
#include <curl/curl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "node/runtime/registry.h"

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "data-dir", required_argument, NULL, 'd' },
                { "image", required_argument, NULL, 'i' },
                { "insecure", required_argument, NULL, 'k' },
                { "creds", required_argument, NULL, 'c' },
                { NULL, 0, NULL, 0 },
        };
        const char *data = NULL, *image = NULL, *insecure[2] = { NULL, NULL };
        struct registry_credential cred = { NULL, NULL };
        struct registry_pull_options o = { .insecure = insecure };
        struct registry_pull_result res = { 0 };
        cleanup_error struct error *err = NULL;
        int64_t t0, t1;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
                switch (c) {
                case 'd':
                        data = optarg;
                        break;
                case 'i':
                        image = optarg;
                        break;
                case 'k':
                        insecure[0] = optarg;
                        break;
                case 'c': {
                        char *colon = strchr(optarg, ':');
                        if (!colon)
                                die("--creds: not USER:PASSWORD");
                        cred.username = strndup(optarg, (size_t) (colon - optarg));
                        cred.password = strdup(colon + 1);
                        o.creds = &cred;
                        o.n_creds = 1;
                        break;
                }
                default:
                        die("usage: pull-bench --data-dir DIR --image REF [--insecure HOST:PORT] "
                            "[--creds USER:PASSWORD]");
                }
        }
        if (!data || !image)
                die("--data-dir and --image are required");
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                die("curl_global_init failed");
        t0 = now_ns();
        if (registry_pull(data, image, &o, &res, &err) < 0)
                die("pull %s: %s", image, err->message);
        t1 = now_ns();
        (void) printf("pull.ms %.3f\npull.bytes %llu\npull.layers_new %u\n", ms_between(t0, t1),
                      (unsigned long long) res.size, res.layers_new);
        registry_pull_result_release(&res);
        free(cred.username);
        free(cred.password);
        curl_global_cleanup();
        return 0;
}
