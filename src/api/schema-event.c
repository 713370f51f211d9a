/* schema-event.c: core/v1 Event (the events kubectl describe and get events read): the
 * involved object, source, counts and timestamps, and the events.k8s.io-era fields eventTime
 * (a MicroTime), series, action, related and reporting*. Field names follow k8s.io/api. */
#include "api/schemas.h"

/* core/v1 EventSource */
/* clang-format off */
static const struct schema_field event_source_fields[] = {
        { "component", &schema_string, 0, 0 },
        { "host", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_source = SCHEMA_STRUCT("EventSource", event_source_fields);

/* core/v1 EventSeries */
/* clang-format off */
static const struct schema_field event_series_fields[] = {
        { "count", &schema_int32, 0, 0 },
        { "lastObservedTime", &schema_micro_time, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_series = SCHEMA_STRUCT("EventSeries", event_series_fields);

/* core/v1 Event */
/* clang-format off */
static const struct schema_field event_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "involvedObject", &schema_object_reference, 0, 0 },
        { "reason", &schema_string, 0, 0 },
        { "message", &schema_string, 0, 0 },
        { "source", &schema_event_source, 0, 0 },
        { "firstTimestamp", &schema_time, 0, 0 },
        { "lastTimestamp", &schema_time, 0, 0 },
        { "count", &schema_int32, 0, 0 },
        { "type", &schema_string, 0, 0 },
        { "eventTime", &schema_micro_time, 0, 0 },
        { "series", &schema_event_series, 0, 0 },
        { "action", &schema_string, 0, 0 },
        { "related", &schema_object_reference, 0, 0 },
        { "reportingComponent", &schema_string, 0, 0 },
        { "reportingInstance", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_event = SCHEMA_STRUCT("Event", event_fields);
