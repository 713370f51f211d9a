/* names.c: generated object names (names.h): the kernel's randomness mapped onto upstream's
 * alphabet. Nothing here checks that the result is a valid name; validation does. */
#include <stdlib.h>
#include <sys/random.h>

#include "base/alloc.h"
#include "base/names.h"

char *name_generate(const char *prefix)
{
        /* K8S: utilrand.String's alphanums */
        static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
        unsigned char r[5];
        char suffix[6];

        if (getrandom(r, sizeof(r), 0) != (ssize_t) sizeof(r))
                abort();
        for (size_t i = 0; i < 5; i++)
                suffix[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
        suffix[5] = '\0';
        return xasprintf("%.*s%s", NAME_GENERATE_MAX_PREFIX, prefix, suffix);
}
