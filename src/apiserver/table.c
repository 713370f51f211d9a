/* table.c: builds metav1.Table objects and the per-kind rows, following upstream's printers
 * (pkg/printers/internalversion/printers.go) cell by cell. The apiserver always prints the
 * wide set; kubectl hides priority-1 columns unless asked for -o wide. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "api/validation.h"
#include "apiserver/table.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"

const struct table_column pod_columns[POD_COLUMNS] = {
        { "Name", "string", "name", "Name must be unique within a namespace.", 0 },
        { "Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.",
          0 },
        { "Status", "string", "", "The aggregate status of the containers in this pod.", 0 },
        { "Restarts", "string", "",
          "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
          0 },
        { "Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created.",
          0 },
        { "IP", "string", "",
          "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
          1 },
        { "Node", "string", "", "NodeName is a request to schedule this pod onto a specific node.",
          1 },
        { "Nominated Node", "string", "",
          "nominatedNodeName is set when this pod preempts other pods on the node.", 1 },
        { "Readiness Gates", "string", "",
          "If specified, all readiness gates will be evaluated for pod readiness.", 1 },
};

const struct table_column namespace_columns[NAMESPACE_COLUMNS] = {
        { "Name", "string", "name", "Name must be unique within a namespace.", 0 },
        { "Status", "string", "", "The status of the namespace", 0 },
        { "Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created.",
          0 },
};

const struct table_column node_columns[NODE_COLUMNS] = {
        { "Name", "string", "name", "Name must be unique within a namespace.", 0 },
        { "Status", "string", "", "The status of the node", 0 },
        { "Roles", "string", "", "The roles of the node", 0 },
        { "Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created.",
          0 },
        { "Version", "string", "", "Kubelet Version reported by the node.", 0 },
        { "Internal-IP", "string", "", "List of addresses reachable to the node.", 1 },
        { "External-IP", "string", "", "List of addresses reachable to the node.", 1 },
        { "OS-Image", "string", "",
          "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
          1 },
        { "Kernel-Version", "string", "",
          "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1 },
        { "Container-Runtime", "string", "",
          "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
          1 },
};

const struct table_column event_columns[EVENT_COLUMNS] = {
        { "Last Seen", "string", "", "The last time the event was observed.", 0 },
        { "Type", "string", "",
          "Type of this event (Normal, Warning), new types could be added in the future.", 0 },
        { "Reason", "string", "",
          "This should be a short, machine understandable string that gives the reason for this event being generated.",
          0 },
        { "Object", "string", "", "The object this Event is about.", 0 },
        { "Subobject", "string", "", "The subobject this Event is about.", 1 },
        { "Source", "string", "", "The component reporting this event.", 1 },
        { "Message", "string", "", "A human-readable description of the status of this operation.",
          0 },
        { "First Seen", "string", "", "The time at which the event was first recorded.", 1 },
        { "Count", "integer", "", "The number of times this event has occurred.", 1 },
        { "Name", "string", "name", "Name must be unique within a namespace.", 1 },
};

int table_include_from_string(const char *s, enum table_include *ret)
{
        if (!s || !*s || streq(s, "Metadata"))
                *ret = TABLE_INCLUDE_METADATA;
        else if (streq(s, "Object"))
                *ret = TABLE_INCLUDE_OBJECT;
        else if (streq(s, "None"))
                *ret = TABLE_INCLUDE_NONE;
        else
                return -EINVAL;
        return 0;
}

/* K8S: translateTimestampSince: "<unknown>" for a zero time. */
static void age_since(const char *timestamp, time_t now, char buf[static 32])
{
        time_t t;

        if (!timestamp || time_parse_rfc3339(timestamp, &t) < 0) {
                (void) snprintf(buf, 32, "<unknown>");
                return;
        }
        time_format_age(now, t, buf);
}

static const char *str_or(const char *s, const char *dflt)
{
        return s && *s ? s : dflt;
}

static bool has_condition_true(const json_t *conditions, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(conditions, i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                const char *st = json_string_value(json_object_get(c, "status"));
                if (t && st && streq(t, type) && streq(st, "True"))
                        return true;
        }
        return false;
}

static bool is_restartable_init(const json_t *pod, const char *name)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "spec.initContainers"), i, c) {
                const char *n = json_string_value(json_object_get(c, "name"));
                const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
                if (n && streq(n, name))
                        return rp && streq(rp, "Always");
        }
        return false;
}

/* Latest lastState.terminated.finishedAt among statuses, into *latest (0 when none). */
static void note_last_restart(const json_t *status, time_t *latest)
{
        const char *fin = json_path_string(status, "lastState.terminated.finishedAt");
        time_t t;

        if (fin && time_parse_rfc3339(fin, &t) == 0 && t > *latest)
                *latest = t;
}

static char *terminated_reason(const json_t *term, const char *prefix)
{
        const char *reason = json_string_value(json_object_get(term, "reason"));
        json_int_t sig = json_integer_value(json_object_get(term, "signal"));
        json_int_t code = json_integer_value(json_object_get(term, "exitCode"));

        if (reason && *reason)
                return xasprintf("%s%s", prefix, reason);
        if (sig)
                return xasprintf("%sSignal:%lld", prefix, (long long) sig);
        return xasprintf("%sExitCode:%lld", prefix, (long long) code);
}

