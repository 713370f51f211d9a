/* table-batch.c: the Table columns and rows of batch/v1 Jobs (K8S:
 * pkg/printers/internalversion/printers.go jobColumnDefinitions and printJob, 1.32). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/job.h"
#include "apiserver/table.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"

const struct table_column job_columns[JOB_COLUMNS] = {
        { "Name", "string", "name", "Name must be unique within a namespace.", 0 },
        { "Status", "string", "", "Status of the job.", 0 },
        { "Completions", "string", "",
          "The number of pods which reached phase Succeeded. The value increases monotonically "
          "for a given spec. However, it may decrease in reaction to scale down of elastic "
          "indexed jobs.",
          0 },
        { "Duration", "string", "", "Time required to complete the job.", 0 },
        { "Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created.",
          0 },
        { "Containers", "string", "", "Names of each container in the template.", 1 },
        { "Images", "string", "", "Images referenced by each container in the template.", 1 },
        { "Selector", "string", "",
          "A label query over pods that should match the pod count. Normally, the system sets "
          "this field for you. More info: "
          "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
          1 },
};

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S: metav1.FormatLabelSelector: the requirements sorted by key, "k=v", "k in (a,b)",
 * "k notin (a,b)", "k", "!k"; "<none>" for none. */
static char *format_label_selector(const json_t *sel)
{
        size_t n = json_object_size(json_object_get(sel, "matchLabels")) +
                   json_array_size(json_object_get(sel, "matchExpressions"));
        char **parts = xcalloc(n + 1, sizeof(*parts));
        struct strbuf sb;
        size_t k = 0, i, j;
        const char *key;
        json_t *v, *e;

        json_object_foreach(json_object_get(sel, "matchLabels"), key, v)
                parts[k++] = xasprintf("%s=%s", key, json_string_value(v) ?: "");
        json_array_foreach(json_object_get(sel, "matchExpressions"), i, e) {
                const char *op = json_path_string_or_empty(e, "operator");
                const char *ek = json_path_string_or_empty(e, "key");

                strbuf_init(&sb);
                if (streq(op, "Exists")) {
                        strbuf_addstr(&sb, ek);
                } else if (streq(op, "DoesNotExist")) {
                        strbuf_addf(&sb, "!%s", ek);
                } else {
                        strbuf_addf(&sb, "%s %s (", ek, streq(op, "In") ? "in" : "notin");
                        json_array_foreach(json_object_get(e, "values"), j, v)
                                strbuf_addf(&sb, "%s%s", j ? "," : "", json_string_value(v) ?: "");
                        strbuf_addstr(&sb, ")");
                }
                parts[k++] = strbuf_detach(&sb);
        }
        qsort(parts, k, sizeof(*parts), cmp_str);
        strbuf_init(&sb);
        for (i = 0; i < k; i++) {
                strbuf_addf(&sb, "%s%s", i ? "," : "", parts[i]);
                free(parts[i]);
        }
        free(parts);
        if (!k)
                strbuf_addstr(&sb, "<none>");
        return strbuf_detach(&sb);
}

static const char *job_status_cell(const json_t *job)
{
        if (job_has_condition(job, "Complete"))
                return "Complete";
        if (job_has_condition(job, "Failed"))
                return "Failed";
        if (json_path(job, "metadata.deletionTimestamp"))
                return "Terminating";
        if (job_has_condition(job, "Suspended"))
                return "Suspended";
        if (job_has_condition(job, "FailureTarget"))
                return "FailureTarget";
        if (job_has_condition(job, "SuccessCriteriaMet"))
                return "SuccessCriteriaMet";
        return "Running";
}

void job_table_row(const json_t *job, time_t now, json_t *cells)
{
        const json_t *completions = json_path(job, "spec.completions");
        long long succeeded = json_integer_value(json_path(job, "status.succeeded"));
        long long parallelism = json_integer_value(json_path(job, "spec.parallelism"));
        const char *start = json_path_string(job, "status.startTime");
        const char *done = json_path_string(job, "status.completionTime");
        const char *created = json_path_string(job, "metadata.creationTimestamp");
        char duration[32] = "", age[32] = "<unknown>";
        time_t ts, te;
        struct strbuf names, images;
        cleanup_free char *sel = format_label_selector(json_path(job, "spec.selector"));
        size_t i;
        json_t *c;

        json_array_append_new(cells, json_string(json_path_string_or_empty(job, "metadata.name")));
        json_array_append_new(cells, json_string(job_status_cell(job)));
        if (json_is_integer(completions))
                json_array_append_new(cells,
                                      json_sprintf("%lld/%lld", succeeded,
                                                   (long long) json_integer_value(completions)));
        else if (parallelism > 1)
                json_array_append_new(cells,
                                      json_sprintf("%lld/1 of %lld", succeeded, parallelism));
        else
                json_array_append_new(cells, json_sprintf("%lld/1", succeeded));
        /* K8S: duration.HumanDuration of completion - start, or of now - start while running */
        if (start && time_parse_rfc3339(start, &ts) == 0) {
                if (!done || time_parse_rfc3339(done, &te) < 0)
                        te = now;
                time_format_age(te, ts, duration);
        }
        json_array_append_new(cells, json_string(duration));
        if (created && time_parse_rfc3339(created, &ts) == 0)
                time_format_age(now, ts, age);
        json_array_append_new(cells, json_string(age));
        /* K8S: layoutContainerCells */
        strbuf_init(&names);
        strbuf_init(&images);
        json_array_foreach(json_path(job, "spec.template.spec.containers"), i, c) {
                strbuf_addf(&names, "%s%s", i ? "," : "", json_path_string_or_empty(c, "name"));
                strbuf_addf(&images, "%s%s", i ? "," : "", json_path_string_or_empty(c, "image"));
        }
        json_array_append_new(cells, json_string(names.buf));
        json_array_append_new(cells, json_string(images.buf));
        json_array_append_new(cells, json_string(sel));
        strbuf_release(&names);
        strbuf_release(&images);
}
