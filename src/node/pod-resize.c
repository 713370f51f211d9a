/* pod-resize.c: a pod's allocation and its in-place resize on this host (KEP-1287, KEP-6030):
 * the allocated and actuated checkpoints, admission of a changed spec, and actuation step by
 * step in the required order, each step recorded as it succeeds. The decisions are resize.c's;
 * this file does the I/O around them.
 *
 * Checkpoints, per pod (upstream keeps one file for every pod; one per pod keeps a write small
 * and lets the pod's folder own all of its state):
 *   DATA/pods/<uid>/allocated.slots resize.h's allocation (JSON), durable before anything of it
 *                                   is applied: a base/slot-file.h record, one data flush per
 *                                   write (a data folder of before it holds allocated.json,
 *                                   read once and moved into the slots)
 *   DATA/pods/<uid>/actuated.slots  resize.h's actuated state, rewritten once per plan, after
 *                                   its steps: a slot record left to the page cache (no
 *                                   flush): losing it, or the last plan's steps of it, only
 *                                   repeats idempotent steps (a power loss can leave it old or
 *                                   unreadable: read as absent, every step is repeated; a data
 *                                   folder of before holds actuated.json, moved in the same
 *                                   way) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/fault.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/quantity.h"
#include "base/slot-file.h"
#include "base/timeutil.h"
#include "node/cgroup/cgroup.h"
#include "node/node-metrics.h"
#include "node/pod-worker-internal.h"
#include "node/resize.h"
#include "node/volume/emptydir.h"
#include "node/volume/storage-metrics.h"

#define ALLOCATED_FILE        "allocated.slots"
#define ALLOCATED_LEGACY_FILE "allocated.json"
#define ACTUATED_FILE         "actuated.slots"
#define ACTUATED_LEGACY_FILE  "actuated.json"
/* a failed step is retried after 1 s, doubling to 30 s, until it succeeds or is superseded */
#define RESIZE_RETRY_INITIAL_S 1
#define RESIZE_RETRY_MAX_S     30

/* name's next record (*seq), data as JSON, as far as flush says. */
static int write_record(const struct pod_memory *p, const char *name, uint64_t *seq,
                        enum slot_file_flush flush, const json_t *data, struct error **reterr)
{
        cleanup_close int dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *s = json_dumps(data, JSON_COMPACT);
        int r;

        if (dfd < 0)
                return error_set(reterr, errno, "open %s: %m", p->dir);
        if (!s)
                return error_set(reterr, ENOMEM, "encode %s/%s", p->dir, name);
        r = slot_file_write(dfd, name, seq, s, strlen(s), flush);
        if (r < 0)
                return error_set(reterr, -r, "write %s/%s: %s", p->dir, name, strerror(-r));
        return 0;
}

/* name's newest record as JSON and its number (*seq); -ENOENT when there is none. A data folder
 * of before the slots holds the state as the JSON file legacy: it is read, written as the first
 * record and removed. -EBADMSG (error set) when neither slot is valid. */
static int read_record(struct pod_memory *p, const char *name, const char *legacy, uint64_t *seq,
                       enum slot_file_flush flush, json_t **ret, struct error **reterr)
{
        cleanup_close int dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *s = NULL;
        size_t len;
        int r;

        if (dfd < 0)
                return error_set(reterr, errno, "open %s: %m", p->dir);
        r = slot_file_read(dfd, name, &s, &len, seq);
        if (r == 0) {
                *ret = json_loadb(s, len, 0, NULL);
                return *ret ? 0 : error_set(reterr, EBADMSG, "%s/%s: not JSON", p->dir, name);
        }
        if (r != -ENOENT)
                return error_set(reterr, -r, "read %s/%s: %s", p->dir, name, strerror(-r));
        r = fs_read_json_at(dfd, legacy, ret);
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return error_set(reterr, -r, "read %s/%s: %s", p->dir, legacy, strerror(-r));
        r = write_record(p, name, seq, flush, *ret, reterr);
        if (r < 0) {
                json_decref(TAKE_PTR(*ret));
                return r;
        }
        (void) unlinkat(dfd, legacy, 0);
        return 0;
}

/* The allocation made durable as the pod's next record (p->allocation_seq). Probed by
 * bench/resize-bench.c's trace. */
