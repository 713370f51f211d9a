/* schema-event.c: core/v1 Event (the events kubectl describe and get events read): the
 * involved object, source, counts and timestamps, and the events.k8s.io-era fields eventTime
 * (a MicroTime), series, action, related and reporting*. Field names follow k8s.io/api. */
#include "api/schemas.h"

/* core/v1 EventSource */
/* clang-format off */
static const struct schema_field event_source_fields[] = {
        { "component", &schema_string },
        { "host", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_source = SCHEMA_STRUCT("EventSource", event_source_fields);

/* core/v1 EventSeries */
/* clang-format off */
static const struct schema_field event_series_fields[] = {
        { "count", &schema_int32 },
        { "lastObservedTime", &schema_micro_time },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_event_series = SCHEMA_STRUCT("EventSeries", event_series_fields);

/* core/v1 Event */
/* clang-format off */
static const struct schema_field event_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "involvedObject", &schema_object_reference },
        { "reason", &schema_string },
        { "message", &schema_string },
        { "source", &schema_event_source },
        { "firstTimestamp", &schema_time },
        { "lastTimestamp", &schema_time },
        { "count", &schema_int32 },
        { "type", &schema_string },
        { "eventTime", &schema_micro_time },
        { "series", &schema_event_series },
        { "action", &schema_string },
        { "related", &schema_object_reference },
        { "reportingComponent", &schema_string },
        { "reportingInstance", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_event = SCHEMA_STRUCT("Event", event_fields);
