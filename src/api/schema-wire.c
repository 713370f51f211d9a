/* schema-wire.c: the shapes only the wire needs beside the kinds themselves: meta/v1 Status
 * (what errors and DELETE answer, and a watch's ERROR event carries) and every kind's List.
 * Field numbers from k8s.io/apimachinery v0.33.9 pkg/apis/meta/v1 generated.proto; a List is
 * {ListMeta metadata = 1; repeated <Kind> items = 2} in every k8s.io/api generated.proto. */
#include <pthread.h>
#include <string.h>

#include "api/schemas.h"
#include "base/macro.h"

/* meta/v1 StatusCause */
/* clang-format off */
static const struct schema_field status_cause_fields[] = {
        { "reason", &schema_string, 1, SCHEMA_GO_VALUE },
        { "message", &schema_string, 2, SCHEMA_GO_VALUE },
        { "field", &schema_string, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_status_cause = SCHEMA_STRUCT("StatusCause", status_cause_fields);

/* meta/v1 StatusDetails */
/* clang-format off */
static const struct schema_field status_details_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        { "group", &schema_string, 2, SCHEMA_GO_VALUE },
        { "kind", &schema_string, 3, SCHEMA_GO_VALUE },
        { "uid", &schema_uid, 6, SCHEMA_GO_VALUE },
        { "causes", SCHEMA_ATOMIC_LIST(&schema_status_cause), 4, SCHEMA_GO_VALUE },
        { "retryAfterSeconds", &schema_int32, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_status_details = SCHEMA_STRUCT("StatusDetails", status_details_fields);

/* meta/v1 Status */
/* clang-format off */
static const struct schema_field status_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_list_meta, 1, SCHEMA_GO_VALUE },
        { "status", &schema_string, 2, SCHEMA_GO_VALUE },
        { "message", &schema_string, 3, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 4, SCHEMA_GO_VALUE },
        { "details", &schema_status_details, 5, SCHEMA_GO_POINTER },
        { "code", &schema_int32, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_status = SCHEMA_STRUCT("Status", status_fields);

/* ---- lists, built on first use for each kind schema_for_kind knows ---- */

#define LIST_SCHEMAS_MAX 64

struct list_schema {
        const struct schema *item;
        char go_type[64];
        struct schema items;
        struct schema_field fields[5];
        struct schema list;
};

static struct list_schema list_schemas[LIST_SCHEMAS_MAX];
static size_t n_list_schemas;
static pthread_mutex_t list_schemas_lock = PTHREAD_MUTEX_INITIALIZER;

const struct schema *schema_list_for_kind(const char *list_kind)
{
        const struct schema *item, *ret = NULL;
        char kind[64];
        size_t n;

        if (!list_kind)
                return NULL;
        n = strlen(list_kind);
        if (n <= 4 || n >= sizeof(kind) || !streq(list_kind + n - 4, "List"))
                return NULL;
        memcpy(kind, list_kind, n - 4);
        kind[n - 4] = '\0';
        item = schema_for_kind(kind);
        if (!item)
                return NULL;

        pthread_mutex_lock(&list_schemas_lock);
        for (size_t i = 0; i < n_list_schemas && !ret; i++)
                if (list_schemas[i].item == item)
                        ret = &list_schemas[i].list;
        if (!ret && n_list_schemas < LIST_SCHEMAS_MAX) {
                struct list_schema *l = &list_schemas[n_list_schemas++];

                l->item = item;
                memcpy(l->go_type, list_kind, n + 1);
                l->items = (struct schema){ .kind = SCHEMA_LIST,
                                            .items = item,
                                            .list_type = SCHEMA_LIST_ATOMIC };
                /* TypeMeta kind and apiVersion: in the envelope, no number. */
                l->fields[0] = (struct schema_field){ "kind", &schema_string, 0, 0 };
                l->fields[1] = (struct schema_field){ "apiVersion", &schema_string, 0, 0 };
                l->fields[2] =
                        (struct schema_field){ "metadata", &schema_list_meta, 1, SCHEMA_GO_VALUE };
                /* K8S: `Items []Pod json:"items"`: no omitempty, but a list, so VALUE. */
                l->fields[3] = (struct schema_field){ "items", &l->items, 2, SCHEMA_GO_VALUE };
                l->fields[4] = (struct schema_field){ .name = NULL };
                l->list = (struct schema) SCHEMA_STRUCT(l->go_type, l->fields);
                ret = &l->list;
        }
        pthread_mutex_unlock(&list_schemas_lock);
        return ret;
}