_probed_ static int write_allocation(struct pod_memory *p, const json_t *allocation,
                                     struct error **reterr)
{
        return write_record(p, ALLOCATED_FILE, &p->allocation_seq, SLOT_FILE_DURABLE, allocation,
                            reterr);
}

/* The allocation on disk and its record's number; -ENOENT for a pod never allocated. */
static int read_allocation(struct pod_memory *p, json_t **ret, struct error **reterr)
{
        return read_record(p, ALLOCATED_FILE, ALLOCATED_LEGACY_FILE, &p->allocation_seq,
                           SLOT_FILE_DURABLE, ret, reterr);
}

static void count_requests(struct pod_memory *p, const json_t *pod)
{
        struct pod_spec *spec = pod_spec_of(p, pod);

        if (spec) {
                /* read by the other pods' admissions (pod_host.pods_lock) */
                pthread_mutex_lock(&p->host->pods_lock);
                p->alloc_milli_cpu = spec->alloc_requests_milli_cpu;
                p->alloc_memory = spec->alloc_requests_memory;
                pthread_mutex_unlock(&p->host->pods_lock);
        }
}

int pod_allocation_load(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                        struct error **reterr)
{
        int r;

        if (!p->allocation) {
                json_t *allocation = NULL;

                r = read_allocation(p, &allocation, reterr);
                if (r == -ENOENT) {
                        /* K8S: a new pod is allocated what it asks for (the scheduler placed it) */
                        struct pod_spec *spec = pod_spec_of(p, pod);

                        allocation =
                                spec ? json_incref(spec->desired) : resize_allocation_from_pod(pod);
                        r = write_allocation(p, allocation, reterr);
                        if (r < 0) {
                                json_decref(allocation);
                                return r;
                        }
                } else if (r < 0) {
                        return r;
                }
                /* the resync's pod_host_sync_order reads it */
                pthread_mutex_lock(&h->pods_lock);
                p->allocation = allocation;
                p->allocation_gen++; /* a cached pod_spec_against is stale */
                pthread_mutex_unlock(&h->pods_lock);
        }
        if (!p->actuated) {
                cleanup_error struct error *err = NULL;

                r = read_record(p, ACTUATED_FILE, ACTUATED_LEGACY_FILE, &p->actuated_seq,
                                SLOT_FILE_CACHED, &p->actuated, &err);
                /* not flushed: after a power loss it may be old or unreadable, which is as if
                 * it were lost (every step is repeated; each is idempotent) */
                if (r == -ENOENT || r == -EBADMSG)
                        p->actuated = json_object();
                else if (r < 0)
                        return error_set(reterr, -r, "%s", err->message);
        }
        count_requests(p, pod);
        return 0;
}

struct pod_spec *pod_spec_of(struct pod_memory *p, const json_t *pod)
{
        if (!pod_spec_is_for(p->spec, pod)) {
                struct pod_spec *spec = NULL;

                /* The API server validated it; a spec that still does not decode (a corrupt or
                 * hostile object) gets no resize: nothing of it is applied. */
                if (pod_spec_decode(pod, &spec, NULL) < 0)
                        return NULL;
                pod_spec_free(p->spec);
                p->spec = spec;
        }
        pod_spec_against(p->spec, p->allocation, p->allocation_gen);
        return p->spec;
}

json_t *pod_allocated(struct pod_memory *p, const json_t *pod)
{
        struct pod_spec *spec;

        /* The common case, no resize under way: the pod itself (read-only to every caller). */
        if (!p->allocation)
                return json_incref((json_t *) pod);
        spec = pod_spec_of(p, pod);
        if (!spec || spec->desired_is_allocated)
                return json_incref((json_t *) pod);
        /* computed once per allocation; its spec is this generation's */
        return json_incref(spec->alloc_pod);
}

/* A failed or lost write only means a step may be repeated after a restart: steps are
 * idempotent. Hence no flush: a killed process leaves the page cache, and so the last write,
 * behind; only a power loss can take it. Probed by bench/resize-bench.c's trace. */
_probed_ static void write_actuated(struct pod_memory *p)
{
        (void) write_record(p, ACTUATED_FILE, &p->actuated_seq, SLOT_FILE_CACHED, p->actuated,
                            NULL);
}

