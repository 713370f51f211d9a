/* pod-status.c: the kubelet's status rules (generateAPIPodStatus, getPhase, the condition
 * generators of pkg/kubelet/status) over the node's observations. Pure: the agent observes,
 * this file only describes. */
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "node/pod-status.h"

static const char *restart_policy(const json_t *pod)
{
        return json_path_string(pod, "spec.restartPolicy") ?: "Always";
}

static bool is_sidecar(const json_t *spec_container)
{
        const char *rp = json_string_value(json_object_get(spec_container, "restartPolicy"));
        return rp && streq(rp, "Always");
}

static json_t *ts(time_t t)
{
        char buf[32];

        if (!t)
                return json_null();
        time_format_rfc3339(t, buf);
        return json_string(buf);
}

/* K8S MaxPodTerminationMessageLogLength: what one pod's termination messages may hold; the
 * status manager's normalizeStatus cuts each state's message to this over the number of
 * (init) containers, keeping its start */
#define POD_TERMINATION_MESSAGE_MAX (12 * 1024)

static json_t *terminated_json(const struct container_termination *t, const char *cid,
                               size_t msg_max)
{
        json_t *o = json_pack("{s:i, s:s, s:o, s:o}", "exitCode", t->exit_code, "reason",
                              t->reason ?: (t->exit_code ? "Error" : "Completed"), "startedAt",
                              ts(t->started_at), "finishedAt", ts(t->finished_at));

        if (t->signal)
                json_object_set_new(o, "signal", json_integer(t->signal));
        if (t->message && *t->message) {
                /* cut inside a character, the rest of it reads as U+FFFD, as Go encodes it */
                size_t n = strlen(t->message);
                struct strbuf sb;

                strbuf_init(&sb);
                utf8_append_valid(&sb, t->message, n > msg_max ? msg_max : n);
                json_object_set_new(o, "message", json_stringn(sb.buf, sb.len));
                strbuf_release(&sb);
        }
        if (cid)
                json_object_set_new(o, "containerID", json_string(cid));
        return o;
}

static json_t *container_status(const json_t *spec, const struct container_observation *c,
                                const json_t *volume_sizes, size_t msg_max)
{
        json_t *st = json_object(), *state, *last = json_object();
        bool running = c->phase == CONTAINER_RUNNING;

        switch (c->phase) {
        case CONTAINER_RUNNING:
                state = json_pack("{s:{s:o}}", "running", "startedAt", ts(c->started_at));
                break;
        case CONTAINER_TERMINATED:
                state = json_pack("{s:o}", "terminated",
                                  terminated_json(&c->current, c->container_id, msg_max));
                break;
        case CONTAINER_WAITING:
        case CONTAINER_PHASE_MAX:
        default:
                state = json_pack("{s:{s:s}}", "waiting", "reason",
                                  c->waiting_reason ?: "ContainerCreating");
                if (c->waiting_message)
                        json_object_set_new(json_object_get(state, "waiting"), "message",
                                            json_string(c->waiting_message));
                break;
        }
        if (c->has_last)
                json_object_set_new(last, "terminated", terminated_json(&c->last, NULL, msg_max));
        json_object_set_new(st, "name", json_string(c->name));
        json_object_set_new(st, "state", state);
        json_object_set_new(st, "lastState", last);
        /* K8S: ready and started as the probes say (no probe: running is both) */
        json_object_set_new(st, "ready", json_boolean(running && !c->unready));
        json_object_set_new(st, "restartCount", json_integer(c->restart_count));
        json_object_set_new(st, "image",
                            json_string(json_string_value(json_object_get(spec, "image")) ?: ""));
        json_object_set_new(st, "imageID", json_string(c->image_id ?: ""));
        if (c->container_id)
                json_object_set_new(st, "containerID", json_string(c->container_id));
        json_object_set_new(st, "started", json_boolean(running && !c->not_started));
        if (c->allocated)
                json_object_set(st, "allocatedResources", (json_t *) c->allocated);
        if (c->resources)
                json_object_set(st, "resources", (json_t *) c->resources);
        {
                json_t *mounts = json_array();
                size_t i;
                json_t *m;
                json_array_foreach(json_object_get(spec, "volumeMounts"), i, m) {
                        json_t *vm = json_pack(
                                "{s:s, s:s}", "name",
                                json_string_value(json_object_get(m, "name")) ?: "", "mountPath",
                                json_string_value(json_object_get(m, "mountPath")) ?: "");
                        const json_t *size = json_object_get(
                                volume_sizes, json_string_value(json_object_get(m, "name")) ?: "");
                        if (json_is_true(json_object_get(m, "readOnly"))) {
                                json_object_set_new(vm, "readOnly", json_true());
                                json_object_set_new(vm, "recursiveReadOnly",
                                                    json_string("Disabled"));
                        }
                        if (size)
                                json_object_set_new(
                                        vm, "volumeStatus",
                                        json_pack("{s:{s:O}}", "emptyDir", "sizeLimit", size));
                        json_array_append_new(mounts, vm);
                }
                if (json_array_size(mounts))
                        json_object_set_new(st, "volumeMounts", mounts);
                else
                        json_decref(mounts);
        }
        return st;
}