/* K8S: printPod. */
void pod_table_row(const json_t *pod, time_t now, json_t *cells)
{
        const json_t *status = json_object_get(pod, "status");
        const json_t *init_statuses = json_object_get(status, "initContainerStatuses");
        const json_t *statuses = json_object_get(status, "containerStatuses");
        long restarts = 0, init_restarts = 0;
        size_t total = json_array_size(json_path(pod, "spec.containers"));
        size_t ready = 0, n_init = json_array_size(json_path(pod, "spec.initContainers"));
        time_t last_restart = 0;
        cleanup_free char *reason = NULL;
        bool initializing = false;
        char age[32], buf[64];
        size_t i;
        json_t *c;

        reason = xstrdup(str_or(json_string_value(json_object_get(status, "phase")), ""));
        if (json_string_value(json_object_get(status, "reason"))) {
                free(reason);
                reason = xstrdup(json_string_value(json_object_get(status, "reason")));
        }
        json_array_foreach(json_path(pod, "spec.initContainers"), i, c) {
                const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
                if (rp && streq(rp, "Always"))
                        total++;
        }

        json_array_foreach(init_statuses, i, c) {
                const char *name = str_or(json_string_value(json_object_get(c, "name")), "");
                const json_t *term = json_path(c, "state.terminated");
                const char *waiting = json_path_string(c, "state.waiting.reason");
                bool restartable = is_restartable_init(pod, name);

                restarts += (long) json_integer_value(json_object_get(c, "restartCount"));
                note_last_restart(c, &last_restart);
                if (restartable) {
                        init_restarts +=
                                (long) json_integer_value(json_object_get(c, "restartCount"));
                        if (json_is_true(json_object_get(c, "ready")))
                                ready++;
                }
                if (term && json_integer_value(json_object_get(term, "exitCode")) == 0)
                        continue;
                if (restartable && json_is_true(json_object_get(c, "started")))
                        continue;
                free(reason);
                if (term)
                        reason = terminated_reason(term, "Init:");
                else if (waiting && *waiting && !streq(waiting, "PodInitializing"))
                        reason = xasprintf("Init:%s", waiting);
                else
                        reason = xasprintf("Init:%zu/%zu", i, n_init);
                initializing = true;
                break;
        }

        if (!initializing ||
            has_condition_true(json_object_get(status, "conditions"), "Initialized")) {
                bool has_running = false;

                restarts = init_restarts;
                for (size_t j = json_array_size(statuses); j-- > 0;) {
                        const json_t *cs = json_array_get(statuses, j);
                        const char *waiting = json_path_string(cs, "state.waiting.reason");
                        const json_t *term = json_path(cs, "state.terminated");

                        restarts += (long) json_integer_value(json_object_get(cs, "restartCount"));
                        note_last_restart(cs, &last_restart);
                        if (waiting && *waiting) {
                                free(reason);
                                reason = xstrdup(waiting);
                        } else if (term) {
                                free(reason);
                                reason = terminated_reason(term, "");
                        } else if (json_is_true(json_object_get(cs, "ready")) &&
                                   json_path(cs, "state.running")) {
                                has_running = true;
                                ready++;
                        }
                }
                if (streq(reason, "Completed") && has_running) {
                        free(reason);
                        reason = xstrdup(
                                has_condition_true(json_object_get(status, "conditions"), "Ready")
                                        ? "Running"
                                        : "NotReady");
                }
        }

        if (json_path(pod, "metadata.deletionTimestamp")) {
                const char *sr = json_string_value(json_object_get(status, "reason"));
                const char *phase = json_string_value(json_object_get(status, "phase"));
                if (sr && streq(sr, "NodeLost")) {
                        free(reason);
                        reason = xstrdup("Unknown");
                } else if (!phase || (!streq(phase, "Succeeded") && !streq(phase, "Failed"))) {
                        free(reason);
                        reason = xstrdup("Terminating");
                }
        }

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(pod, "metadata.name"), "")));
        (void) snprintf(buf, sizeof(buf), "%zu/%zu", ready, total);
        json_array_append_new(cells, json_string(buf));
        json_array_append_new(cells, json_string(reason));
        if (restarts != 0 && last_restart) {
                char ago[32];
                time_format_age(now, last_restart, ago);
                (void) snprintf(buf, sizeof(buf), "%ld (%s ago)", restarts, ago);
        } else {
                (void) snprintf(buf, sizeof(buf), "%ld", restarts);
        }
        json_array_append_new(cells, json_string(buf));
        age_since(json_path_string(pod, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));

        {
                const char *ip = json_string_value(json_object_get(
                        json_array_get(json_object_get(status, "podIPs"), 0), "ip"));
                const json_t *gates = json_path(pod, "spec.readinessGates");

                json_array_append_new(cells, json_string(str_or(ip, "<none>")));
                json_array_append_new(
                        cells,
                        json_string(str_or(json_path_string(pod, "spec.nodeName"), "<none>")));
                json_array_append_new(cells,
                                      json_string(str_or(json_string_value(json_object_get(
                                                                 status, "nominatedNodeName")),
                                                         "<none>")));
                if (json_array_size(gates) > 0) {
                        size_t t = 0;
                        json_array_foreach(gates, i, c) {
                                const char *ct =
                                        json_string_value(json_object_get(c, "conditionType"));
                                if (ct &&
                                    has_condition_true(json_object_get(status, "conditions"), ct))
                                        t++;
                        }
                        (void) snprintf(buf, sizeof(buf), "%zu/%zu", t, json_array_size(gates));
                        json_array_append_new(cells, json_string(buf));
                } else {
                        json_array_append_new(cells, json_string("<none>"));
                }
        }
}

