/* strategy-certificates.c: create and update rules of CertificateSigningRequests (K8S:
 * pkg/registry/certificates/certificates/strategy.go) and the admission plugins that guard them
 * (plugin/pkg/admission/certificates: CertificateApproval, CertificateSigning,
 * CertificateSubjectRestriction). The requestor (username, uid, groups) is the authenticated user,
 * never what the client sent; the main resource changes only metadata, /status only the status
 * (approval and denial conditions kept), /approval only the conditions. The rules about the
 * fields themselves live in api/validation-certificates.c. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "api/csr.h"
#include "api/validation.h"
#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/timeutil.h"

static void csr_prepare_create(json_t *csr)
{
        json_t *spec = json_object_get(csr, "spec");

        /* K8S: PrepareForCreate: the status is the signer's and the approver's, and the user
         * fields the server's (set by csr_set_requestor) */
        json_object_del(csr, "status");
        json_object_del(spec, "username");
        json_object_del(spec, "uid");
        json_object_del(spec, "groups");
        json_object_del(spec, "extra");
}

/* K8S: PrepareForCreate: "Be explicit that users cannot create pre-approved certificate
 * requests" and the requestor comes from the request's user. */
static void csr_set_requestor(json_t *csr, const struct authn_user *user)
{
        json_t *spec = json_object_ensure(csr, "spec");
        json_t *groups = json_array();

        if (!user)
                return;
        if (user->name && *user->name)
                json_object_set_new(spec, "username", json_string(user->name));
        if (user->uid && *user->uid)
                json_object_set_new(spec, "uid", json_string(user->uid));
        for (size_t i = 0; user->groups && user->groups[i]; i++)
                json_array_append_new(groups, json_string(user->groups[i]));
        if (json_array_size(groups))
                json_object_set_new(spec, "groups", groups);
        else
                json_decref(groups);
}

static void csr_validate_create(const json_t *csr, struct field_error_list *errs)
{
        (void) validate_certificate_signing_request(csr, errs);
}

static const json_t *condition_of(const json_t *csr, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(csr, "status.conditions"), i, c)
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", type))
                        return c;
        return NULL;
}

/* K8S: SetDefaults_CertificateSigningRequestCondition (status True) and
 * populateConditionTimestamps: lastUpdateTime now when unset; lastTransitionTime kept from the
 * old condition of the same type and status, else now. */
static void populate_conditions(json_t *csr, const json_t *old)
{
        char now[32];
        size_t i;
        json_t *c;

        time_format_rfc3339(time(NULL), now);
        json_array_foreach(json_path(csr, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type")) ?: "";
                const json_t *oc = condition_of(old, type);

                if (!json_is_object(c))
                        continue;
                if (!*(json_string_value(json_object_get(c, "status")) ?: ""))
                        json_object_set_new(c, "status", json_string("True"));
                if (!json_string_value(json_object_get(c, "lastUpdateTime")))
                        json_object_set_new(c, "lastUpdateTime", json_string(now));
                if (!json_string_value(json_object_get(c, "lastTransitionTime"))) {
                        const char *keep = oc && json_equal(json_object_get(oc, "status"),
                                                            json_object_get(c, "status"))
                                                   ? json_string_value(json_object_get(
                                                             oc, "lastTransitionTime"))
                                                   : NULL;
                        json_object_set_new(c, "lastTransitionTime", json_string(keep ?: now));
                }
        }
}

/* K8S: preserveConditionInstances for Approved and Denied on a /status write: the new list's
 * approval and denial conditions are the old ones (added ones are dropped, removed ones come
 * back: only /approval changes them). */
static void keep_approval_conditions(json_t *csr, const json_t *old)
{
        json_t *conds = json_path(csr, "status.conditions");
        json_t *out = json_array();
        size_t i;
        json_t *c;

        json_array_foreach(conds, i, c) {
                const char *type = json_string_value(json_object_get(c, "type")) ?: "";
                if (!streq(type, "Approved") && !streq(type, "Denied"))
                        json_array_append(out, c);
        }
        json_array_foreach(json_path(old, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type")) ?: "";
                if (streq(type, "Approved") || streq(type, "Denied"))
                        json_array_append(out, c);
        }
        if (json_array_size(out))
                json_object_set_new(json_object_ensure(csr, "status"), "conditions", out);
        else {
                json_object_del(json_object_get(csr, "status"), "conditions");
                json_decref(out);
        }
}

static void copy_member(json_t *dst, const json_t *src, const char *key)
{
        json_t *v = json_object_get(src, key);

        if (v)
                json_object_set_new(dst, key, json_deep_copy(v));
        else
                json_object_del(dst, key);
}

static json_t *csr_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);

        /* K8S: no write changes the spec */
        copy_member(out, old, "spec");
        if (sub == API_SUB_STATUS) {
                keep_approval_conditions(out, old);
                populate_conditions(out, old);
        } else if (sub == API_SUB_APPROVAL) {
                /* K8S: csrApprovalStrategy: only the conditions change */
                json_t *conds = json_incref(json_path(out, "status.conditions"));

                copy_member(out, old, "status");
                if (conds)
                        json_object_set_new(json_object_ensure(out, "status"), "conditions", conds);
                else
                        json_object_del(json_object_get(out, "status"), "conditions");
                populate_conditions(out, old);
        } else {
                /* K8S: the main resource: metadata only */
                copy_member(out, old, "status");
        }
        return out;
}

