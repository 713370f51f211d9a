/* flags.c: the flag value parsers the subcommands share (see flags.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cmd/flags.h"

int parse_count(const char *command, const char *flag, const char *s, unsigned min, unsigned max,
                unsigned *ret)
{
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
                (void) fprintf(stderr, "flexlet %s: %s: \"%s\" is not a number from %u to %u\n",
                               command, flag, s, min, max);
                return -EINVAL;
        }
        *ret = (unsigned) v;
        return 0;
}

int parse_duration_min_ms(const char *command, const char *flag, const char *s, unsigned min_ms,
                          unsigned *ret)
{
        char *end;
        unsigned long v;
        unsigned long unit;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || s[0] == '-')
                goto bad;
        if (streq(end, "ms"))
                unit = 1;
        else if (streq(end, "s") || !*end)
                unit = 1000;
        else if (streq(end, "m"))
                unit = 60 * 1000;
        else if (streq(end, "h"))
                unit = 3600 * 1000;
        else
                goto bad;
        if (v > 86400000UL / unit || v * unit < min_ms)
                goto bad;
        *ret = (unsigned) (v * unit);
        return 0;
bad:
        if (min_ms)
                (void) fprintf(stderr,
                               "flexlet %s: %s: \"%s\" is not a duration from %ums to 24h (e.g. "
                               "10s)\n",
                               command, flag, s, min_ms);
        else
                (void) fprintf(stderr,
                               "flexlet %s: %s: \"%s\" is not a duration from 0s to 24h (e.g. "
                               "10s)\n",
                               command, flag, s);
        return -EINVAL;
}

int parse_duration_ms(const char *command, const char *flag, const char *s, unsigned *ret)
{
        return parse_duration_min_ms(command, flag, s, 100, ret);
}

/* K8S client-go (rest.Config): a QPS or Burst of 0 takes DefaultQPS 5 and DefaultBurst 10,
 * which the kubelet's --event-qps and --event-burst inherit ("If 0 will use DefaultQPS: 5"). */
#define CLIENT_GO_DEFAULT_QPS   5
#define CLIENT_GO_DEFAULT_BURST 10

int parse_node_flag(const char *command, int opt, const char *arg, struct node_agent_flags *f)
{
        struct image_gc_policy *p = &f->image_gc;
        unsigned v;
        int r = 0;

        switch (opt) {
        case NODE_FLAG_IMAGE_GC_HIGH:
                r = parse_count(command, "--image-gc-high-threshold", arg, 0, 100, &v);
                if (r >= 0)
                        p->high_percent = v;
                break;
        case NODE_FLAG_IMAGE_GC_LOW:
                r = parse_count(command, "--image-gc-low-threshold", arg, 0, 100, &v);
                if (r >= 0)
                        p->low_percent = v;
                break;
        case NODE_FLAG_IMAGE_MINIMUM_GC_AGE:
                r = parse_duration_min_ms(command, "--image-minimum-gc-age", arg, 0, &v);
                if (r >= 0)
                        p->min_age_ms = v;
                break;
        case NODE_FLAG_IMAGE_GC_PERIOD:
                r = parse_duration_ms(command, "--image-gc-period", arg, &v);
                if (r >= 0)
                        p->period_ms = v;
                break;
        case NODE_FLAG_INSECURE_REGISTRY: {
                size_t n = 0;
                /* HOST[:PORT] as an image name's registry part */
                if (!*arg || strpbrk(arg, "/@ \t") || strlen(arg) > 255) {
                        (void) fprintf(stderr,
                                       "flexlet %s: --insecure-registry \"%s\": not HOST[:PORT]\n",
                                       command, arg);
                        return -EINVAL;
                }
                while (f->insecure_registries && f->insecure_registries[n])
                        n++;
                f->insecure_registries = xrealloc(f->insecure_registries, (n + 2) * sizeof(char *));
                f->insecure_registries[n] = arg;
                f->insecure_registries[n + 1] = NULL;
                break;
        }
        case NODE_FLAG_POD_WORKERS:
                /* 0 would step no pod at all */
                r = parse_count(command, "--pod-workers", arg, 1, 1024, &f->pod_workers);
                break;
        case NODE_FLAG_EVENT_QPS:
                r = parse_count(command, "--event-qps", arg, 0, 1000000, &v);
                if (r >= 0)
                        f->event_rate.qps = v ? v : CLIENT_GO_DEFAULT_QPS;
                break;
        case NODE_FLAG_EVENT_BURST:
                r = parse_count(command, "--event-burst", arg, 0, 1000000, &v);
                if (r >= 0)
                        f->event_rate.burst = v ? v : CLIENT_GO_DEFAULT_BURST;
                break;
        default:
                return 0;
        }
        return r < 0 ? r : 1;
}

int check_node_flags(const char *command, const struct node_agent_flags *f)
{
        cleanup_error struct error *err = NULL;

        if (image_gc_policy_check(&f->image_gc, &err) < 0) {
                (void) fprintf(stderr, "flexlet %s: %s\n", command, err->message);
                return -EINVAL;
        }
        return 0;
}

void node_agent_flags_apply(const struct node_agent_flags *f, struct node_agent_options *o)
{
        o->image_gc = f->image_gc;
        o->insecure_registries = f->insecure_registries;
        o->pod_workers = f->pod_workers;
        o->event_rate = f->event_rate;
}