void namespace_table_row(const json_t *ns, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(ns, "metadata.name"), "")));
        json_array_append_new(cells, json_string(str_or(json_path_string(ns, "status.phase"), "")));
        age_since(json_path_string(ns, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* K8S: findNodeRoles: node-role.kubernetes.io/<role> labels and kubernetes.io/role. */
static char *node_roles(const json_t *labels)
{
        const char *key;
        json_t *v;
        const char *roles[64];
        size_t n = 0;
        struct strbuf sb;

        json_object_foreach((json_t *) labels, key, v) {
                if (n == ARRAY_SIZE(roles))
                        break;
                if (strncmp(key, "node-role.kubernetes.io/", 24) == 0 && key[24])
                        roles[n++] = key + 24;
                else if (streq(key, "kubernetes.io/role") && json_string_value(v) &&
                         *json_string_value(v))
                        roles[n++] = json_string_value(v);
        }
        if (!n)
                return xstrdup("<none>");
        qsort(roles, n, sizeof(roles[0]), cmp_str);
        strbuf_init(&sb);
        for (size_t i = 0; i < n; i++) {
                if (i && streq(roles[i], roles[i - 1]))
                        continue;
                if (sb.len)
                        strbuf_addch(&sb, ',');
                strbuf_addstr(&sb, roles[i]);
        }
        return strbuf_detach(&sb);
}

static const char *node_address(const json_t *node, const char *type)
{
        size_t i;
        json_t *a;

        json_array_foreach(json_path(node, "status.addresses"), i, a) {
                const char *t = json_string_value(json_object_get(a, "type"));
                if (t && streq(t, type))
                        return json_string_value(json_object_get(a, "address"));
        }
        return NULL;
}

/* K8S: printNode. */
void node_table_row(const json_t *node, time_t now, json_t *cells)
{
        const char *ready = NULL;
        cleanup_free char *roles = node_roles(json_path(node, "metadata.labels"));
        struct strbuf st;
        char age[32];
        size_t i;
        json_t *c;

        json_array_foreach(json_path(node, "status.conditions"), i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                if (t && streq(t, "Ready"))
                        ready = json_string_value(json_object_get(c, "status"));
        }
        strbuf_init(&st);
        if (ready && streq(ready, "True"))
                strbuf_addstr(&st, "Ready");
        else if (ready && streq(ready, "False"))
                strbuf_addstr(&st, "NotReady");
        else
                strbuf_addstr(&st, "Unknown");
        if (json_is_true(json_path(node, "spec.unschedulable")))
                strbuf_addstr(&st, ",SchedulingDisabled");

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(node, "metadata.name"), "")));
        json_array_append_new(cells, json_string(st.buf));
        json_array_append_new(cells, json_string(roles));
        age_since(json_path_string(node, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        json_array_append_new(
                cells,
                json_string(str_or(json_path_string(node, "status.nodeInfo.kubeletVersion"), "")));
        json_array_append_new(cells,
                              json_string(str_or(node_address(node, "InternalIP"), "<none>")));
        json_array_append_new(cells,
                              json_string(str_or(node_address(node, "ExternalIP"), "<none>")));
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(node, "status.nodeInfo.osImage"),
                                                 "<unknown>")));
        json_array_append_new(
                cells, json_string(str_or(json_path_string(node, "status.nodeInfo.kernelVersion"),
                                          "<unknown>")));
        json_array_append_new(
                cells, json_string(str_or(
                               json_path_string(node, "status.nodeInfo.containerRuntimeVersion"),
                               "<unknown>")));
        strbuf_release(&st);
}

