/* error.h: the error object carried where a person must understand a failure.
 *
 * A fallible function returns int: >= 0 on success, -errno on failure. When the failure needs
 * words, its last parameter is `struct error **reterr`; on failure it sets *reterr (when reterr is
 * not NULL) to a new error owned by the caller, and returns -errnum. Messages read
 * "context: cause", lower case, names in double quotes. */
#ifndef FLEXLET_BASE_ERROR_H
#define FLEXLET_BASE_ERROR_H

#include "base/macro.h"

struct error {
        int errnum;    /* positive errno value */
        char *message; /* owned */
};

/* Sets *reterr (if reterr) and returns -errnum. */
int error_set(struct error **reterr, int errnum, const char *fmt, ...) _printf_(3, 4);
/* Prefixes an existing error's message with "context: ", returns -errnum. */
int error_wrap(struct error **reterr, const char *fmt, ...) _printf_(2, 3);
struct error *error_free(struct error *e);
DEFINE_CLEANUP(struct error, error_free, error)
#define cleanup_error cleanup_of(error_free)

#endif
