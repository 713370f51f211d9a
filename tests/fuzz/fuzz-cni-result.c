/* fuzz-cni-result.c: libFuzzer target for the CNI result parser (a plugin's stdout is input
 * from a program outside flexlet) and the error words of a failed plugin.
 *
 * Invariants checked on every input that parses: every IP has a family and its address text
 * parses again as an address, every interface index is inside the interfaces, the pod IPs
 * chosen are among the IPs; the document re-serialised parses to an equal result. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "node/network/cni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct cni_result r, again;
        struct error *err = NULL;
        const char *ips[2];
        unsigned char buf[16];
        size_t n;
        long code;
        char *words, *text;

        words = cni_error_message((const char *) data, size, (const char *) data, size, 1, &code);
        if (!words || !*words)
                abort();
        free(words);

        if (cni_result_parse((const char *) data, size, &r, &err) < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
                return 0;
        }
        if (!r.cni_version || !r.json)
                abort();
        for (size_t i = 0; i < r.n_ips; i++) {
                if (inet_pton(r.ips[i].family, r.ips[i].ip, buf) != 1)
                        abort();
                if (r.ips[i].interface >= (long) r.n_interfaces)
                        abort();
        }
        n = cni_result_pod_ips(&r, "eth0", ips, 2);
        for (size_t i = 0; i < n; i++) {
                bool found = false;
                for (size_t j = 0; j < r.n_ips; j++)
                        found |= ips[i] == r.ips[j].ip;
                if (!found)
                        abort();
        }
        text = json_dumps(r.json, JSON_COMPACT);
        if (!text || cni_result_parse(text, strlen(text), &again, NULL) < 0)
                abort();
        if (again.n_ips != r.n_ips || again.n_interfaces != r.n_interfaces ||
            again.n_routes != r.n_routes)
                abort();
        cni_result_release(&again);
        free(text);
        cni_result_release(&r);
        return 0;
}
