/* stats-summary.c: the Summary API's JSON from plain numbers, the CPU rate cache, and the
 * parsers of the node's /proc counters. It reads no file itself: the node agent gathers the
 * numbers (agent.c, pod-stats.c) and the unit tests feed them here. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/stats-summary.h"

/* ------------------------------------------------------------------ JSON */

static void set_u64(json_t *o, const char *key, uint64_t v)
{
        /* the counters stay far below 2^63; a wrapped one is clamped rather than negative */
        json_object_set_new(o, key,
                            json_integer(v > (uint64_t) INT64_MAX ? INT64_MAX : (json_int_t) v));
}

static json_t *cpu_json(const struct stats_cpu *c, const char *now)
{
        json_t *o = json_pack("{s:s}", "time", now);

        if (c->has_rate)
                set_u64(o, "usageNanoCores", c->usage_nano_cores);
        set_u64(o, "usageCoreNanoSeconds", c->usage_core_ns);
        return o;
}

static json_t *memory_json(const struct stats_memory *m, const char *now)
{
        json_t *o = json_pack("{s:s}", "time", now);

        if (m->has_available)
                set_u64(o, "availableBytes", m->available);
        set_u64(o, "usageBytes", m->usage);
        set_u64(o, "workingSetBytes", m->working_set);
        set_u64(o, "rssBytes", m->rss);
        set_u64(o, "pageFaults", m->page_faults);
        set_u64(o, "majorPageFaults", m->major_page_faults);
        return o;
}

static void fs_fields(json_t *o, const struct stats_fs *f)
{
        set_u64(o, "availableBytes", f->available);
        set_u64(o, "capacityBytes", f->capacity);
        set_u64(o, "usedBytes", f->used);
        set_u64(o, "inodesFree", f->inodes_free);
        set_u64(o, "inodes", f->inodes);
        set_u64(o, "inodesUsed", f->inodes_used);
}

static void add_cpu_memory(json_t *o, const struct stats_cpu *c, const struct stats_memory *m,
                           const char *now)
{
        if (c->valid)
                json_object_set_new(o, "cpu", cpu_json(c, now));
        if (m->valid)
                json_object_set_new(o, "memory", memory_json(m, now));
}

static json_t *pod_json(const struct stats_pod *p, const char *now)
{
        json_t *o = json_pack("{s:{s:s, s:s, s:s}}", "podRef", "name", p->name, "namespace", p->ns,
                              "uid", p->uid);
        json_t *containers = json_array();

        if (p->start_time)
                json_object_set_new(o, "startTime", json_string(p->start_time));
        for (size_t i = 0; i < p->n_containers; i++) {
                const struct stats_container *c = &p->containers[i];
                json_t *cj = json_pack("{s:s}", "name", c->name);

                if (c->start_time)
                        json_object_set_new(cj, "startTime", json_string(c->start_time));
                add_cpu_memory(cj, &c->cpu, &c->memory, now);
                json_array_append_new(containers, cj);
        }
        json_object_set_new(o, "containers", containers);
        add_cpu_memory(o, &p->cpu, &p->memory, now);
        if (p->n_volumes) {
                json_t *vols = json_array();

                for (size_t i = 0; i < p->n_volumes; i++) {
                        const struct stats_volume *v = &p->volumes[i];
                        json_t *vj = json_pack("{s:s}", "time", now);

                        fs_fields(vj, &v->fs);
                        json_object_set_new(vj, "name", json_string(v->name));
                        if (v->pvc_name)
                                json_object_set_new(vj, "pvcRef",
                                                    json_pack("{s:s, s:s}", "name", v->pvc_name,
                                                              "namespace", p->ns));
                        json_array_append_new(vols, vj);
                }
                json_object_set_new(o, "volume", vols);
        }
        return o;
}

json_t *stats_summary_json(const struct stats_node *node, const struct stats_pod *pods, size_t n,
                           const char *now)
{
        json_t *nj = json_pack("{s:s}", "nodeName", node->name);
        json_t *pj = json_array();

        if (node->start_time)
                json_object_set_new(nj, "startTime", json_string(node->start_time));
        add_cpu_memory(nj, &node->cpu, &node->memory, now);
        if (node->fs.valid) {
                json_t *fs = json_pack("{s:s}", "time", now);
                fs_fields(fs, &node->fs);
                json_object_set_new(nj, "fs", fs);
        }
        for (size_t i = 0; i < n; i++)
                json_array_append_new(pj, pod_json(&pods[i], now));
        return json_pack("{s:o, s:o}", "node", nj, "pods", pj);
}

struct stats_memory stats_memory_from(uint64_t usage, uint64_t inactive_file, uint64_t rss,
                                      uint64_t page_faults, uint64_t major_page_faults,
                                      int64_t limit)
{
        struct stats_memory m = { .valid = true,
                                  .usage = usage,
                                  .working_set = usage > inactive_file ? usage - inactive_file : 0,
                                  .rss = rss,
                                  .page_faults = page_faults,
                                  .major_page_faults = major_page_faults };

        /* K8S cadvisor stats.go: AvailableBytes only when the limit is set, floored at 0 */
        if (limit > 0) {
                m.has_available = true;
                m.available =
                        (uint64_t) limit > m.working_set ? (uint64_t) limit - m.working_set : 0;
        }
        return m;
}

