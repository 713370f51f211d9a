/* fuzz-authn.c: libFuzzer target for what authentication reads from outside: a static token
 * file (an operator's file, parsed at start) and a client certificate's subject (the HTTP
 * server verifies the chain first, but the DER still comes from the client).
 *
 * Invariants: a parse either fails with a message or gives entries that each have a name, a
 * uid and a NULL-terminated group list; a certificate either names a user with a non-empty
 * name and system:authenticated among its groups, or is refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct authn_token_entry *e = NULL;
        struct authn_user *u = NULL;
        struct error *err = NULL;
        size_t n = 0;
        bool authenticated = false;

        if (authn_token_file_parse("fuzz", (const char *) data, size, &e, &n, &err) < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
        } else {
                for (size_t i = 0; i < n; i++)
                        if (!e[i].user.name || !e[i].user.uid || !e[i].user.groups)
                                abort();
                authn_token_entries_free(e, n);
        }
        if (authn_user_from_cert(data, size, &u) == 0) {
                if (!u->name || !*u->name)
                        abort();
                for (size_t i = 0; u->groups[i]; i++)
                        authenticated |= strcmp(u->groups[i], AUTHN_GROUP_AUTHENTICATED) == 0;
                if (!authenticated)
                        abort();
                authn_user_free(u);
        }
        return 0;
}
