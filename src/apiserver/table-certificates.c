/* table-certificates.c: the Table columns and rows of CertificateSigningRequests (K8S:
 * pkg/printers/internalversion/printers.go certificateSigningRequestColumnDefinitions,
 * printCertificateSigningRequest and extractCSRStatus, 1.33). */
#include <stdio.h>
#include <string.h>

#include "apiserver/table.h"
#include "base/json.h"
#include "base/timeutil.h"

const struct table_column certificate_signing_request_columns[CERTIFICATE_SIGNING_REQUEST_COLUMNS] = {
        { "Name", "string", "name", "Name must be unique within a namespace.", 0 },
        { "Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created.",
          0 },
        { "SignerName", "string", "", "Only requests for this signer are shown.", 0 },
        { "Requestor", "string", "", "Name of the user who created the request.", 0 },
        { "RequestedDuration", "string", "", "Requested duration of the issued certificate.", 0 },
        { "Condition", "string", "", "State of the request.", 0 },
};

/* K8S: extractCSRStatus: Denied before Approved before Pending, then ",Failed" and ",Issued". */
static void condition_cell(const json_t *csr, char *buf, size_t len)
{
        bool approved = false, denied = false, failed = false;
        size_t i;
        json_t *c;

        json_array_foreach(json_path(csr, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type")) ?: "";

                approved = approved || streq(type, "Approved");
                denied = denied || streq(type, "Denied");
                failed = failed || streq(type, "Failed");
        }
        (void) snprintf(buf, len, "%s%s%s",
                        denied     ? "Denied"
                        : approved ? "Approved"
                                   : "Pending",
                        failed ? ",Failed" : "",
                        *(json_path_string(csr, "status.certificate") ?: "") ? ",Issued" : "");
}

void certificate_signing_request_table_row(const json_t *csr, time_t now, json_t *cells)
{
        const json_t *es = json_path(csr, "spec.expirationSeconds");
        char age[32] = "<unknown>", duration[32] = "<none>", cond[64];
        time_t created;

        json_array_append_new(cells, json_string(json_path_string_or_empty(csr, "metadata.name")));
        if (time_parse_rfc3339(json_path_string_or_empty(csr, "metadata.creationTimestamp"),
                               &created) == 0)
                time_format_age(now, created, age);
        json_array_append_new(cells, json_string(age));
        json_array_append_new(cells,
                              json_string(json_path_string_or_empty(csr, "spec.signerName")));
        json_array_append_new(cells, json_string(json_path_string_or_empty(csr, "spec.username")));
        /* K8S: duration.HumanDuration of the requested seconds, "<none>" when not asked */
        if (json_is_integer(es))
                time_format_age((time_t) json_integer_value(es), 0, duration);
        json_array_append_new(cells, json_string(duration));
        condition_cell(csr, cond, sizeof(cond));
        json_array_append_new(cells, json_string(cond));
}