static void persist_actuated(struct pod_memory *p)
{
        write_actuated(p);
        p->actuated_unsaved = false;
}

void pod_actuated_flush(struct pod_memory *p)
{
        if (p->actuated_unsaved)
                persist_actuated(p);
}

void pod_actuated_cgroup(struct pod_memory *p, const char *container,
                         const struct pod_cgroup_config *cfg)
{
        struct resize_step st = {
                .kind = container ? RESIZE_STEP_CONTAINER_CGROUP : RESIZE_STEP_POD_CGROUP,
                .name = container,
                .which = RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA | RESIZE_MEMORY,
                .cfg = *cfg,
        };

        if (!p->actuated)
                p->actuated = json_object();
        resize_actuated_record(p->actuated, &st);
        persist_actuated(p);
}

void pod_actuated_volume(struct pod_memory *p, const char *volume, int64_t bytes)
{
        struct resize_step st = { .kind = RESIZE_STEP_VOLUME, .name = volume, .size_bytes = bytes };

        if (!p->actuated)
                p->actuated = json_object();
        resize_actuated_record(p->actuated, &st);
        persist_actuated(p);
}

void pod_resize_forget(struct pod_memory *p)
{
        pod_spec_free(TAKE_PTR(p->spec));
        json_decref(TAKE_PTR(p->allocation));
        json_decref(TAKE_PTR(p->actuated));
        json_decref(TAKE_PTR(p->pending_for));
        free(TAKE_PTR(p->pending_reason));
        free(TAKE_PTR(p->pending_message));
        free(TAKE_PTR(p->resize_error));
        free(TAKE_PTR(p->admit_error));
}

void pod_resize_release_requests(struct pod_memory *p)
{
        pthread_mutex_lock(&p->host->pods_lock);
        p->alloc_milli_cpu = 0;
        p->alloc_memory = 0;
        pthread_mutex_unlock(&p->host->pods_lock);
}

static void clear_pending(struct pod_memory *p)
{
        free(TAKE_PTR(p->pending_reason));
        free(TAKE_PTR(p->pending_message));
        json_decref(TAKE_PTR(p->pending_for));
        pthread_mutex_lock(&p->host->pods_lock);
        p->pending_since = 0;
        pthread_mutex_unlock(&p->host->pods_lock);
}

/* KEP-6030: a Memory emptyDir whose sizeLimit is above the pod's memory limit is allowed, but
 * its files can then OOM-kill the containers before the volume is full: say so. */
static void warn_volume_over_memory_limit(struct step *s)
{
        int64_t limit = -1;
        size_t i;
        json_t *v;

        if (pod_memory_limit(s->alloc_pod, NULL, &limit) < 0 || limit <= 0)
                return;
        json_array_foreach(json_path(s->alloc_pod, "spec.volumes"), i, v) {
                const char *size = json_path_string(v, "emptyDir.sizeLimit");
                const char *medium = json_path_string(v, "emptyDir.medium");
                struct quantity q;
                int64_t bytes;

                if (!size || !medium || !streq(medium, "Memory") ||
                    quantity_parse(size, &q, NULL) < 0 || quantity_value(&q, &bytes) < 0 ||
                    bytes <= limit)
                        continue;
                add_event(s->ev, "Warning", "SizeLimitExceedsMemoryLimit",
                          xasprintf("emptyDir volume \"%s\" has sizeLimit %s, above the pod's "
                                    "memory limit of %lld bytes: its files can get the containers "
                                    "OOM-killed before the volume is full",
                                    json_string_value(json_object_get(v, "name")), size,
                                    (long long) limit));
        }
}

static void observe_duration(struct step *s, bool success)
{
        const char *label[] = { success ? "true" : "false", NULL };

        if (s->h->metrics && s->p->resize_started_ms)
                (void) metrics_observe(s->h->metrics->resize_duration, label,
                                       (double) (time_monotonic_ms() - s->p->resize_started_ms));
}