static void csr_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                struct field_error_list *errs)
{
        (void) sub;
        (void) validate_certificate_signing_request_update(new_obj, old, errs);
}

/* K8S: certificates.IsAuthorizedForSignerName: verb on certificates.k8s.io signers named the
 * signer, or the domain and a star. */
static bool authorized_for_signer(const struct write_check *c, const char *verb, const char *signer)
{
        const char *slash = strchr(signer, '/');
        cleanup_free char *wildcard =
                slash ? xasprintf("%.*s/*", (int) (slash - signer), signer) : NULL;
        const char *names[] = { signer, wildcard };

        if (!c->authz)
                return true;
        for (size_t i = 0; i < 2 && names[i]; i++) {
                struct authz_attributes a = { .user = c->user,
                                              .verb = verb,
                                              .resource_request = true,
                                              .api_group = "certificates.k8s.io",
                                              .api_version = "*",
                                              .resource = "signers",
                                              .subresource = "",
                                              .ns = "",
                                              .name = names[i],
                                              .path = "" };
                cleanup_free char *reason = NULL;

                if (authz_authorize(c->authz, &a, &reason) == AUTHZ_ALLOW)
                        return true;
        }
        return false;
}

static bool requests_masters(const json_t *csr)
{
        const char *b64 = json_path_string(csr, "spec.request");
        cleanup_free char *pem = NULL;
        struct csr_info info;
        size_t n = 0;
        bool masters = false;

        if (!b64 || base64_decode(b64, strlen(b64), &pem, &n, NULL) < 0 ||
            csr_parse(pem, n, &info, NULL) < 0)
                return false;
        for (size_t i = 0; i < info.n_orgs; i++)
                masters = masters || streq(info.orgs[i], AUTHN_GROUP_MASTERS);
        csr_info_release(&info);
        return masters;
}

static int csr_authorize_write(const struct write_check *c, const json_t *obj, const json_t *old,
                               struct error **reterr)
{
        const char *signer = json_path_string(obj, "spec.signerName") ?: "";

        /* K8S: CertificateSubjectRestriction */
        if (!old && streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT) && requests_masters(obj))
                return error_set(reterr, EPERM, "use of %s signer with %s group is not allowed",
                                 signer, AUTHN_GROUP_MASTERS);
        /* K8S: CertificateApproval: a change of the approval needs "approve" on the signer */
        if (old && c->sub == API_SUB_APPROVAL &&
            !json_equal(json_path(obj, "status.conditions"), json_path(old, "status.conditions")) &&
            !authorized_for_signer(c, "approve", signer))
                return error_set(reterr, EPERM,
                                 "user not permitted to approve requests with signerName \"%s\"",
                                 signer);
        /* K8S: CertificateSigning: a new certificate needs "sign" on the signer */
        if (old && c->sub == API_SUB_STATUS &&
            !json_equal(json_path(obj, "status.certificate"),
                        json_path(old, "status.certificate")) &&
            !authorized_for_signer(c, "sign", signer))
                return error_set(reterr, EPERM,
                                 "user not permitted to sign requests with signerName \"%s\"",
                                 signer);
        return 0;
}

const struct resource_strategy certificate_signing_request_strategy = {
        .prepare_create = csr_prepare_create,
        .set_creator = csr_set_requestor,
        .validate_create = csr_validate_create,
        .prepare_update = csr_prepare_update,
        .validate_update = csr_validate_update,
        .authorize_write = csr_authorize_write,
};