/* K8S: kubelet getPhase. */
static const char *pod_phase(const json_t *pod, const struct pod_observation *o)
{
        const char *rp = restart_policy(pod);
        const json_t *inits = json_path(pod, "spec.initContainers");
        unsigned pending_init = 0, failed_init = 0;
        unsigned unknown = 0, running = 0, waiting = 0, stopped = 0, succeeded = 0;

        for (size_t i = 0; i < o->n_init; i++) {
                const struct container_observation *c = &o->init[i];
                if (is_sidecar(json_array_get(inits, i))) {
                        if (c->phase != CONTAINER_RUNNING)
                                pending_init++;
                        continue;
                }
                if (c->phase == CONTAINER_RUNNING)
                        pending_init++;
                else if (c->phase == CONTAINER_TERMINATED)
                        failed_init += c->current.exit_code != 0;
                else if (c->has_last)
                        failed_init += c->last.exit_code != 0;
                else
                        pending_init++;
        }
        for (size_t i = 0; i < o->n_containers; i++) {
                const struct container_observation *c = &o->containers[i];
                if (c->phase == CONTAINER_RUNNING) {
                        running++;
                } else if (c->phase == CONTAINER_TERMINATED) {
                        stopped++;
                        succeeded += c->current.exit_code == 0;
                } else if (c->has_last) {
                        stopped++;
                } else if (c->container_id || c->waiting_reason) {
                        waiting++;
                } else {
                        unknown++;
                }
        }
        if (failed_init > 0 && streq(rp, "Never"))
                return "Failed";
        if (pending_init > 0 || waiting > 0)
                return "Pending";
        if (running > 0 && unknown == 0)
                return "Running";
        if (running == 0 && stopped > 0 && unknown == 0) {
                if (streq(rp, "Always"))
                        return "Running";
                if (stopped == succeeded)
                        return "Succeeded";
                if (streq(rp, "Never"))
                        return "Failed";
                return "Running";
        }
        return "Pending";
}

static json_t *condition(const json_t *old_status, const char *type, bool ok, const char *reason,
                         const char *message, time_t now)
{
        const char *status = ok ? "True" : "False";
        /* No lastProbeTime: the kubelet's is null, which a merge patch (as the API server
         * applies it, nulls pruned inside arrays too) stores as absent; writing it would make
         * every status differ from the stored one. */
        json_t *c = json_pack("{s:s, s:s}", "type", type, "status", status);
        time_t transition = now;
        size_t i;
        json_t *oc;

        json_array_foreach(json_object_get(old_status, "conditions"), i, oc) {
                const char *t = json_string_value(json_object_get(oc, "type"));
                const char *s = json_string_value(json_object_get(oc, "status"));
                time_t prev;
                if (t && s && streq(t, type) && streq(s, status) &&
                    time_parse_rfc3339(json_string_value(json_object_get(oc, "lastTransitionTime"))
                                               ?: "",
                                       &prev) == 0)
                        transition = prev;
        }
        json_object_set_new(c, "lastTransitionTime", ts(transition));
        if (!ok && reason)
                json_object_set_new(c, "reason", json_string(reason));
        if (!ok && message)
                json_object_set_new(c, "message", json_string(message));
        return c;
}

/* K8S (KEP-1287): PodResizePending and PodResizeInProgress, True while present, with the
 * generation they describe; the deprecated status.resize string for older clients. */
static void resize_conditions(const json_t *pod, const struct pod_observation *o,
                              const json_t *old_status, json_t *conds, json_t *status, time_t now)
{
        const json_t *gen = json_path(pod, "metadata.generation");
        json_t *c;

        if (o->resize_pending_reason) {
                c = condition(old_status, "PodResizePending", true, NULL, NULL, now);
                json_object_set_new(c, "reason", json_string(o->resize_pending_reason));
                if (o->resize_pending_message)
                        json_object_set_new(c, "message", json_string(o->resize_pending_message));
                if (gen)
                        json_object_set(c, "observedGeneration", (json_t *) gen);
                json_array_append_new(conds, c);
                json_object_set_new(status, "resize", json_string(o->resize_pending_reason));
        }
        if (o->resize_in_progress) {
                c = condition(old_status, "PodResizeInProgress", true, NULL, NULL, now);
                if (o->resize_error) {
                        json_object_set_new(c, "reason", json_string("Error"));
                        json_object_set_new(c, "message", json_string(o->resize_error));
                }
                if (gen)
                        json_object_set(c, "observedGeneration", (json_t *) gen);
                json_array_append_new(conds, c);
                if (!o->resize_pending_reason)
                        json_object_set_new(status, "resize", json_string("InProgress"));
        }
}

