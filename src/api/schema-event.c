/* schema-event.c: core/v1 Event (the events kubectl describe and get events read): the
 * involved object, source, counts and timestamps, and the events.k8s.io-era fields eventTime
 * (a MicroTime), series, action, related and reporting*. Field names follow k8s.io/api. */
#include "api/schemas.h"

/* core/v1 EventSource */
/* clang-format off */
static const struct schema_field event_source_fields[] = {
        { "component", &schema_string, 1, SCHEMA_GO_VALUE },
        { "host", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_source = SCHEMA_STRUCT("EventSource", event_source_fields);

/* core/v1 EventSeries */
/* clang-format off */
static const struct schema_field event_series_fields[] = {
        { "count", &schema_int32, 1, SCHEMA_GO_VALUE },
        { "lastObservedTime", &schema_micro_time, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_series = SCHEMA_STRUCT("EventSeries", event_series_fields);

/* core/v1 Event */
/* clang-format off */
static const struct schema_field event_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_ALWAYS },
        { "involvedObject", &schema_object_reference, 2, SCHEMA_GO_ALWAYS },
        { "reason", &schema_string, 3, SCHEMA_GO_VALUE },
        { "message", &schema_string, 4, SCHEMA_GO_VALUE },
        { "source", &schema_event_source, 5, SCHEMA_GO_VALUE },
        { "firstTimestamp", &schema_time, 6, SCHEMA_GO_VALUE },
        { "lastTimestamp", &schema_time, 7, SCHEMA_GO_VALUE },
        { "count", &schema_int32, 8, SCHEMA_GO_VALUE },
        { "type", &schema_string, 9, SCHEMA_GO_VALUE },
        { "eventTime", &schema_micro_time, 10, SCHEMA_GO_VALUE },
        { "series", &schema_event_series, 11, SCHEMA_GO_POINTER },
        { "action", &schema_string, 12, SCHEMA_GO_VALUE },
        { "related", &schema_object_reference, 13, SCHEMA_GO_POINTER },
        { "reportingComponent", &schema_string, 14, SCHEMA_GO_ALWAYS },
        { "reportingInstance", &schema_string, 15, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_event = SCHEMA_STRUCT("Event", event_fields);