int pod_resize_admit(struct step *s, struct error **reterr)
{
        struct pod_memory *p = s->p;
        struct pod_host *h = s->h;
        struct pod_spec *spec;
        json_t *desired;
        cleanup_free char *message = NULL;
        struct resize_node node = { .allocatable_milli_cpu = h->allocatable_milli_cpu,
                                    .allocatable_memory = h->allocatable_memory,
                                    .cgroup_v1 = h->cgroup_v1,
                                    .volume_resize_on_v1 = h->volume_resize_on_v1 };
        enum resize_verdict v;
        int64_t old_milli_cpu, old_memory;
        int r;

        if (!p->allocation || !(spec = pod_spec_of(p, s->pod)))
                return 0;
        if (spec->desired_is_allocated) {
                clear_pending(p);
                return 0;
        }
        desired = spec->desired;
        /* An Infeasible verdict stands until the spec changes again (K8S: not re-evaluated). */
        if (p->pending_for && json_equal(p->pending_for, desired) && p->pending_reason &&
            streq(p->pending_reason, "Infeasible"))
                return 0;
        /* one admission at a time, until this one's requests count (pod_host.admit_lock) */
        pthread_mutex_lock(&h->admit_lock);
        pthread_mutex_lock(&h->pods_lock);
        for (size_t i = 0; i < h->n_pods; i++) {
                if (h->pods[i] == p)
                        continue;
                node.others_milli_cpu += h->pods[i]->alloc_milli_cpu;
                node.others_memory += h->pods[i]->alloc_memory;
        }
        pthread_mutex_unlock(&h->pods_lock);
        v = resize_admit_requests(spec->pod, p->allocation, desired, spec->requests_milli_cpu,
                                  spec->requests_memory, &node, &message);
        if (v != RESIZE_ACCEPT) {
                pthread_mutex_unlock(&h->admit_lock);
                const char *reason = v == RESIZE_DEFERRED ? "Deferred" : "Infeasible";
                bool news = !p->pending_for || !json_equal(p->pending_for, desired) ||
                            !p->pending_reason || !streq(p->pending_reason, reason);

                if (news && v == RESIZE_INFEASIBLE && h->metrics) {
                        const char *detail[] = { message && strstr(message, "memory-backed volume")
                                                         ? "memory_backed_volume_cgroup_v1"
                                                         : "insufficient_node_allocatable",
                                                 NULL };
                        (void) metrics_add(h->metrics->infeasible_resizes, detail, 1);
                }
                if (news) {
                        add_event(s->ev, "Warning",
                                  v == RESIZE_DEFERRED ? "ResizeDeferred" : "ResizeInfeasible",
                                  xasprintf("Pod resize %s: %s",
                                            v == RESIZE_DEFERRED ? "Deferred" : "Infeasible",
                                            message ?: ""));
                        pthread_mutex_lock(&h->pods_lock);
                        if (!p->pending_since)
                                p->pending_since = s->now;
                        pthread_mutex_unlock(&h->pods_lock);
                }
                free(p->pending_reason);
                free(p->pending_message);
                p->pending_reason = xstrdup(reason);
                p->pending_message = TAKE_PTR(message);
                json_decref(p->pending_for);
                p->pending_for = json_incref(desired);
                return 0;
        }
        /* Accepted. Until the allocation is durable, the other pods' admissions count this
         * one at the larger of its old and new requests, whichever way the write goes; the
         * decision is made, so the fsync needs the lock no more, and the pods of a burst make
         * theirs at once (ext4 commits concurrent fsyncs together). */
        old_milli_cpu = p->alloc_milli_cpu;
        old_memory = p->alloc_memory;
        pthread_mutex_lock(&h->pods_lock);
        if (spec->requests_milli_cpu > old_milli_cpu)
                p->alloc_milli_cpu = spec->requests_milli_cpu;
        if (spec->requests_memory > old_memory)
                p->alloc_memory = spec->requests_memory;
        pthread_mutex_unlock(&h->pods_lock);
        pthread_mutex_unlock(&h->admit_lock);
        /* The allocation is durable before anything of it is applied. */
        r = write_allocation(p, desired, reterr);
        if (r < 0) {
                pthread_mutex_lock(&h->pods_lock);
                p->alloc_milli_cpu = old_milli_cpu;
                p->alloc_memory = old_memory;
                pthread_mutex_unlock(&h->pods_lock);
                (void) error_wrap(reterr, "Failed to handle pod resize");
                return r;
        }
        fault_point("resize-allocated");
        {
                json_t *old = p->allocation;

                pthread_mutex_lock(&h->pods_lock);
                p->allocation = json_incref(desired);
                pthread_mutex_unlock(&h->pods_lock);
                json_decref(old);
        }
        p->allocation_gen++;
        count_requests(p, s->pod);
        clear_pending(p);
        free(TAKE_PTR(p->resize_error));
        p->resize_retry = (struct backoff){ 0 };
        p->resize_failed_at = 0;
        json_decref(s->alloc_pod);
        s->alloc_pod = pod_allocated(p, s->pod);
        p->resize_started_ms = time_monotonic_ms();
        warn_volume_over_memory_limit(s);
        add_event(s->ev, "Normal", "ResizeStarted",
                  xasprintf("Pod resize started: generation %lld",
                            (long long) json_integer_value(
                                    json_path(s->pod, "metadata.generation"))));
        return 0;
}

