/* main.c: flexlet-helper, the binary each pod's helper processes run (the sandbox's pid 1, the
 * container supervisors, the exec helpers): `flexlet-helper supervise ...` as `flexlet
 * supervise ...`. Linked statically and not position-independent with only what the runtime's
 * helper code calls (libc, jansson, libseccomp), so its pages are the file's own and shared by
 * every helper: a helper's PSS is its heap and stack, not the relocated pages of flexlet's
 * libraries (issue 16; docs/dependencies.md). Nothing else: the work is in node/runtime. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "node/runtime/runtime.h"

int main(int argc, char **argv)
{
        cleanup_error struct error *err = NULL;
        int status;

        if (argc < 2 || strcmp(argv[1], "supervise") != 0) {
                (void) fprintf(stderr, "usage: flexlet-helper supervise ...\n"
                                       "(internal: flexlet's node agent starts it for each pod "
                                       "sandbox and container)\n");
                return 2;
        }
        status = runtime_helper_main(argc - 1, argv + 1, &err);
        /* stderr is /dev/null when the runtime starts us; this is for a person running it */
        if (err)
                (void) fprintf(stderr, "flexlet-helper supervise: %s\n", err->message);
        return status;
}
