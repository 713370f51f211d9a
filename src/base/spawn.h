/* spawn.h: running a helper program and collecting what it says.
 *
 * The node runs other programs for a few jobs (mkfs and the other filesystem tools, CNI plugins,
 * busybox to list its applets). spawn_run is the one way it does: posix_spawn (fork + exec done
 * safely in a threaded process, with a failed exec reported as an error rather than an exit
 * code), the default signal mask and dispositions, no descriptor but 0-2, stdin from a buffer or
 * /dev/null, stdout and stderr collected with a cap, and an optional deadline after which the
 * child is killed. */
#ifndef FLEXLET_BASE_SPAWN_H
#define FLEXLET_BASE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/strbuf.h"

struct spawn_options {
        const char *input; /* written to the child's stdin, then closed; NULL: /dev/null */
        size_t input_len;
        int timeout_ms;    /* > 0: past it the child is SIGKILLed and spawn_run fails -ETIMEDOUT */
        size_t output_max; /* per stream: bytes kept (0: unbounded); the rest is read and dropped */
        bool keep_tail;    /* keep the last output_max bytes rather than the first output_max + 1
                            * (the first lets a caller see that a stream ran over) */
};

struct spawn_result {
        struct strbuf out, err; /* initialised by spawn_run, released by the caller */
        int status;             /* exit status, 128 + the signal that killed it */
};

/* Runs path with argv and envp as options say, until it exits and both streams are closed.
 * ret's buffers are initialised even on failure (release them). -errno only when the child
 * could not be run, was killed by the deadline (-ETIMEDOUT) or could not be waited for; a child
 * that ran and failed is 0 with its status. */
int spawn_run(const char *path, char *const *argv, char *const *envp,
              const struct spawn_options *options, struct spawn_result *ret, struct error **reterr);

#endif
