/* version.c: `flexlet version`. */
#include <stdio.h>

#include "cmd/cmd.h"

int cmd_version(int argc, char **argv)
{
        (void) printf("flexlet %s (Kubernetes API v1.33)\n", FLEXLET_VERSION);
        return 0;
}
