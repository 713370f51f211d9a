/* satoken.c: the claims of bound service account tokens and their authenticator (see
 * satoken.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/satoken.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "base/uuid.h"
#include "store/store.h"

/* K8S: the validator's leeway on exp and nbf (jwt.DefaultLeeway). */
#define LEEWAY_S 60

json_t *satoken_claims(const char *ns, const char *name, const char *sa_uid,
                       const json_t *audiences, const struct satoken_binding *b, time_t now,
                       int64_t seconds)
{
        cleanup_free char *sub = xasprintf("system:serviceaccount:%s:%s", ns, name);
        json_t *k8s = json_pack("{s:s, s:{s:s, s:s}}", "namespace", ns, "serviceaccount", "name",
                                name, "uid", sa_uid);
        char jti[UUID_STRING_LEN + 1];

        if (b && b->kind)
                json_object_set_new(k8s, strcmp(b->kind, "Pod") == 0 ? "pod" : "secret",
                                    json_pack("{s:s, s:s}", "name", b->name, "uid", b->uid));
        uuid_random(jti);
        return json_pack("{s:o, s:I, s:I, s:s, s:o, s:I, s:s, s:s}", "aud",
                         audiences && json_array_size(audiences) ? json_deep_copy(audiences)
                                                                 : json_pack("[s]", SATOKEN_ISSUER),
                         "exp", (json_int_t) (now + seconds), "iat", (json_int_t) now, "iss",
                         SATOKEN_ISSUER, "kubernetes.io", k8s, "nbf", (json_int_t) now, "sub", sub,
                         "jti", jti);
}

/* Whether aud (a string or an array of strings) names the API server. */
static bool for_this_server(const json_t *aud)
{
        size_t i;
        const json_t *v;

        if (json_is_string(aud))
                return strcmp(json_string_value(aud), SATOKEN_ISSUER) == 0;
        json_array_foreach(aud, i, v)
                if (json_is_string(v) && strcmp(json_string_value(v), SATOKEN_ISSUER) == 0)
                        return true;
        return false;
}

/* The object the claims name (resource in ns) still exists with that uid and is not being
 * deleted. */
static int check_live(struct store *store, const char *resource, const char *what, const char *ns,
                      const json_t *ref, time_t now, int64_t *valid_until, struct error **reterr)
{
        const char *name = json_string_value(json_object_get(ref, "name"));
        const char *uid = json_string_value(json_object_get(ref, "uid"));
        cleanup_json json_t *obj = NULL;
        const char *have, *deleting;
        time_t when;

        if (!name || !uid)
                return error_set(reterr, EACCES, "token names a %s without a name or uid", what);
        if (store_get(store, resource, ns, name, &obj, NULL) < 0)
                return error_set(reterr, EACCES, "%s %s/%s has been deleted", what, ns, name);
        have = json_path_string(obj, "metadata.uid");
        if (!have || strcmp(have, uid) != 0)
                return error_set(reterr, EACCES, "%s UID (%s) does not match claim (%s)", what,
                                 have ? have : "", uid);
        deleting = json_path_string(obj, "metadata.deletionTimestamp");
        if (deleting && time_parse_rfc3339(deleting, &when) == 0) {
                if (when < now)
                        return error_set(reterr, EACCES, "%s %s/%s is marked for deletion", what,
                                         ns, name);
                if ((int64_t) when < *valid_until)
                        *valid_until = (int64_t) when;
        }
        return 0;
}

void satoken_refs_release(struct satoken_refs *r)
{
        free(r->sa_uid);
        free(r->pod_uid);
        free(r->secret_uid);
        *r = (struct satoken_refs){ 0 };
}

int satoken_authenticate(const struct jws_signer *signer, struct store *store, const char *token,
                         time_t now, struct authn_user **ret, struct satoken_refs *ret_refs,
                         struct error **reterr)
{
        int64_t valid_until;
        cleanup_json json_t *claims = NULL;
        const json_t *k8s, *sa, *pod, *secret, *exp, *nbf;
        const char *iss, *ns, *name, *uid;
        cleanup_free char *user = NULL;
        cleanup_free char *ns_group = NULL;
        const char *groups[3];
        int r;

        /* K8S: a token that is not a JWT from this issuer is another authenticator's */
        if (jws_verify(signer, token, &claims, reterr) < 0)
                return -ENOENT;
        iss = json_string_value(json_object_get(claims, "iss"));
        if (!iss || strcmp(iss, SATOKEN_ISSUER) != 0)
                return error_set(reterr, ENOENT, "token is from another issuer");
        exp = json_object_get(claims, "exp");
        nbf = json_object_get(claims, "nbf");
        if (!json_is_integer(exp) || json_integer_value(exp) + LEEWAY_S < (json_int_t) now)
                return error_set(reterr, EACCES, "service account token has expired");
        if (nbf && (!json_is_integer(nbf) || json_integer_value(nbf) - LEEWAY_S > (json_int_t) now))
                return error_set(reterr, EACCES, "service account token is not valid yet");
        valid_until = (int64_t) json_integer_value(exp) + LEEWAY_S;
        if (!for_this_server(json_object_get(claims, "aud")))
                return error_set(reterr, EACCES, "token audiences do not include the API server");
        k8s = json_object_get(claims, "kubernetes.io");
        sa = json_object_get(k8s, "serviceaccount");
        ns = json_string_value(json_object_get(k8s, "namespace"));
        name = json_string_value(json_object_get(sa, "name"));
        uid = json_string_value(json_object_get(sa, "uid"));
        if (!ns || !name || !uid)
                return error_set(reterr, EACCES, "token names no service account");
        r = check_live(store, "serviceaccounts", "service account", ns, sa, now, &valid_until,
                       reterr);
        if (r < 0)
                return r;
        pod = json_object_get(k8s, "pod");
        secret = json_object_get(k8s, "secret");
        if (pod && (r = check_live(store, "pods", "pod", ns, pod, now, &valid_until, reterr)) < 0)
                return r;
        if (secret &&
            (r = check_live(store, "secrets", "secret", ns, secret, now, &valid_until, reterr)) < 0)
                return r;
        user = xasprintf("system:serviceaccount:%s:%s", ns, name);
        ns_group = xasprintf("system:serviceaccounts:%s", ns);
        groups[0] = "system:serviceaccounts";
        groups[1] = ns_group;
        groups[2] = NULL;
        *ret = authn_user_new(user, uid, groups);
        if (ret_refs) {
                const char *pod_uid = json_string_value(json_object_get(pod, "uid"));
                const char *secret_uid = json_string_value(json_object_get(secret, "uid"));

                *ret_refs = (struct satoken_refs){
                        .sa_uid = xstrdup(uid),
                        .pod_uid = pod_uid ? xstrdup(pod_uid) : NULL,
                        .secret_uid = secret_uid ? xstrdup(secret_uid) : NULL,
                        .valid_until = valid_until,
                };
        }
        return 0;
}
