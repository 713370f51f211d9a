/* fuzz-registry-manifest.c: libFuzzer target for what a registry sends that the node parses
 * (node/runtime/registry.h): a manifest or index body, a WWW-Authenticate header, and a
 * dockerconfigjson Secret's bytes.
 *
 * Invariants: nothing crashes or leaks; a failure always has a message; a selected manifest
 * digest is "sha256:" and 64 lower hex digits with a size within 4 MiB; a challenge that parses
 * has a scheme; credentials found always have a user and a password. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "node/runtime/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(int r, struct error *err)
{
        if (r < 0 && (!err || !err->message[0]))
                abort();
        error_free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        json_error_t jerr;
        json_t *j = json_loadb((const char *) data, size, JSON_REJECT_DUPLICATES, &jerr);
        char *text = strndup((const char *) data, size);
        struct registry_challenge c;
        struct registry_credential *creds = NULL;
        size_t n = 0;
        struct error *err = NULL;
        char *digest = NULL;
        int64_t dsize = -1;
        int r;

        if (j) {
                r = registry_index_select(j, "amd64", &digest, &dsize, &err);
                if (r == 0) {
                        if (!digest || strlen(digest) != 71 || strncmp(digest, "sha256:", 7) ||
                            strspn(digest + 7, "0123456789abcdef") != 64 || dsize < 0 ||
                            dsize > 4 * 1024 * 1024)
                                abort();
                        free(digest);
                }
                check_message(r, err);
                err = NULL;
                r = registry_manifest_check(j, &err);
                check_message(r, err);
                err = NULL;
                (void) registry_media_kind(json_string_value(json_object_get(j, "mediaType")));
                json_decref(j);
        }
        if (text && registry_challenge_parse(text, &c) == 0) {
                if (!c.scheme || !c.scheme[0])
                        abort();
                registry_challenge_release(&c);
        }
        r = registry_dockerconfig_creds((const char *) data, size, "registry.example:5000", &creds,
                                        &n, &err);
        check_message(r, err);
        for (size_t i = 0; i < n; i++)
                if (!creds[i].username || !creds[i].password)
                        abort();
        registry_credentials_free(creds, n);
        free(text);
        return 0;
}