/* K8S: printEvent. */
void event_table_row(const json_t *ev, time_t now, json_t *cells)
{
        char first[32], last[32];
        json_int_t count = json_integer_value(json_object_get(ev, "count"));
        const char *kind = str_or(json_path_string(ev, "involvedObject.kind"), "");
        const char *name = json_path_string(ev, "involvedObject.name");
        const char *component =
                str_or(json_path_string(ev, "source.component"),
                       json_string_value(json_object_get(ev, "reportingComponent")));
        const char *instance = str_or(json_path_string(ev, "source.host"),
                                      json_string_value(json_object_get(ev, "reportingInstance")));
        cleanup_free char *target = NULL, *source = NULL, *message = NULL;
        const char *msg = str_or(json_string_value(json_object_get(ev, "message")), "");
        size_t mlen;

        age_since(json_string_value(json_object_get(ev, "firstTimestamp"))
                          ? json_string_value(json_object_get(ev, "firstTimestamp"))
                          : json_string_value(json_object_get(ev, "eventTime")),
                  now, first);
        if (json_string_value(json_object_get(ev, "lastTimestamp")))
                age_since(json_string_value(json_object_get(ev, "lastTimestamp")), now, last);
        else
                memcpy(last, first, sizeof(last));
        if (json_path(ev, "series")) {
                age_since(json_path_string(ev, "series.lastObservedTime"), now, last);
                count = json_integer_value(json_path(ev, "series.count"));
        } else if (count == 0) {
                count = 1;
        }
        target = xstrdup(kind);
        for (char *p = target; *p; p++)
                *p = (char) (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        if (name && *name) {
                char *t = xasprintf("%s/%s", target, name);
                free(target);
                target = t;
        }
        source = instance && *instance ? xasprintf("%s, %s", str_or(component, ""), instance)
                                       : xstrdup(str_or(component, ""));
        while (*msg == ' ' || *msg == '\n' || *msg == '\t')
                msg++;
        mlen = strlen(msg);
        while (mlen && (msg[mlen - 1] == ' ' || msg[mlen - 1] == '\n' || msg[mlen - 1] == '\t'))
                mlen--;
        message = xstrndup(msg, mlen);

        json_array_append_new(cells, json_string(last));
        json_array_append_new(
                cells, json_string(str_or(json_string_value(json_object_get(ev, "type")), "")));
        json_array_append_new(
                cells, json_string(str_or(json_string_value(json_object_get(ev, "reason")), "")));
        json_array_append_new(cells, json_string(target));
        json_array_append_new(
                cells, json_string(str_or(json_path_string(ev, "involvedObject.fieldPath"), "")));
        json_array_append_new(cells, json_string(source));
        json_array_append_new(cells, json_string(message));
        json_array_append_new(cells, json_string(first));
        json_array_append_new(cells, json_integer(count));
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(ev, "metadata.name"), "")));
}

/* ---- storage ---- */

/* The same shortened ObjectMeta descriptions the other kinds' columns carry. */
#define NAME_DESCRIPTION "Name must be unique within a namespace."
#define AGE_DESCRIPTION \
 "CreationTimestamp is a timestamp representing the server time when this object was created."