static unsigned cgroup_bits(unsigned which)
{
        return ((which & RESIZE_CPU_SHARES) ? CGROUP_CPU_SHARES : 0) |
               ((which & RESIZE_CPU_QUOTA) ? CGROUP_CPU_QUOTA : 0) |
               ((which & RESIZE_MEMORY) ? CGROUP_MEMORY : 0);
}

static struct cgroup_limits limits_of(const struct pod_cgroup_config *cfg)
{
        return (struct cgroup_limits){ .cpu_shares = cfg->cpu_shares,
                                       .cpu_quota_us = cfg->cpu_quota_us,
                                       .cpu_period_us = cfg->cpu_period_us,
                                       .memory_limit_bytes = cfg->memory_limit_bytes };
}

/* How long a memory decrease waits for usage to come under the new memory.high (v2) before
 * it gives up and is retried: the kernel reclaims as part of the write itself, so this only
 * covers usage that rose after the check (docs/cgroups.md "Memory decreases on v2"). */
#define MEMORY_DECREASE_WAIT_MS 250

/* K8S (1.34+): a memory limit is not lowered below what the cgroup uses; the message matches
 * upstream's e2e pattern `memory limit \(\d+\) below current usage`. A decrease then goes
 * through cgroup_lower_memory_limit (memory.high first on v2); anything else, and the other
 * values of the step, through cgroup_set_limits. */
static int set_limits_guarded(struct step *s, const char *cgroup, const char *what,
                              const struct cgroup_limits *l, unsigned which, struct error **reterr)
{
        cleanup_error struct error *err = NULL;
        int64_t cur;
        uint64_t usage = 0;
        int r;

        if (!(which & CGROUP_MEMORY) || l->memory_limit_bytes < 0 ||
            cgroup_memory_limit(s->h->cgroups, cgroup, &cur, NULL) < 0 ||
            (cur >= 0 && l->memory_limit_bytes >= cur))
                return cgroup_set_limits(s->h->cgroups, cgroup, l, which, reterr);
        /* best effort, as upstream: a usage that cannot be read does not stop the decrease */
        if (cgroup_memory_usage(s->h->cgroups, cgroup, &usage, NULL) >= 0 &&
            (int64_t) usage > l->memory_limit_bytes)
                goto below_usage;
        r = cgroup_lower_memory_limit(s->h->cgroups, cgroup, l, which & CGROUP_WEIGHT_OCI,
                                      MEMORY_DECREASE_WAIT_MS, &usage, &err);
        /* usage rose past the new limit after the check and stayed there: the same refusal */
        if (r == -EBUSY && (int64_t) usage > l->memory_limit_bytes)
                goto below_usage;
        if (r < 0) {
                if (reterr)
                        *reterr = TAKE_PTR(err);
                return r;
        }
        if (!(which & ~(CGROUP_MEMORY | CGROUP_WEIGHT_OCI)))
                return 0;
        return cgroup_set_limits(s->h->cgroups, cgroup, l, which & ~CGROUP_MEMORY, reterr);
below_usage:
        return error_set(reterr, EBUSY,
                         "attempted to set %s memory limit (%lld) below current usage (%llu)", what,
                         (long long) l->memory_limit_bytes, (unsigned long long) usage);
}

