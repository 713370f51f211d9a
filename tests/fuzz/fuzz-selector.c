/* fuzz-selector.c: label and field selector parsing and matching on arbitrary input. The first
 * byte picks the parser (bit 0: label or field; bit 1: a pod's field list or the default
 * metadata-only conversion); the rest is the selector. Whatever parses must match without
 * crashing, and its canonical string must parse again to a selector that selects the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const pod_fields[] = { "metadata.name",
                                          "metadata.namespace",
                                          "spec.nodeName",
                                          "spec.hostNetwork",
                                          "status.phase",
                                          "spec.replicas",
                                          "involvedObject.namespace",
                                          "",
                                          NULL };

static json_t *fixture(void)
{
        static json_t *obj;

        if (!obj)
                obj = json_loads("{\"metadata\": {\"name\": \"web\", \"namespace\": \"default\","
                                 " \"labels\": {\"app\": \"web\", \"tier\": \"\", \"n\": \"5\","
                                 " \"app.kubernetes.io/name\": \"web\", \"in\": \"notin\","
                                 " \"num\": 7, \"nil\": null}},"
                                 " \"spec\": {\"nodeName\": \"node1\", \"hostNetwork\": true,"
                                 " \"replicas\": 3},"
                                 " \"status\": {\"phase\": \"Running\"},"
                                 " \"involvedObject\": {\"namespace\": \"\"}}",
                                 0, NULL);
        return obj;
}

static void fuzz_label(const char *s, const json_t *labels)
{
        cleanup_label_selector struct label_selector *sel = NULL, *again = NULL;
        cleanup_free char *str = NULL;
        struct error *err = NULL;

        if (label_selector_parse(s, &sel, &err) < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
                return;
        }
        str = label_selector_to_string(sel);
        /* The canonical form is valid syntax and selects the same labels. */
        if (label_selector_parse(str, &again, NULL) < 0)
                abort();
        if (label_selector_matches(sel, labels) != label_selector_matches(again, labels))
                abort();
        if (label_selector_matches(sel, NULL) != label_selector_matches(again, NULL))
                abort();
        if (label_selector_is_empty(sel) != (str[0] == '\0'))
                abort();
}

static void fuzz_field(const char *s, const char *const *fields, const json_t *obj)
{
        cleanup_field_selector struct field_selector *sel = NULL, *again = NULL;
        cleanup_free char *str = NULL;
        struct error *err = NULL;
        const char *value;

        if (field_selector_parse(s, fields, &sel, &err) < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
                return;
        }
        str = field_selector_to_string(sel);
        if (field_selector_parse(str, fields, &again, NULL) < 0)
                abort();
        if (field_selector_matches(sel, obj) != field_selector_matches(again, obj))
                abort();
        (void) field_selector_matches(sel, NULL);
        if (field_selector_requires_exact(sel, "metadata.name", &value) && !value)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        cleanup_free char *s = NULL;
        json_t *obj = fixture();

        if (size < 1)
                return 0;
        s = xstrndup((const char *) data + 1, size - 1);
        if (data[0] & 1)
                fuzz_field(s, data[0] & 2 ? NULL : pod_fields, obj);
        else
                fuzz_label(s, json_path(obj, "metadata.labels"));
        return 0;
}