/* "containers with unready status: [a b]" style lists; NULL when none. */
static char *names_message(const char *prefix, struct strbuf *names)
{
        if (!names->len)
                return NULL;
        return xasprintf("%s: [%s]", prefix, names->buf);
}

json_t *pod_status_build(const json_t *pod, const struct pod_observation *o,
                         const json_t *old_status, time_t now)
{
        const json_t *spec_inits = json_path(pod, "spec.initContainers");
        const json_t *spec_containers = json_path(pod, "spec.containers");
        const char *phase = o->evicted_message ? "Failed" : pod_phase(pod, o);
        bool terminal = streq(phase, "Succeeded") || streq(phase, "Failed");
        struct strbuf not_init, not_ready;
        json_t *status = json_object(), *conds = json_array(), *inits = json_array(),
               *containers = json_array();
        cleanup_free char *init_msg = NULL, *ready_msg = NULL;
        size_t i, n_specs = json_array_size(spec_inits) + json_array_size(spec_containers);
        size_t msg_max = POD_TERMINATION_MESSAGE_MAX / (n_specs ? n_specs : 1);
        json_t *oc;

        strbuf_init(&not_init);
        strbuf_init(&not_ready);
        for (size_t k = 0; k < o->n_init; k++) {
                const struct container_observation *c = &o->init[k];
                const json_t *spec = json_array_get(spec_inits, k);
                bool done = is_sidecar(spec)
                                    ? c->phase == CONTAINER_RUNNING && !c->not_started
                                    : c->phase == CONTAINER_TERMINATED && c->current.exit_code == 0;
                if (!done)
                        strbuf_addf(&not_init, "%s%s", not_init.len ? " " : "", c->name);
                if (is_sidecar(spec) && (c->phase != CONTAINER_RUNNING || c->unready))
                        strbuf_addf(&not_ready, "%s%s", not_ready.len ? " " : "", c->name);
                json_array_append_new(inits,
                                      container_status(spec, c, o->memory_volume_sizes, msg_max));
        }
        for (size_t k = 0; k < o->n_containers; k++) {
                const struct container_observation *c = &o->containers[k];
                if (c->phase != CONTAINER_RUNNING || c->unready)
                        strbuf_addf(&not_ready, "%s%s", not_ready.len ? " " : "", c->name);
                json_array_append_new(containers,
                                      container_status(json_array_get(spec_containers, k), c,
                                                       o->memory_volume_sizes, msg_max));
        }
        init_msg = names_message("containers with incomplete status", &not_init);
        ready_msg = names_message("containers with unready status", &not_ready);

        json_array_foreach(json_object_get(old_status, "conditions"), i, oc) {
                const char *t = json_string_value(json_object_get(oc, "type"));
                if (t && streq(t, "PodScheduled"))
                        json_array_append(conds, oc);
        }
        if (o->evicted_message) {
                /* K8S: the kubelet's eviction adds DisruptionTarget (reason
                 * TerminationByKubelet) with the eviction message */
                json_t *dt = condition(old_status, "DisruptionTarget", true, NULL, NULL, now);
                json_object_set_new(dt, "reason", json_string("TerminationByKubelet"));
                json_object_set_new(dt, "message", json_string(o->evicted_message));
                json_array_append_new(conds, dt);
                json_object_set_new(status, "reason", json_string("Evicted"));
                json_object_set_new(status, "message", json_string(o->evicted_message));
        }
        json_array_append_new(conds, condition(old_status, "PodReadyToStartContainers",
                                               o->sandbox_ready, NULL, NULL, now));
        json_array_append_new(conds, condition(old_status, "Initialized", !not_init.len || terminal,
                                               "ContainersNotInitialized", init_msg, now));
        json_array_append_new(conds, condition(old_status, "Ready", !not_ready.len && !terminal,
                                               terminal ? "PodCompleted" : "ContainersNotReady",
                                               terminal ? NULL : ready_msg, now));
        json_array_append_new(conds,
                              condition(old_status, "ContainersReady", !not_ready.len && !terminal,
                                        terminal ? "PodCompleted" : "ContainersNotReady",
                                        terminal ? NULL : ready_msg, now));
        strbuf_release(&not_init);
        strbuf_release(&not_ready);
        resize_conditions(pod, o, old_status, conds, status, now);

        json_object_set_new(status, "phase", json_string(phase));
        json_object_set_new(status, "conditions", conds);
        if (o->host_ip) {
                json_object_set_new(status, "hostIP", json_string(o->host_ip));
                json_object_set_new(status, "hostIPs", json_pack("[{s:s}]", "ip", o->host_ip));
        }
        if (o->pod_ip) {
                json_object_set_new(status, "podIP", json_string(o->pod_ip));
                json_object_set_new(status, "podIPs", json_pack("[{s:s}]", "ip", o->pod_ip));
        } else if (json_is_string(json_object_get(old_status, "podIP"))) {
                /* K8S: the kubelet keeps the IP it reported while the pod terminates */
                json_object_set(status, "podIP", json_object_get(old_status, "podIP"));
                if (json_object_get(old_status, "podIPs"))
                        json_object_set(status, "podIPs", json_object_get(old_status, "podIPs"));
        }
        if (o->start_time)
                json_object_set_new(status, "startTime", ts(o->start_time));
        if (json_array_size(inits))
                json_object_set_new(status, "initContainerStatuses", inits);
        else
                json_decref(inits);
        json_object_set_new(status, "containerStatuses", containers);
        if (json_object_get(old_status, "qosClass"))
                json_object_set(status, "qosClass", json_object_get(old_status, "qosClass"));
        if (json_path(pod, "metadata.generation"))
                json_object_set(status, "observedGeneration",
                                json_path(pod, "metadata.generation"));
        return status;
}

