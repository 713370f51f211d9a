/* memory.c: the main thread's idle wait of flexlet's long-running commands (serve, apiserver,
 * node), which hands the memory freed meanwhile back to the kernel. The allocator's own
 * settings are in base/alloc.c; what is allocated is each component's business. */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "base/alloc.h"
#include "cmd/cmd.h"

/* how often the idle main thread gives freed pages back, seconds: the pod workers' and the
 * stats' passes free megabytes each second, which stay resident until then (at 500 pods, with
 * glibc's malloc, every 10 s left 16 MiB resident beyond the 24 in use, every 2 s about 9) */
#define RELEASE_PERIOD_S 2

int cmd_wait_signal(const sigset_t *sigs, void (*release)(void *ud), void *ud)
{
        const struct timespec period = { .tv_sec = RELEASE_PERIOD_S };

        for (;;) {
                int sig = sigtimedwait(sigs, NULL, &period);

                if (sig > 0)
                        return sig;
                if (errno != EAGAIN)
                        continue;
                if (release)
                        release(ud);
                alloc_release_free();
        }
}