const struct table_column storage_class_columns[STORAGE_CLASS_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Provisioner", "string", "", "provisioner indicates the type of the provisioner.", 0 },
        { "ReclaimPolicy", "string", "",
          "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
          0 },
        { "VolumeBindingMode", "string", "",
          "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
          0 },
        { "AllowVolumeExpansion", "string", "",
          "allowVolumeExpansion shows whether the storage class allow volume expand.", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

const struct table_column persistent_volume_columns[PERSISTENT_VOLUME_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Capacity", "string", "",
          "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
          0 },
        { "Access Modes", "string", "",
          "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
          0 },
        { "Reclaim Policy", "string", "",
          "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
          0 },
        { "Status", "string", "",
          "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
          0 },
        { "Claim", "string", "",
          "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
          0 },
        { "StorageClass", "string", "", "StorageClass of the pv", 0 },
        { "VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0 },
        { "Reason", "string", "",
          "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "VolumeMode", "string", "",
          "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
          1 },
};

const struct table_column persistent_volume_claim_columns[PERSISTENT_VOLUME_CLAIM_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.",
          0 },
        { "Volume", "string", "",
          "volumeName is the binding reference to the PersistentVolume backing this claim.", 0 },
        { "Capacity", "string", "",
          "capacity represents the actual resources of the underlying volume.", 0 },
        { "Access Modes", "string", "",
          "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
          0 },
        { "StorageClass", "string", "", "StorageClass of the pvc", 0 },
        { "VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "VolumeMode", "string", "",
          "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
          1 },
};

/* K8S: GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
static char *access_modes_string(const json_t *modes)
{
        static const struct {
                const char *mode, *abbrev;
        } order[] = { { "ReadWriteOnce", "RWO" },
                      { "ReadOnlyMany", "ROX" },
                      { "ReadWriteMany", "RWX" },
                      { "ReadWriteOncePod", "RWOP" } };
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
                size_t j;
                json_t *m;
                json_array_foreach(modes, j, m) {
                        if (json_is_string(m) && streq(json_string_value(m), order[i].mode)) {
                                strbuf_addf(&sb, "%s%s", sb.len ? "," : "", order[i].abbrev);
                                break;
                        }
                }
        }
        return strbuf_detach(&sb);
}

/* The String() of a stored quantity ("0" when absent: the zero Quantity). */
static const char *quantity_cell(const json_t *v)
{
        return json_is_string(v) ? json_string_value(v) : "0";
}

/* K8S: printStorageClass (1.33: every default-annotated class says "(default)"). */
void storage_class_table_row(const json_t *sc, time_t now, json_t *cells)
{
        const char *name = str_or(json_path_string(sc, "metadata.name"), "");
        const json_t *expand = json_object_get(sc, "allowVolumeExpansion");
        char age[32];

        json_array_append_new(cells, storage_class_is_default(sc)
                                             ? json_sprintf("%s (default)", name)
                                             : json_string(name));
        json_array_append_new(
                cells,
                json_string(str_or(json_string_value(json_object_get(sc, "provisioner")), "")));
        json_array_append_new(
                cells,
                json_string(json_string_value(json_object_get(sc, "reclaimPolicy")) ?: "Delete"));
        json_array_append_new(
                cells, json_string(json_string_value(json_object_get(sc, "volumeBindingMode"))
                                           ?: "Immediate"));
        json_array_append_new(cells, json_boolean(json_is_true(expand)));
        age_since(json_path_string(sc, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* K8S: printPersistentVolume */
void persistent_volume_table_row(const json_t *pv, time_t now, json_t *cells)
{
        const char *claim_ns = json_path_string(pv, "spec.claimRef.namespace");
        const char *claim_name = json_path_string(pv, "spec.claimRef.name");
        const char *phase = str_or(json_path_string(pv, "status.phase"), "");
        const char *vac = json_path_string(pv, "spec.volumeAttributesClassName");
        const char *mode = json_path_string(pv, "spec.volumeMode");
        cleanup_free char *modes = access_modes_string(json_path(pv, "spec.accessModes"));
        char age[32];

        if (json_path(pv, "metadata.deletionTimestamp"))
                phase = "Terminating";
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(pv, "metadata.name"), "")));
        json_array_append_new(cells,
                              json_string(quantity_cell(json_path(pv, "spec.capacity.storage"))));
        json_array_append_new(cells, json_string(modes));
        json_array_append_new(
                cells, json_string(str_or(
                               json_path_string(pv, "spec.persistentVolumeReclaimPolicy"), "")));
        json_array_append_new(cells, json_string(phase));
        json_array_append_new(
                cells, json_path(pv, "spec.claimRef")
                               ? json_sprintf("%s/%s", str_or(claim_ns, ""), str_or(claim_name, ""))
                               : json_string(""));
        json_array_append_new(cells, json_string(pv_storage_class(pv)));
        json_array_append_new(cells, json_string(vac ? vac : "<unset>"));
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(pv, "status.reason"), "")));
        age_since(json_path_string(pv, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        json_array_append_new(cells, json_string(mode ? mode : "<unset>"));
}

/* K8S: printPersistentVolumeClaim: capacity and access modes only once bound to a volume. */
void persistent_volume_claim_table_row(const json_t *pvc, time_t now, json_t *cells)
{
        const char *phase = str_or(json_path_string(pvc, "status.phase"), "");
        const char *volume = str_or(json_path_string(pvc, "spec.volumeName"), "");
        const char *vac = json_path_string(pvc, "spec.volumeAttributesClassName");
        const char *mode = json_path_string(pvc, "spec.volumeMode");
        cleanup_free char *modes = NULL;
        char age[32];

        if (json_path(pvc, "metadata.deletionTimestamp"))
                phase = "Terminating";
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(pvc, "metadata.name"), "")));
        json_array_append_new(cells, json_string(phase));
        json_array_append_new(cells, json_string(volume));
        if (volume[0]) {
                modes = access_modes_string(json_path(pvc, "status.accessModes"));
                json_array_append_new(cells, json_string(quantity_cell(
                                                     json_path(pvc, "status.capacity.storage"))));
                json_array_append_new(cells, json_string(modes));
        } else {
                json_array_append_new(cells, json_string(""));
                json_array_append_new(cells, json_string(""));
        }
        json_array_append_new(cells, json_string(pvc_storage_class(pvc)));
        json_array_append_new(cells, json_string(vac ? vac : "<unset>"));
        age_since(json_path_string(pvc, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        json_array_append_new(cells, json_string(mode ? mode : "<unset>"));
}

static json_t *partial_metadata(const json_t *obj)
{
        return json_pack("{s:s, s:s, s:O}", "kind", "PartialObjectMetadata", "apiVersion",
                         "meta.k8s.io/v1", "metadata", json_object_get(obj, "metadata"));
}

json_t *table_build(const struct api_resource *r, const json_t *items, bool with_columns,
                    enum table_include include, const char *rv)
{
        json_t *table = json_pack("{s:s, s:s, s:{}}", "kind", "Table", "apiVersion",
                                  "meta.k8s.io/v1", "metadata");
        json_t *rows = json_array();
        time_t now = time(NULL);
        size_t i;
        json_t *obj;

        if (rv)
                json_object_set_new(json_object_get(table, "metadata"), "resourceVersion",
                                    json_string(rv));
        if (with_columns) {
                json_t *cols = json_array();
                for (size_t c = 0; c < r->n_columns; c++)
                        json_array_append_new(cols, json_pack("{s:s, s:s, s:s, s:s, s:i}", "name",
                                                              r->columns[c].name, "type",
                                                              r->columns[c].type, "format",
                                                              r->columns[c].format, "description",
                                                              r->columns[c].description, "priority",
                                                              r->columns[c].priority));
                json_object_set_new(table, "columnDefinitions", cols);
        } else {
                json_object_set_new(table, "columnDefinitions", json_null());
        }
        json_array_foreach(items, i, obj) {
                json_t *cells = json_array();
                json_t *row;

                r->table_row(obj, now, cells);
                row = json_pack("{s:o}", "cells", cells);
                if (include == TABLE_INCLUDE_METADATA)
                        json_object_set_new(row, "object", partial_metadata(obj));
                else if (include == TABLE_INCLUDE_OBJECT)
                        json_object_set_new(row, "object", json_deep_copy(obj));
                json_array_append_new(rows, row);
        }
        json_object_set_new(table, "rows", rows);
        return table;
}

/* K8S: configMapColumnDefinitions, printConfigMap: DATA counts data and binaryData keys. */
const struct table_column config_map_columns[CONFIG_MAP_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Data", "string", "",
          "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

void config_map_table_row(const json_t *cm, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(cm, "metadata.name"), "")));
        json_array_append_new(
                cells,
                json_integer((json_int_t) (json_object_size(json_object_get(cm, "data")) +
                                           json_object_size(json_object_get(cm, "binaryData")))));
        age_since(json_path_string(cm, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* K8S: secretColumnDefinitions, printSecret */
const struct table_column secret_columns[SECRET_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Type", "string", "",
          "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
          0 },
        { "Data", "string", "",
          "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

void secret_table_row(const json_t *secret, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(secret, "metadata.name"), "")));
        json_array_append_new(cells, json_string(str_or(json_path_string(secret, "type"), "")));
        json_array_append_new(cells, json_integer((json_int_t) json_object_size(
                                             json_object_get(secret, "data"))));
        age_since(json_path_string(secret, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* K8S: serviceAccountColumnDefinitions, printServiceAccount */
const struct table_column service_account_columns[SERVICE_ACCOUNT_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Secrets", "string", "",
          "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

void service_account_table_row(const json_t *sa, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(sa, "metadata.name"), "")));
        json_array_append_new(
                cells, json_integer((json_int_t) json_array_size(json_object_get(sa, "secrets"))));
        age_since(json_path_string(sa, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* K8S: limitRangeColumnDefinitions, printLimitRange: the creation time in RFC 3339, UTC. */
const struct table_column limit_range_columns[LIMIT_RANGE_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Created At", "date", "", AGE_DESCRIPTION, 0 },
};

void limit_range_table_row(const json_t *lr, time_t now, json_t *cells)
{
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(lr, "metadata.name"), "")));
        json_array_append_new(
                cells, json_string(str_or(json_path_string(lr, "metadata.creationTimestamp"), "")));
}

/* K8S: resourceQuotaColumnDefinitions, printResourceQuota */
const struct table_column resource_quota_columns[RESOURCE_QUOTA_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Request", "string", "",
          "Request represents a minimum amount of cpu/memory that a container may consume.", 0 },
        { "Limit", "string", "",
          "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
          0 },
};

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S: each resource of spec.hard, sorted, as "name: used/hard" (from status; an absent value
 * prints as the zero quantity "0"), limits.* ones in LIMIT and the rest in REQUEST. */
