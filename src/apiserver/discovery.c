/* discovery.c: API discovery documents, aggregated (apidiscovery.k8s.io/v2) and legacy
 * (APIVersions, APIGroupList, APIResourceList), all read from the resource table. */
#include <errno.h>
#include <string.h>

#include "apiserver/discovery.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"

#define AGGREGATED_CONTENT_TYPE \
 "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

/* Whether accept names version v2 itself: "v=v2" ending its parameter, not the v2beta1 that
 * kubectl 1.27 asks for alone (it then reads the legacy lists it also accepts). */
static bool names_v2(const char *accept)
{
        for (const char *p = accept; (p = strstr(p, "v=v2")); p += 4)
                if (p[4] == '\0' || p[4] == ';' || p[4] == ',' || p[4] == ' ')
                        return true;
        return false;
}

bool discovery_wants_aggregated(const char *accept)
{
        /* Parameter order does not matter to clients; kubectl sends g, v, as in this order. */
        return accept && strstr(accept, "g=apidiscovery.k8s.io") && names_v2(accept) &&
               strstr(accept, "as=APIGroupDiscoveryList");
}

static json_t *strv_json(const char *const *v)
{
        json_t *a = json_array();

        for (; v && *v; v++)
                json_array_append_new(a, json_string(*v));
        return a;
}

/* K8S: pods/binding and pods/eviction are create-only, pods/log get-only, namespaces/finalize
 * update-only; the other subresources read and write the parent. */
static json_t *subresource_verbs(const char *sub)
{
        if (streq(sub, "binding") || streq(sub, "eviction") || streq(sub, "token"))
                return json_pack("[s]", "create");
        if (streq(sub, "finalize"))
                return json_pack("[s]", "update");
        if (streq(sub, "log"))
                return json_pack("[s]", "get");
        /* K8S: the streaming subresources are connecters (GET and POST) */
        if (streq(sub, "exec") || streq(sub, "attach") || streq(sub, "portforward"))
                return json_pack("[s, s]", "create", "get");
        return json_pack("[s, s, s]", "get", "patch", "update");
}

static json_t *response_kind(const struct api_resource *r)
{
        return json_pack("{s:s, s:s, s:s}", "group", r->group, "version", r->version, "kind",
                         r->kind);
}

/* K8S: pods/eviction takes and is a policy/v1 Eviction (EvictionREST's GroupVersionKind); kubectl
 * drain finds it by that kind and group in /api/v1 (CheckEvictionSupport). */
static bool subresource_is_eviction(const char *sub)
{
        return streq(sub, "eviction");
}

static json_t *subresource_kind(const struct api_resource *r, const char *sub)
{
        if (subresource_is_eviction(sub))
                return json_pack("{s:s, s:s, s:s}", "group", "policy", "version", "v1", "kind",
                                 "Eviction");
        if (streq(sub, "token"))
                return json_pack("{s:s, s:s, s:s}", "group", "authentication.k8s.io", "version",
                                 "v1", "kind", "TokenRequest");
        if (streq(sub, "scale"))
                return json_pack("{s:s, s:s, s:s}", "group", "autoscaling", "version", "v1", "kind",
                                 "Scale");
        if (streq(sub, "exec"))
                return json_pack("{s:s, s:s, s:s}", "group", "", "version", "v1", "kind",
                                 "PodExecOptions");
        if (streq(sub, "attach"))
                return json_pack("{s:s, s:s, s:s}", "group", "", "version", "v1", "kind",
                                 "PodAttachOptions");
        if (streq(sub, "portforward"))
                return json_pack("{s:s, s:s, s:s}", "group", "", "version", "v1", "kind",
                                 "PodPortForwardOptions");
        return response_kind(r);
}

static json_t *aggregated_resource(const struct api_resource *r)
{
        json_t *res = json_pack("{s:s, s:o, s:s, s:s, s:o}", "resource", r->plural, "responseKind",
                                response_kind(r), "scope", r->namespaced ? "Namespaced" : "Cluster",
                                "singularResource", r->singular, "verbs", strv_json(r->verbs));
        json_t *subs = json_array();

        if (r->short_names)
                json_object_set_new(res, "shortNames", strv_json(r->short_names));
        if (r->categories)
                json_object_set_new(res, "categories", strv_json(r->categories));
        for (const char *const *s = r->subresources; s && *s; s++) {
                json_t *verbs = subresource_verbs(*s);
                json_array_append_new(subs, json_pack("{s:s, s:o, s:o}", "subresource", *s,
                                                      "responseKind", subresource_kind(r, *s),
                                                      "verbs", verbs));
        }
        if (json_array_size(subs))
                json_object_set_new(res, "subresources", subs);
        else
                json_decref(subs);
        return res;
}

