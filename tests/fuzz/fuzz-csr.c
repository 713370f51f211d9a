/* fuzz-csr.c: libFuzzer target for what a client or a joining node hands over about
 * certificates: a CertificateSigningRequest's spec.request (any client that may create CSRs,
 * bootstrap tokens included), the status.certificate a signer writes, and a join token file.
 * The first byte chooses which; the rest is the input.
 *
 * Invariants: a request either fails with a message or gives a subject whose strings hold no
 * NUL, at most CSR_MAX_NAMES entries of each kind and its DER; the kubelet shape checks then
 * answer 0 or -EINVAL with a message; a certificate list is accepted or refused with a message;
 * a join token parses only into a 64-hex-digit hash, a 6-character id and a 16-character secret
 * of [a-z0-9]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/csr.h"
#include "base/json.h"
#include "client/join-token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int r, struct error *err)
{
        if (r < 0 && (!err || !err->message || !*err->message))
                abort();
        if (r >= 0 && err)
                abort();
        error_free(err);
}

static void fuzz_request(const char *text, size_t n)
{
        struct error *err = NULL;
        struct csr_info info;
        json_t *usages;
        int r = csr_parse(text, n, &info, &err);

        check_error(r, err);
        if (r < 0)
                return;
        if (!info.cn || !info.der || info.n_orgs > CSR_MAX_NAMES || info.n_dns > CSR_MAX_NAMES ||
            info.n_ips > CSR_MAX_NAMES)
                abort();
        for (size_t i = 0; i < info.n_orgs; i++)
                if (!info.orgs[i])
                        abort();
        usages = json_pack("[s, s]", "digital signature", "client auth");
        err = NULL;
        check_error(csr_check_kubelet_client(&info, usages, &err), err);
        err = NULL;
        check_error(csr_check_kubelet_serving(&info, usages, &err), err);
        json_decref(usages);
        csr_info_release(&info);
}

static void fuzz_join_token(const char *text, size_t n)
{
        struct error *err = NULL;
        struct join_token t;
        int r = join_token_parse(text, n, &t, &err);

        check_error(r, err);
        if (r < 0)
                return;
        if (strlen(t.ca_hash) != JOIN_TOKEN_HASH_LEN || strlen(t.id) != JOIN_TOKEN_ID_LEN ||
            strlen(t.secret) != JOIN_TOKEN_SECRET_LEN)
                abort();
        for (const char *p = t.id; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text;
        struct error *err = NULL;

        if (size < 1)
                return 0;
        /* NUL-terminated past the end, so that an overread past n shows under ASan only as
         * reading the terminator */
        text = malloc(size);
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        switch (data[0] % 3) {
        case 0:
                fuzz_request(text, size - 1);
                break;
        case 1:
                check_error(csr_certificate_check(text, size - 1, &err), err);
                break;
        default:
                fuzz_join_token(text, size - 1);
                break;
        }
        free(text);
        return 0;
}
