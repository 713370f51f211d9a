/* fuzz-impersonate.c: arbitrary bytes as the Impersonate-* headers of a request (one
 * "Name: value" a line) through impersonation_parse, the attributes of each check, a chain that
 * allows everything and the user acted as; and, with the same bytes as JSON, the authorization
 * reviews' schema check, validation and answers: no crash, no leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "api/schemas.h"
#include "apiserver/authn.h"
#include "apiserver/authz-review.h"
#include "apiserver/authz.h"
#include "apiserver/impersonate.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void headers(const uint8_t *data, size_t size)
{
        char *text = xstrndup((const char *) data, size);
        struct http_header h[32];
        size_t n = 0;
        char *save = NULL;
        struct impersonation imp;
        struct error *err = NULL;

        for (char *line = strtok_r(text, "\n", &save); line && n < 32;
             line = strtok_r(NULL, "\n", &save)) {
                char *colon = strchr(line, ':');

                if (!colon)
                        continue;
                *colon = '\0';
                h[n++] = (struct http_header){ line, colon + 1 + (colon[1] == ' ') };
        }
        if (impersonation_parse(h, n, &imp, &err) == 0) {
                struct authn_user *me = authn_user_new("me", NULL, NULL);
                struct authn_user *u;
                size_t refused;
                char *reason = NULL;

                for (size_t i = 0; i < imp.n; i++) {
                        struct authz_attributes a;
                        char *msg;

                        impersonation_attributes(&imp.items[i], me, &a);
                        msg = authz_forbidden_message(&a);
                        free(msg);
                }
                (void) impersonation_authorize(NULL, me, &imp, &refused, &reason);
                free(reason);
                if (imp.n) {
                        u = impersonation_user(&imp);
                        json_decref(authn_user_info_json(u));
                        authn_user_free(u);
                }
                authn_user_free(me);
                impersonation_release(&imp);
        }
        error_free(err);
        free(text);
}

static void reviews(const uint8_t *data, size_t size)
{
        static const struct {
                const struct schema *schema;
                const struct resource_strategy *strategy;
                int (*hook)(const struct review_context *, const json_t *, json_t **,
                            struct error **);
        } kinds[] = {
                { &schema_subject_access_review, &subject_access_review_strategy,
                  authz_subject_access_review },
                { &schema_self_subject_access_review, &self_subject_access_review_strategy,
                  authz_self_subject_access_review },
                { &schema_local_subject_access_review, &local_subject_access_review_strategy,
                  authz_local_subject_access_review },
                { &schema_self_subject_rules_review, NULL, authz_self_subject_rules_review },
        };
        size_t k = size % 4;
        json_error_t jerr;
        json_t *v = json_loadb((const char *) data, size, JSON_DECODE_ANY, &jerr);
        struct strbuf unknown;
        struct error *err = NULL;
        struct authn_user *me;
        struct review_context c = { .ns = "ns" };
        json_t *answer = NULL;

        if (!v)
                return;
        strbuf_init(&unknown);
        if (schema_check(kinds[k].schema, v, "", &unknown, &err) < 0 || !json_is_object(v)) {
                error_free(err);
                strbuf_release(&unknown);
                json_decref(v);
                return;
        }
        strbuf_release(&unknown);
        if (kinds[k].strategy) {
                struct field_error_list errs;

                field_error_list_init(&errs);
                kinds[k].strategy->validate_create(v, &errs);
                field_error_list_release(&errs);
        }
        me = authn_user_new("me", NULL, NULL);
        c.user = me;
        if (kinds[k].hook(&c, v, &answer, &err) == 0)
                json_decref(answer);
        error_free(err);
        authn_user_free(me);
        json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        headers(data, size);
        reviews(data, size);
        return 0;
}
