/* fault.c: the fault points of fault.h: compare with FLEXLET_FAULT, and SIGKILL on a match. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fault.h"

void fault_point(const char *name)
{
        const char *armed = getenv("FLEXLET_FAULT");

        if (!armed || strcmp(armed, name) != 0)
                return;
        (void) fprintf(stderr, "flexlet: fault point %s reached: killing this process\n", name);
        (void) kill(getpid(), SIGKILL);
        pause(); /* SIGKILL is delivered before kill() returns to a running process */
}

void fault_point_n(const char *prefix, unsigned n)
{
        char name[128];

        (void) snprintf(name, sizeof(name), "%s-%u", prefix, n);
        fault_point(name);
}
