/* memory.c: malloc's settings for flexlet's long-running commands (serve, apiserver, node) and
 * the main thread's idle wait, which hands the memory freed meanwhile back to the kernel. Only
 * process-wide allocator policy lives here; what is allocated is each component's business. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"

/* how often the idle main thread trims the heaps, seconds: the pod workers' and the stats'
 * passes free megabytes each second, which stay resident until a trim (at 500 pods, every 10 s
 * left 16 MiB resident beyond the 24 in use, every 2 s about 9) */
#define TRIM_PERIOD_S 2

void cmd_malloc_setup(void)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        /* glibc gives threads up to 8 arenas per CPU; a server has a hundred threads (the
         * HTTP workers, watches, pod workers), so each freed block sat in one of 16 arenas that
         * kept it: at 500 pods 285 MiB held for 135 MiB in use (bench/results/memory-
         * 2026-11-27.md). Two per CPU keep most threads off each other's lock. */
        (void) mallopt(M_ARENA_MAX, (int) (cpus > 0 && cpus < 64 ? 2 * cpus : 128));
}

int cmd_wait_signal(const sigset_t *sigs, void (*release)(void *ud), void *ud)
{
        const struct timespec period = { .tv_sec = TRIM_PERIOD_S };

        for (;;) {
                int sig = sigtimedwait(sigs, NULL, &period);

                if (sig > 0)
                        return sig;
                if (errno != EAGAIN)
                        continue;
                if (release)
                        release(ud);
                /* free's own trimming gives back only the top of each heap: the pages of
                 * free chunks inside stay resident until this */
                (void) malloc_trim(0);
        }
}