void resource_quota_table_row(const json_t *rq, time_t now, json_t *cells)
{
        const json_t *hard = json_path(rq, "spec.hard");
        const json_t *st_hard = json_path(rq, "status.hard");
        const json_t *st_used = json_path(rq, "status.used");
        cleanup_free const char **names = xcalloc(json_object_size(hard) + 1, sizeof(*names));
        struct strbuf req, lim;
        const char *name;
        size_t n = 0;
        json_t *v;
        char age[32];

        json_object_foreach((json_t *) hard, name, v) {
                names[n++] = name;
        }
        qsort(names, n, sizeof(*names), cmp_names);
        strbuf_init(&req);
        strbuf_init(&lim);
        for (size_t i = 0; i < n; i++) {
                struct strbuf *w = strncmp(names[i], "limits.", 7) == 0 ? &lim : &req;
                strbuf_addf(w, "%s%s: %s/%s", w->len ? ", " : "", names[i],
                            str_or(json_string_value(json_object_get(st_used, names[i])), "0"),
                            str_or(json_string_value(json_object_get(st_hard, names[i])), "0"));
        }
        json_array_append_new(cells,
                              json_string(str_or(json_path_string(rq, "metadata.name"), "")));
        age_since(json_path_string(rq, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        json_array_append_new(cells, json_string(req.buf));
        json_array_append_new(cells, json_string(lim.buf));
        strbuf_release(&req);
        strbuf_release(&lim);
}

/* K8S: podDisruptionBudgetColumnDefinitions, printPodDisruptionBudget: an unset bound is
 * "N/A", a set one IntOrString.String() (the integer or the percentage). */
const struct table_column pod_disruption_budget_columns[POD_DISRUPTION_BUDGET_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Min Available", "string", "", "The minimum number of pods that must be available.", 0 },
        { "Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.",
          0 },
        { "Allowed Disruptions", "integer", "",
          "Calculated number of pods that may be disrupted at this time.", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

static json_t *int_or_string_cell(const json_t *v)
{
        if (json_is_integer(v))
                return json_sprintf("%lld", (long long) json_integer_value(v));
        if (json_is_string(v))
                return json_string(json_string_value(v));
        return json_string("N/A");
}

void pod_disruption_budget_table_row(const json_t *pdb, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(pdb, "metadata.name"), "")));
        json_array_append_new(cells, int_or_string_cell(json_path(pdb, "spec.minAvailable")));
        json_array_append_new(cells, int_or_string_cell(json_path(pdb, "spec.maxUnavailable")));
        json_array_append_new(cells, json_integer(json_integer_value(
                                             json_path(pdb, "status.disruptionsAllowed"))));
        age_since(json_path_string(pdb, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* K8S: leaseColumnDefinitions, printLease: an unset holder is "". */
const struct table_column lease_columns[LEASE_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Holder", "string", "",
          "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
          "Leader Election is used, the holder identity must be equal to the elected "
          "LeaseCandidate.metadata.name field.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
};

void lease_table_row(const json_t *lease, time_t now, json_t *cells)
{
        char age[32];

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(lease, "metadata.name"), "")));
        json_array_append_new(
                cells, json_string(str_or(json_path_string(lease, "spec.holderIdentity"), "")));
        age_since(json_path_string(lease, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
}

/* ---- apps (K8S: printDeployment, printReplicaSet) ---- */

#define CONTAINERS_DESCRIPTION "Names of each container in the template."
#define IMAGES_DESCRIPTION     "Images referenced by each container in the template."
#define SELECTOR_DESCRIPTION                                                                  \
 "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the " \
 "ones affected by this deployment."

const struct table_column deployment_columns[DEPLOYMENT_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Ready", "string", "", "Number of the pod with ready state", 0 },
        { "Up-to-date", "integer", "",
          "Total number of non-terminated pods targeted by this deployment that have the "
          "desired template spec.",
          0 },
        { "Available", "integer", "",
          "Total number of available pods (ready for at least minReadySeconds) targeted by "
          "this deployment.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Containers", "string", "", CONTAINERS_DESCRIPTION, 1 },
        { "Images", "string", "", IMAGES_DESCRIPTION, 1 },
        { "Selector", "string", "", SELECTOR_DESCRIPTION, 1 },
};

const struct table_column replica_set_columns[REPLICA_SET_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Desired", "integer", "", "Number of desired pods.", 0 },
        { "Current", "integer", "", "Replicas is the most recently observed number of replicas.",
          0 },
        { "Ready", "integer", "", "The number of ready replicas for this replica set.", 0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Containers", "string", "", CONTAINERS_DESCRIPTION, 1 },
        { "Images", "string", "", IMAGES_DESCRIPTION, 1 },
        { "Selector", "string", "", SELECTOR_DESCRIPTION, 1 },
};

static long long int_at(const json_t *obj, const char *path)
{
        return (long long) json_integer_value(json_path(obj, path));
}

/* K8S: layoutContainerCells: the template's container names and images, comma-joined, then
 * the selector's String(). */
static void template_cells(const json_t *obj, json_t *cells)
{
        struct strbuf names, images;
        cleanup_free char *sel = label_selector_object_to_string(json_path(obj, "spec.selector"));
        size_t i;
        json_t *c;

        strbuf_init(&names);
        strbuf_init(&images);
        json_array_foreach(json_path(obj, "spec.template.spec.containers"), i, c) {
                strbuf_addf(&names, "%s%s", i ? "," : "",
                            str_or(json_string_value(json_object_get(c, "name")), ""));
                strbuf_addf(&images, "%s%s", i ? "," : "",
                            str_or(json_string_value(json_object_get(c, "image")), ""));
        }
        json_array_append_new(cells, json_string(names.buf));
        json_array_append_new(cells, json_string(images.buf));
        json_array_append_new(cells, json_string(sel));
        strbuf_release(&names);
        strbuf_release(&images);
}

void deployment_table_row(const json_t *d, time_t now, json_t *cells)
{
        char age[32];
        long long desired = json_path(d, "spec.replicas") ? int_at(d, "spec.replicas") : 1;

        json_array_append_new(cells, json_string(str_or(json_path_string(d, "metadata.name"), "")));
        json_array_append_new(
                cells, json_sprintf("%lld/%lld", int_at(d, "status.readyReplicas"), desired));
        json_array_append_new(cells, json_integer(int_at(d, "status.updatedReplicas")));
        json_array_append_new(cells, json_integer(int_at(d, "status.availableReplicas")));
        age_since(json_path_string(d, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        template_cells(d, cells);
}

void replica_set_table_row(const json_t *rs, time_t now, json_t *cells)
{
        char age[32];
        long long desired = json_path(rs, "spec.replicas") ? int_at(rs, "spec.replicas") : 1;

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(rs, "metadata.name"), "")));
        json_array_append_new(cells, json_integer(desired));
        json_array_append_new(cells, json_integer(int_at(rs, "status.replicas")));
        json_array_append_new(cells, json_integer(int_at(rs, "status.readyReplicas")));
        age_since(json_path_string(rs, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        template_cells(rs, cells);
}

const struct table_column daemon_set_columns[DAEMON_SET_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Desired", "integer", "",
          "The total number of nodes that should be running the daemon pod (including nodes "
          "correctly running the daemon pod).",
          0 },
        { "Current", "integer", "",
          "The number of nodes that are running at least 1 daemon pod and are supposed to run "
          "the daemon pod.",
          0 },
        { "Ready", "integer", "",
          "numberReady is the number of nodes that should be running the daemon pod and have "
          "one or more of the daemon pod running with a Ready Condition.",
          0 },
        { "Up-to-date", "integer", "",
          "The total number of nodes that are running updated daemon pod", 0 },
        { "Available", "integer", "",
          "The number of nodes that should be running the daemon pod and have one or more of "
          "the daemon pod running and available (ready for at least spec.minReadySeconds)",
          0 },
        { "Node Selector", "string", "",
          "NodeSelector is a selector which must be true for the pod to fit on a node. "
          "Selector which must match a node's labels for the pod to be scheduled on that node.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Containers", "string", "", CONTAINERS_DESCRIPTION, 1 },
        { "Images", "string", "", IMAGES_DESCRIPTION, 1 },
        { "Selector", "string", "",
          "A label query over pods that are managed by the daemon set. Must match in order to "
          "be controlled. It must match the pod template's labels.",
          1 },
};

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S: labels.FormatLabels: "k=v" pairs sorted by key, comma-joined; "<none>" when empty. */
static char *format_labels(const json_t *m)
{
        size_t n = json_object_size(m), i = 0;
        const char **keys;
        struct strbuf sb;
        const char *k;
        json_t *v;

        if (!n)
                return xstrdup("<none>");
        keys = xcalloc(n, sizeof(*keys));
        json_object_foreach((json_t *) m, k, v) {
                keys[i++] = k;
        }
        qsort(keys, n, sizeof(*keys), cmp_cstr);
        strbuf_init(&sb);
        for (i = 0; i < n; i++)
                strbuf_addf(&sb, "%s%s=%s", i ? "," : "", keys[i],
                            str_or(json_string_value(json_object_get(m, keys[i])), ""));
        free(keys);
        return strbuf_detach(&sb);
}

void daemon_set_table_row(const json_t *ds, time_t now, json_t *cells)
{
        char age[32];
        cleanup_free char *node_sel =
                format_labels(json_path(ds, "spec.template.spec.nodeSelector"));

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(ds, "metadata.name"), "")));
        json_array_append_new(cells, json_integer(int_at(ds, "status.desiredNumberScheduled")));
        json_array_append_new(cells, json_integer(int_at(ds, "status.currentNumberScheduled")));
        json_array_append_new(cells, json_integer(int_at(ds, "status.numberReady")));
        json_array_append_new(cells, json_integer(int_at(ds, "status.updatedNumberScheduled")));
        json_array_append_new(cells, json_integer(int_at(ds, "status.numberAvailable")));
        json_array_append_new(cells, json_string(node_sel));
        age_since(json_path_string(ds, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        template_cells(ds, cells);
}

/* K8S: roleColumnDefinitions, printRole and printClusterRole: the name and the creation time
 * (convertToHumanReadableDateType: RFC 3339 in UTC, "<unknown>" when unset). */
const struct table_column role_columns[ROLE_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Created At", "date", "", AGE_DESCRIPTION, 0 },
};

void role_table_row(const json_t *role, time_t now, json_t *cells)
{
        const char *created = json_path_string(role, "metadata.creationTimestamp");

        json_array_append_new(cells,
                              json_string(str_or(json_path_string(role, "metadata.name"), "")));
        json_array_append_new(cells, json_string(created && created[0] ? created : "<unknown>"));
}

/* K8S: roleBindingsColumnDefinitions, printRoleBinding and printClusterRoleBinding: the role
 * as Kind/name, and with -o wide the subjects by kind (rbac.SubjectsStrings: a service account
 * as namespace/name), each list joined with ", ". */
const struct table_column role_binding_columns[ROLE_BINDING_COLUMNS] = {
        { "Name", "string", "name", NAME_DESCRIPTION, 0 },
        { "Role", "string", "",
          "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
          "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
          0 },
        { "Age", "string", "", AGE_DESCRIPTION, 0 },
        { "Users", "string", "", "Users in the roleBinding", 1 },
        { "Groups", "string", "", "Groups in the roleBinding", 1 },
        { "ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding", 1 },
};

void role_binding_table_row(const json_t *b, time_t now, json_t *cells)
{
        struct strbuf users, groups, sas;
        char age[32];
        size_t i;
        json_t *s;

        strbuf_init(&users);
        strbuf_init(&groups);
        strbuf_init(&sas);
        json_array_append_new(cells, json_string(str_or(json_path_string(b, "metadata.name"), "")));
        json_array_append_new(cells,
                              json_sprintf("%s/%s", str_or(json_path_string(b, "roleRef.kind"), ""),
                                           str_or(json_path_string(b, "roleRef.name"), "")));
        age_since(json_path_string(b, "metadata.creationTimestamp"), now, age);
        json_array_append_new(cells, json_string(age));
        json_array_foreach(json_object_get(b, "subjects"), i, s) {
                const char *kind = str_or(json_path_string(s, "kind"), "");
                const char *name = str_or(json_path_string(s, "name"), "");
                struct strbuf *to = streq(kind, "User")             ? &users
                                    : streq(kind, "Group")          ? &groups
                                    : streq(kind, "ServiceAccount") ? &sas
                                                                    : NULL;

                if (!to)
                        continue;
                if (to->len)
                        strbuf_addstr(to, ", ");
                if (to == &sas)
                        strbuf_addf(to, "%s/", str_or(json_path_string(s, "namespace"), ""));
                strbuf_addstr(to, name);
        }
        json_array_append_new(cells, json_string(users.buf));
        json_array_append_new(cells, json_string(groups.buf));
        json_array_append_new(cells, json_string(sas.buf));
        strbuf_release(&users);
        strbuf_release(&groups);
        strbuf_release(&sas);
}
