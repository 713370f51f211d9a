/* uuid.c: random version-4 UUIDs from getrandom() (see uuid.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/types.h>

#include "base/uuid.h"

void uuid_random(char out[static UUID_STRING_LEN + 1])
{
        unsigned char b[16];

        if (getrandom(b, sizeof(b), 0) != (ssize_t) sizeof(b))
                abort();
        b[6] = (unsigned char) ((b[6] & 0x0f) | 0x40);
        b[8] = (unsigned char) ((b[8] & 0x3f) | 0x80);
        (void) snprintf(out, UUID_STRING_LEN + 1,
                        "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                        b[12], b[13], b[14], b[15]);
}