static int apply_step(struct step *s, const struct resize_step *st, struct error **reterr)
{
        struct pod_memory *p = s->p;
        struct cgroup_limits l = limits_of(&st->cfg);
        cleanup_free char *path = NULL, *what = NULL;
        struct container_memory *cm;
        int64_t start_ms;
        int r;

        switch (st->kind) {
        case RESIZE_STEP_VOLUME:
                path = volume_path(p, st->name);
                start_ms = time_monotonic_ms();
                r = emptydir_resize(path, st->size_bytes, reterr);
                storage_operation_observe(storage_operations(s->h), STORAGE_PLUGIN_EMPTY_DIR,
                                          "volume_fs_resize", r, start_ms);
                if (r < 0)
                        return error_wrap(reterr, "volume \"%s\"", st->name);
                return 0;
        case RESIZE_STEP_POD_CGROUP:
                what = xasprintf("pod %s", json_path_string(s->pod, "metadata.name"));
                return set_limits_guarded(s, p->cgroup, what, &l, cgroup_bits(st->which), reterr);
        case RESIZE_STEP_CONTAINER_CGROUP:
                cm = container_memory_get(p, st->name);
                if (cm->latest < 0)
                        return 0;
                path = run_cgroup(p, st->name, cm->latest);
                what = xasprintf("container %s", st->name);
                return set_limits_guarded(s, path, what, &l,
                                          cgroup_bits(st->which) | CGROUP_WEIGHT_OCI, reterr);
        case RESIZE_STEP_RESTART_CONTAINER:
                cm = container_memory_get(p, st->name);
                if (cm->resize_restart)
                        return 0;
                cm->resize_restart = true;
                add_event(s->ev, "Normal", "Killing",
                          xasprintf("Container %s resize requires restart", st->name));
                signal_run(s, cm, SIGKILL);
                return 0;
        case RESIZE_STEP_KIND_MAX:
        default:
                return error_set(reterr, EINVAL, "unknown resize step");
        }
}

/* The kernel holds the allocation: the resize (if one was under way) is done. */
static void resize_settled(struct step *s)
{
        struct pod_memory *p = s->p;

        if (p->resizing) {
                observe_duration(s, true);
                p->resize_started_ms = 0;
                s->resize_activity = true;
                add_event(s->ev, "Normal", "ResizeCompleted",
                          xasprintf("Pod resize completed: generation %lld",
                                    (long long) json_integer_value(
                                            json_path(s->pod, "metadata.generation"))));
        }
        p->resizing = false;
        p->settled_gen = p->allocation_gen + 1;
        free(TAKE_PTR(p->resize_error));
        p->resize_retry = (struct backoff){ 0 };
}

/* The plan's inputs at the allocation, from the typed spec (built once per allocation). */
static const struct resize_targets *targets_of(struct step *s)
{
        struct pod_spec *spec = pod_spec_of(s->p, s->pod);

        return spec ? pod_spec_targets(spec, s->h->allocatable_memory) : NULL;
}

/* Whether the allocation needs no step any more (for the containers running now). */
static bool resize_plan_empty(struct step *s, const char *const *running)
{
        const struct resize_targets *t = targets_of(s);
        struct resize_plan plan = { 0 };
        bool empty;

        if (!t || resize_plan_from_targets(t, s->p->actuated, running, &plan, NULL) < 0)
                return false;
        empty = plan.n == 0;
        resize_plan_release(&plan);
        return empty;
}

