/* table-statefulset.c: the Table rows of StatefulSets and ControllerRevisions (K8S:
 * pkg/printers/internalversion/printers.go statefulSetColumnDefinitions, printStatefulSet,
 * controllerRevisionColumnDefinitions, printControllerRevision). */
#include <ctype.h>
#include <string.h>

#include "apiserver/table.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"

/* The same shortened ObjectMeta descriptions the other kinds' columns carry. */
#define NAME_DESCRIPTION "Name must be unique within a namespace."
#define AGE_DESCRIPTION \
 "CreationTimestamp is a timestamp representing the server time when this object was created."

static void age_cell(const json_t *obj, time_t now, json_t *cells)
{
        const char *created = json_path_string(obj, "metadata.creationTimestamp");
        char age[32] = "<unknown>";
        time_t ts;

        if (created && time_parse_rfc3339(created, &ts) == 0)
                time_format_age(now, ts, age);
        json_array_append_new(cells, json_string(age));
}

const struct table_column stateful_set_columns[STATEFUL_SET_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Ready", "string", "", "Number of the pod with ready state", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Containers", "string", "", "Names of each container in the template.", 1 },
        { "Images", "string", "", "Images referenced by each container in the template.", 1 },
};

void stateful_set_table_row(const json_t *sts, time_t now, json_t *cells)
{
        const json_t *r = json_path(sts, "spec.replicas");
        struct strbuf names, images;
        size_t i;
        json_t *c;

        json_array_append_new(cells, json_string(json_path_string_or_empty(sts, "metadata.name")));
        json_array_append_new(cells, json_sprintf("%lld/%lld",
                                                  (long long) json_integer_value(
                                                          json_path(sts, "status.readyReplicas")),
                                                  r ? (long long) json_integer_value(r) : 1LL));
        age_cell(sts, now, cells);
        /* K8S: layoutContainerCells without the selector */
        strbuf_init(&names);
        strbuf_init(&images);
        json_array_foreach(json_path(sts, "spec.template.spec.containers"), i, c) {
                strbuf_addf(&names, "%s%s", i ? "," : "",
                            json_string_value(json_object_get(c, "name")) ?: "");
                strbuf_addf(&images, "%s%s", i ? "," : "",
                            json_string_value(json_object_get(c, "image")) ?: "");
        }
        json_array_append_new(cells, json_string(names.buf));
        json_array_append_new(cells, json_string(images.buf));
        strbuf_release(&names);
        strbuf_release(&images);
}

const struct table_column controller_revision_columns[CONTROLLER_REVISION_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Controller", "string", "", "Controller of the object", 0 },
        { "Revision", "string", "", "Revision of the ControllerRevision", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

void controller_revision_table_row(const json_t *cr, time_t now, json_t *cells)
{
        const json_t *ref = NULL, *r;
        size_t i;

        json_array_foreach(json_path(cr, "metadata.ownerReferences"), i, r) {
                if (json_is_true(json_object_get(r, "controller")))
                        ref = r;
        }
        json_array_append_new(cells, json_string(json_path_string_or_empty(cr, "metadata.name")));
        if (ref) {
                /* K8S: "<lower-case kind>.<group>/<name>" from the reference's apiVersion */
                const char *av = json_string_value(json_object_get(ref, "apiVersion")) ?: "";
                const char *slash = strchr(av, '/');
                cleanup_free char *kind =
                        xstrdup(json_string_value(json_object_get(ref, "kind")) ?: "");

                for (char *p = kind; *p; p++)
                        *p = (char) tolower((unsigned char) *p);
                json_array_append_new(
                        cells, json_sprintf("%s%s%.*s/%s", kind, slash ? "." : "",
                                            slash ? (int) (slash - av) : 0, av,
                                            json_string_value(json_object_get(ref, "name")) ?: ""));
        } else {
                json_array_append_new(cells, json_string("<none>"));
        }
        json_array_append_new(cells,
                              json_sprintf("%lld", (long long) json_integer_value(
                                                           json_object_get(cr, "revision"))));
        age_cell(cr, now, cells);
}
