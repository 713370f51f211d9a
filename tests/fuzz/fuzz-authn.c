/* fuzz-authn.c: libFuzzer target for what authentication reads from outside: a static token
 * file (an operator's file, parsed at start) and a client certificate's subject (the HTTP
 * server verifies the chain first, but the DER still comes from the client), a bearer token as
 * a bootstrap token, and a bootstrap token Secret's auth-extra-groups and expiration (anyone
 * who may write Secrets in kube-system writes them).
 *
 * Invariants: a parse either fails with a message or gives entries that each have a name, a
 * uid and a NULL-terminated group list; a certificate either names a user with a non-empty
 * name and system:authenticated among its groups, or is refused; a bootstrap token parses only
 * when it has upstream's form; a bootstrap user is system:bootstrap:<id> whose groups all start
 * with system:bootstrappers; a service account token (JWS) never verifies unless its
 * signature is the key's (the fuzzer cannot forge ES256, so any verified input is a bug). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"
#include "apiserver/jws.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fixed P-256 key (made for this fuzzer only; it signs nothing real). */
static const char fuzz_key[] = "-----BEGIN PRIVATE KEY-----\n"
                               "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgml4x1Sor/fBfRvuJ\n"
                               "jOzBoNhJrk54QSdzFiWiiaVLi4WhRANCAASjkixEQz2HUFcL8LSWckyD17cfQLH0\n"
                               "xMfNcC7BVumPmiRRYpD9jwVRT3Q1TH1BADA5RGnZkDp495oKqIt4M17S\n"
                               "-----END PRIVATE KEY-----\n";

static void fuzz_jws(const uint8_t *data, size_t size)
{
        static struct jws_signer *signer;
        char *token = xstrndup((const char *) data, size);
        json_t *claims = NULL;
        struct error *err = NULL;

        if (!signer && jws_signer_new(fuzz_key, &signer, &err) < 0)
                abort();
        if (jws_verify(signer, token, &claims, &err) == 0)
                abort();
        error_free(err);
        free(token);
}

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

        char *text = xstrndup((const char *) data, size);
        char id[BOOTSTRAP_TOKEN_ID_LEN + 1], secret[BOOTSTRAP_TOKEN_SECRET_LEN + 1];
        if (authn_bootstrap_token_parse(text, id, secret) &&
            (strlen(text) != 23 || strlen(id) != 6 || strlen(secret) != 16))
                abort();
        /* the text as auth-extra-groups and as expiration of an otherwise valid token */
        char *b64 = base64_encode(text, strlen(text));
        json_t *s = json_pack(
                "{s:s, s:{s:s}, s:{s:s, s:s, s:s, s:s, s:s}}", "type", BOOTSTRAP_TOKEN_SECRET_TYPE,
                "metadata", "name", "bootstrap-token-abcdef", "data", "token-id", "YWJjZGVm",
                "token-secret", "MDEyMzQ1Njc4OWFiY2RlZg==", "usage-bootstrap-authentication",
                "dHJ1ZQ==", "auth-extra-groups", b64, "expiration", b64);
        if (authn_bootstrap_user("abcdef", "0123456789abcdef", s, 0, &u) == 0) {
                if (strcmp(u->name, "system:bootstrap:abcdef") != 0)
                        abort();
                for (size_t i = 0; u->groups[i]; i++)
                        if (strncmp(u->groups[i], BOOTSTRAP_DEFAULT_GROUP,
                                    strlen(BOOTSTRAP_DEFAULT_GROUP)) != 0 &&
                            strcmp(u->groups[i], AUTHN_GROUP_AUTHENTICATED) != 0)
                                abort();
                authn_user_free(u);
        }
        json_decref(s);
        free(b64);
        free(text);
        fuzz_jws(data, size);
        return 0;
}