void pod_resize_actuate(struct step *s, const char *const *running)
{
        struct pod_memory *p = s->p;
        const struct resize_targets *t;
        struct resize_plan plan = { 0 };
        cleanup_error struct error *err = NULL;
        bool all_done = false, recorded = false;
        int r;

        if (!p->allocation || !p->actuated)
                return;
        /* The kernel held this very allocation at the last step and nothing failed since: every
         * container started since was given it, so there is no plan to make. */
        if (!p->resizing && p->settled_gen == p->allocation_gen + 1)
                return;
        t = targets_of(s);
        if (!t || resize_plan_from_targets(t, p->actuated, running, &plan, &err) < 0)
                return;
        if (plan.n == 0) {
                resize_settled(s);
                resize_plan_release(&plan);
                return;
        }
        p->resizing = true;
        s->resize_activity = true;
        if (p->resize_failed_at && s->now - p->resize_failed_at < p->resize_retry.delay_s) {
                resize_plan_release(&plan);
                return;
        }
        for (size_t i = 0; i < plan.n; i++) {
                const struct resize_step *st = &plan.steps[i];
                cleanup_error struct error *step_err = NULL;

                r = apply_step(s, st, &step_err);
                if (r < 0) {
                        const char *msg = step_err ? step_err->message : strerror(-r);
                        if (!p->resize_error || !streq(p->resize_error, msg)) {
                                add_event(s->ev, "Warning", "ResizeError",
                                          xasprintf("Pod resize error: %s", msg));
                                observe_duration(s, false);
                        }
                        free(p->resize_error);
                        p->resize_error = xstrdup(msg);
                        p->resize_failed_at = s->now;
                        p->resize_retry.delay_s = !p->resize_retry.delay_s ? RESIZE_RETRY_INITIAL_S
                                                  : p->resize_retry.delay_s * 2 > RESIZE_RETRY_MAX_S
                                                          ? RESIZE_RETRY_MAX_S
                                                          : p->resize_retry.delay_s * 2;
                        break;
                }
                if (st->kind != RESIZE_STEP_RESTART_CONTAINER) {
                        resize_actuated_record(p->actuated, st);
                        recorded = true;
                }
                fault_point_n("resize-step", (unsigned) i + 1);
                if (i + 1 == plan.n) {
                        /* every step done: the kernel holds the allocation */
                        free(TAKE_PTR(p->resize_error));
                        p->resize_failed_at = 0;
                        p->resize_retry = (struct backoff){ 0 };
                        all_done = true;
                }
        }
        /* The steps that succeeded, written once for the plan (a write of actuated.slots costs
         * about as much as one of a pod's cgroup writes), and only once the step's status
         * is on its way (pod_actuated_flush): a process killed before that write repeats the
         * plan's steps from the state recorded before it, the same sequence it had started,
         * each step idempotent. */
        if (recorded)
                p->actuated_unsaved = true;
        resize_plan_release(&plan);
        /* Done in this pass when nothing is left (a container to restart is not: it runs again
         * in a later pass), so this pass's status already reports it, without one more pass and
         * status write. */
        if (all_done && resize_plan_empty(s, running))
                resize_settled(s);
}

json_t *pod_host_sync_order(struct pod_host *h, const json_t *pods)
{
        json_t *order = json_array();
        struct resize_pending *pending = xcalloc(json_object_size(pods) + 1, sizeof(*pending));
        size_t n = 0;
        const char *uid;
        json_t *pod;

        /* K8S: pods are admitted at their allocations first; then the pending resizes, in the
         * retry queue's order, each against the allocations accepted before it. */
        /* the pods' allocations and pending_since, which their workers change (pods_lock) */
        pthread_mutex_lock(&h->pods_lock);
        json_object_foreach((json_t *) pods, uid, pod) {
                struct pod_memory *p = NULL;
                /* decoded here, not the pod's cached p->spec: its worker may be replacing that
                 * one while this thread runs */
                cleanup_of(pod_spec_free) struct pod_spec *spec = NULL;

                for (size_t i = 0; i < h->n_pods && !p; i++)
                        if (streq(h->pods[i]->uid, uid))
                                p = h->pods[i];
                /* a pod its last step left steady at this version has no resize pending */
                if (p && p->shown.steady_rv &&
                    streq(p->shown.steady_rv,
                          json_path_string_or_empty(pod, "metadata.resourceVersion")))
                        p = NULL;
                if (p && p->allocation && pod_spec_decode(pod, &spec, NULL) >= 0) {
                        pod_spec_against(spec, p->allocation, p->allocation_gen);
                        if (!spec->desired_is_allocated) {
                                pending[n++] = (struct resize_pending){
                                        .pod = pod,
                                        .increases_requests =
                                                spec->requests_milli_cpu >
                                                        spec->alloc_requests_milli_cpu ||
                                                spec->requests_memory > spec->alloc_requests_memory,
                                        .pending_since = p->pending_since ?: time(NULL),
                                };
                                continue;
                        }
                }
                json_array_append_new(order, json_string(uid));
        }
        pthread_mutex_unlock(&h->pods_lock);
        qsort(pending, n, sizeof(*pending), resize_pending_compare);
        for (size_t i = 0; i < n; i++)
                json_array_append_new(
                        order, json_string(json_path_string(pending[i].pod, "metadata.uid")));
        free(pending);
        return order;
}