static json_t *milli_cpu_json(int64_t milli)
{
        struct quantity q;
        cleanup_free char *s = NULL;

        quantity_from_milli(milli, QUANTITY_DECIMAL_SI, &q);
        s = quantity_format(&q);
        return json_string(s);
}

static json_t *bytes_json(int64_t bytes)
{
        struct quantity q;
        cleanup_free char *s = NULL;

        quantity_from_int64(bytes, QUANTITY_BINARY_SI, &q);
        s = quantity_format(&q);
        return json_string(s);
}

static int64_t milli_of(const json_t *list, const char *name)
{
        const char *v = json_string_value(json_object_get(list, name));
        struct quantity q;
        int64_t m = 0;

        if (v && quantity_parse(v, &q, NULL) >= 0)
                (void) quantity_milli_value(&q, &m);
        return m;
}

int64_t pod_status_cpu_shares_from_weight(const json_t *requests, int64_t weight)
{
        /* The kernel's value is the allocated one when it is its conversion: v1 holds the shares
         * exactly (cpu_shares_to_milli's ceiling gives the request back), v2 a cpu.weight that
         * many shares map to (100m: 102 shares, weight 17, whose smallest shares read 93m).
         * Upstream reports the allocated request then, on both versions. */
        if (json_object_get(requests, "cpu")) {
                int64_t want = cpu_milli_to_shares(milli_of(requests, "cpu"));
                if (cpu_shares_to_weight_oci(want) == weight)
                        return want;
        }
        return cpu_weight_to_shares_oci(weight);
}

json_t *pod_status_container_resources(const json_t *requests, const json_t *limits,
                                       const struct pod_cgroup_config *actual)
{
        json_t *out;

        if (!requests && !limits)
                return NULL;
        out = json_object();
        if (limits) {
                json_t *l = json_deep_copy(limits);
                int64_t quota_milli =
                        cpu_quota_to_milli(actual->cpu_quota_us, actual->cpu_period_us);

                if (json_object_get(limits, "cpu") && actual->cpu_quota_us > 0 &&
                    (quota_milli > CPU_MIN_MILLI_CPU_LIMIT ||
                     milli_of(limits, "cpu") > CPU_MIN_MILLI_CPU_LIMIT))
                        json_object_set_new(l, "cpu", milli_cpu_json(quota_milli));
                if (json_object_get(limits, "memory") && actual->memory_limit_bytes > 0)
                        json_object_set_new(l, "memory", bytes_json(actual->memory_limit_bytes));
                json_object_set_new(out, "limits", l);
        }
        if (requests) {
                json_t *r = json_deep_copy(requests);
                int64_t shares_milli = cpu_shares_to_milli(actual->cpu_shares);

                /* K8S: compares the millicores with MinShares, as upstream does */
                if (actual->cpu_shares > 0 &&
                    (shares_milli > CPU_MIN_SHARES || milli_of(requests, "cpu") > CPU_MIN_SHARES))
                        json_object_set_new(r, "cpu", milli_cpu_json(shares_milli));
                json_object_set_new(out, "requests", r);
        }
        return out;
}
