/* fuzz-validation-storage.c: arbitrary bytes, parsed as JSON, as a StorageClass, a
 * PersistentVolume or a PersistentVolumeClaim (by size): decoded against the kind's schema,
 * defaulted, prepared and validated on create, then (a JSON array gives [old, new]) on update
 * and status update, through the resize admission decision and the Table row: no crash, no
 * leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "api/schema.h"
#include "api/schemas.h"
#include "api/validation.h"
#include "apiserver/admission-storage.h"
#include "apiserver/table.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes v against s as the registry does; returns v when it stays an object. */
static json_t *decode(const struct schema *s, json_t *v)
{
        struct error *err = NULL;
        struct strbuf unknown;

        if (!json_is_object(v))
                return NULL;
        strbuf_init(&unknown);
        (void) schema_check(s, v, "", &unknown, &err);
        error_free(err);
        strbuf_release(&unknown);
        return v;
}

static void release(struct field_error_list *errs)
{
        char *s = field_error_list_string(errs);

        free(s);
        field_error_list_release(errs);
        field_error_list_init(errs);
}

static void storage_class(json_t *new_obj, json_t *old, struct field_error_list *errs)
{
        json_t *cells = json_array();

        storage_class_set_defaults(new_obj);
        (void) validate_storage_class_create(new_obj, errs);
        release(errs);
        if (old) {
                storage_class_set_defaults(old);
                (void) validate_storage_class_update(new_obj, old, errs);
                release(errs);
        }
        storage_class_table_row(new_obj, time(NULL), cells);
        json_decref(cells);
}

static void volume(json_t *new_obj, json_t *old, struct field_error_list *errs)
{
        json_t *cells = json_array();

        pv_set_defaults(new_obj);
        pv_prepare_for_create(new_obj, "2025-01-01T00:00:00Z");
        (void) validate_pv_create(new_obj, errs);
        release(errs);
        if (old) {
                json_t *st = json_deep_copy(new_obj);
                pv_set_defaults(old);
                pv_prepare_for_update(new_obj, old);
                (void) validate_pv_update(new_obj, old, errs);
                release(errs);
                pv_prepare_for_status_update(st, old, "2025-01-02T00:00:00Z");
                (void) validate_pv_status_update(st, old, errs);
                release(errs);
                json_decref(st);
        }
        persistent_volume_table_row(new_obj, time(NULL), cells);
        json_decref(cells);
}

static void claim(json_t *new_obj, json_t *old, struct field_error_list *errs)
{
        json_t *cells = json_array();
        struct error *err = NULL;

        pvc_set_defaults(new_obj);
        pvc_prepare_for_create(new_obj);
        (void) validate_pvc_create(new_obj, errs);
        release(errs);
        if (old) {
                json_t *st = json_deep_copy(new_obj);
                pvc_set_defaults(old);
                pvc_prepare_for_update(new_obj, old);
                (void) validate_pvc_update(new_obj, old, errs);
                release(errs);
                (void) pvc_resize_admit(new_obj, old, json_object_get(old, "storageClass"), &err);
                error_free(err);
                pvc_prepare_for_status_update(st, old);
                (void) validate_pvc_status_update(st, old, errs);
                release(errs);
                json_decref(st);
        }
        persistent_volume_claim_table_row(new_obj, time(NULL), cells);
        json_decref(cells);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const struct schema *const kinds[] = { &schema_storage_class,
                                                      &schema_persistent_volume,
                                                      &schema_persistent_volume_claim };
        const struct schema *s = kinds[size % 3];
        struct field_error_list errs;
        json_error_t jerr;
        json_t *v, *new_obj, *old = NULL;

        v = json_loadb((const char *) data, size, JSON_DECODE_ANY, &jerr);
        if (!v)
                return 0;
        if (json_is_array(v)) {
                old = decode(s, json_array_get(v, 0));
                new_obj = decode(s, json_array_get(v, 1));
        } else {
                new_obj = decode(s, v);
        }
        field_error_list_init(&errs);
        if (new_obj) {
                if (s == &schema_storage_class)
                        storage_class(new_obj, old, &errs);
                else if (s == &schema_persistent_volume)
                        volume(new_obj, old, &errs);
                else
                        claim(new_obj, old, &errs);
        }
        field_error_list_release(&errs);
        json_decref(v);
        return 0;
}