/* One APIGroupDiscovery per group present in the table, core ("") or named. */
static json_t *aggregated_list(bool core)
{
        json_t *items = json_array();

        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                json_t *group = NULL, *resources;
                size_t j;
                json_t *g;

                if ((r->group[0] == '\0') != core)
                        continue;
                json_array_foreach(items, j, g) {
                        if (streq(json_path_string(g, "metadata.name"), r->group))
                                group = g;
                }
                if (!group) {
                        group = json_pack("{s:{s:s}, s:[{s:s, s:s, s:[]}]}", "metadata", "name",
                                          r->group, "versions", "version", r->version, "freshness",
                                          "Current", "resources");
                        json_array_append_new(items, group);
                }
                resources = json_object_get(json_array_get(json_object_get(group, "versions"), 0),
                                            "resources");
                json_array_append_new(resources, aggregated_resource(r));
        }
        return json_pack("{s:s, s:s, s:{}, s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                         "apidiscovery.k8s.io/v2", "metadata", "items", items);
}

static void respond_aggregated(struct http_response *resp, bool core)
{
        json_t *doc = aggregated_list(core);

        http_response_json(resp, 200, doc);
        resp->content_type = AGGREGATED_CONTENT_TYPE;
        json_decref(doc);
}

void discovery_api(struct http_response *resp, bool aggregated, const char *listen)
{
        json_t *doc;

        if (aggregated) {
                respond_aggregated(resp, true);
                return;
        }
        doc = json_pack("{s:s, s:[s], s:[{s:s, s:s}]}", "kind", "APIVersions", "versions", "v1",
                        "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
                        listen);
        http_response_json(resp, 200, doc);
        json_decref(doc);
}

void discovery_apis(struct http_response *resp, bool aggregated)
{
        json_t *groups = json_array();
        json_t *doc;

        if (aggregated) {
                respond_aggregated(resp, false);
                json_decref(groups);
                return;
        }
        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                size_t j;
                json_t *g;
                bool seen = false;

                if (!r->group[0])
                        continue;
                json_array_foreach(groups, j, g)
                        seen |= streq(json_string_value(json_object_get(g, "name")), r->group);
                if (seen)
                        continue;
                json_array_append_new(
                        groups, json_pack("{s:s, s:[{s:s, s:s}], s:{s:s, s:s}}", "name", r->group,
                                          "versions", "groupVersion", r->api_version, "version",
                                          r->version, "preferredVersion", "groupVersion",
                                          r->api_version, "version", r->version));
        }
        doc = json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups",
                        groups);
        http_response_json(resp, 200, doc);
        json_decref(doc);
}

void discovery_resource_list(struct http_response *resp, const char *group, const char *version)
{
        json_t *resources = json_array();
        const char *group_version = NULL;
        json_t *doc;

        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                json_t *res;

                if (!streq(r->group, group) || !streq(r->version, version))
                        continue;
                group_version = r->api_version;
                res = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", r->plural, "singularName",
                                r->singular, "namespaced", r->namespaced, "kind", r->kind, "verbs",
                                strv_json(r->verbs));
                if (r->short_names)
                        json_object_set_new(res, "shortNames", strv_json(r->short_names));
                if (r->categories)
                        json_object_set_new(res, "categories", strv_json(r->categories));
                json_array_append_new(resources, res);
                for (const char *const *s = r->subresources; s && *s; s++) {
                        cleanup_free char *name = xasprintf("%s/%s", r->plural, *s);
                        json_t *sub = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", name,
                                                "singularName", "", "namespaced", r->namespaced,
                                                "kind", r->kind, "verbs", subresource_verbs(*s));

                        if (subresource_is_eviction(*s) || streq(*s, "token") ||
                            streq(*s, "scale")) {
                                json_t *k = subresource_kind(r, *s);
                                json_object_update(sub, k);
                                json_decref(k);
                        }
                        json_array_append_new(resources, sub);
                }
        }
        if (!group_version) {
                json_decref(resources);
                status_respond(resp, ENOENT, "the server could not find the requested resource",
                               NULL);
                return;
        }
        doc = json_pack("{s:s, s:s, s:s, s:o}", "kind", "APIResourceList", "apiVersion", "v1",
                        "groupVersion", group_version, "resources", resources);
        http_response_json(resp, 200, doc);
        json_decref(doc);
}
