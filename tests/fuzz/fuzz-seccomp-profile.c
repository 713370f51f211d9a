/* fuzz-seccomp-profile.c: libFuzzer target for the Localhost seccomp profile loader
 * (runtime_seccomp_profile_check, and rt_seccomp_build which the container runs on the same
 * text). Profiles come from files a node admin or a pod's author wrote: hostile input.
 *
 * Invariants: a refusal carries a message that starts with "seccomp profile"; the check and the
 * build agree on every input; nothing is loaded into this process (the filter is built and
 * released). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "node/runtime/runtime-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct error *err = NULL, *err2 = NULL;
        char *s;
        void *ctx = NULL;
        int r, r2;

        if (size > 64 * 1024)
                return 0;
        s = malloc(size + 1);
        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';
        r = runtime_seccomp_profile_check(s, size, &err);
        if (r < 0 && (!err || strncmp(err->message, "seccomp profile", 15) != 0))
                abort();
        if (r >= 0 && err)
                abort();
        /* the container builds from the NUL-terminated text: the same verdict when the text
         * holds no NUL (the agent refuses one that does) */
        if (strlen(s) == size) {
                r2 = rt_seccomp_build(RUNTIME_SECCOMP_LOCALHOST, s, RUNTIME_DEFAULT_CAPS, true,
                                      &ctx, &err2);
                if ((r < 0) != (r2 < 0))
                        abort();
                if ((r2 >= 0) != (ctx != NULL))
                        abort();
                ctx = rt_seccomp_release(ctx);
        }
        error_free(err);
        error_free(err2);
        free(s);
        return 0;
}