/* ------------------------------------------------------------------ the CPU rate */

struct rate_entry {
        char *key;
        uint64_t usage; /* the sample the next rate is taken from */
        int64_t at_ns;
        int64_t seen_ns; /* last sampled, for the expiry */
        bool has_rate;
        uint64_t rate;
};

struct stats_rate_cache {
        pthread_mutex_t lock;
        struct rate_entry *e;
        size_t n, cap;
};

struct stats_rate_cache *stats_rate_cache_new(void)
{
        struct stats_rate_cache *c = xcalloc(1, sizeof(*c));

        pthread_mutex_init(&c->lock, NULL);
        return c;
}

struct stats_rate_cache *stats_rate_cache_free(struct stats_rate_cache *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n; i++)
                free(c->e[i].key);
        free(c->e);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
}

void stats_rate_sample(struct stats_rate_cache *c, const char *key, uint64_t usage_core_ns,
                       int64_t now_ns, struct stats_cpu *ret)
{
        struct rate_entry *e = NULL;

        *ret = (struct stats_cpu){ .valid = true, .usage_core_ns = usage_core_ns };
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < c->n;) {
                if (now_ns - c->e[i].seen_ns > STATS_RATE_EXPIRY_NS) {
                        free(c->e[i].key);
                        c->e[i] = c->e[--c->n];
                        continue;
                }
                if (streq(c->e[i].key, key))
                        e = &c->e[i];
                i++;
        }
        if (!e) {
                if (c->n == c->cap) {
                        c->cap = c->cap ? 2 * c->cap : 16;
                        c->e = xrealloc(c->e, c->cap * sizeof(*c->e));
                }
                e = &c->e[c->n++];
                *e = (struct rate_entry){ .key = xstrdup(key),
                                          .usage = usage_core_ns,
                                          .at_ns = now_ns,
                                          .seen_ns = now_ns };
                pthread_mutex_unlock(&c->lock);
                return;
        }
        e->seen_ns = now_ns;
        if (usage_core_ns < e->usage) {
                /* the counter went back: another cgroup now has this name */
                e->usage = usage_core_ns;
                e->at_ns = now_ns;
                e->has_rate = false;
        } else if (now_ns - e->at_ns >= STATS_RATE_MIN_WINDOW_NS) {
                /* in floating point as upstream: the product overflows 64 bits after ~18 s of
                 * a busy core */
                e->rate = (uint64_t) ((double) (usage_core_ns - e->usage) /
                                      (double) (now_ns - e->at_ns) * 1e9);
                e->has_rate = true;
                e->usage = usage_core_ns;
                e->at_ns = now_ns;
        }
        ret->has_rate = e->has_rate;
        ret->usage_nano_cores = e->rate;
        pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------------ /proc */

int stats_parse_proc_stat(const char *text, long ticks_per_s, uint64_t *ret_ns)
{
        unsigned long long v[8] = { 0 };
        const char *line = text;

        if (ticks_per_s <= 0)
                return -EINVAL;
        /* the aggregate line is the first, "cpu " followed by the fields */
        while (line && strncmp(line, "cpu ", 4) != 0) {
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        if (!line)
                return -EINVAL;
        line += 4;
        for (size_t i = 0; i < 8; i++) {
                char *end;

                while (*line == ' ')
                        line++;
                errno = 0;
                v[i] = strtoull(line, &end, 10);
                if (errno || end == line) {
                        if (i < 4)
                                return -EINVAL;
                        break; /* older kernels have fewer fields */
                }
                line = end;
        }
        /* user nice system idle iowait irq softirq steal: busy is all but idle and iowait */
        *ret_ns = (uint64_t) ((double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1e9 /
                              (double) ticks_per_s);
        return 0;
}

static bool meminfo_field(const char *text, const char *key, uint64_t *ret)
{
        size_t klen = strlen(key);

        for (const char *line = text; line && *line;) {
                if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
                        char *end;
                        unsigned long long kb;

                        errno = 0;
                        kb = strtoull(line + klen + 1, &end, 10);
                        if (errno || end == line + klen + 1)
                                return false;
                        *ret = (uint64_t) kb * 1024;
                        return true;
                }
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return false;
}

int stats_parse_meminfo(const char *text, struct stats_meminfo *ret)
{
        struct stats_meminfo mi = { 0 };

        if (!meminfo_field(text, "MemTotal", &mi.total) ||
            !meminfo_field(text, "MemFree", &mi.free))
                return -EINVAL;
        (void) meminfo_field(text, "Inactive(file)", &mi.inactive_file);
        (void) meminfo_field(text, "AnonPages", &mi.anon);
        *ret = mi;
        return 0;
}

struct stats_memory stats_node_memory(const struct stats_meminfo *mi)
{
        uint64_t usage = mi->total > mi->free ? mi->total - mi->free : 0;

        return stats_memory_from(usage, mi->inactive_file, mi->anon, 0, 0, (int64_t) mi->total);
}
