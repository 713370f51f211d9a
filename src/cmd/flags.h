/* flags.h: flag values as the subcommands read them (counts, Go-style durations), and the node
 * agent's flags that `flexlet serve` and `flexlet node` both take, parsed one way for both.
 * Each parser says what is wrong on stderr ("flexlet COMMAND: --flag: ...") and returns
 * -EINVAL. */
#ifndef FLEXLET_CMD_FLAGS_H
#define FLEXLET_CMD_FLAGS_H

#include <getopt.h>

#include "node/agent.h"
#include "node/image-gc.h"
#include "node/status-sender.h"

/* A count flag: a decimal number within [min, max]. */
int parse_count(const char *command, const char *flag, const char *s, unsigned min, unsigned max,
                unsigned *ret);

/* A duration flag as Go writes the simple ones ("500ms", "10s", "2m", "1h"), or plain seconds;
 * from 100ms to a day. */
int parse_duration_ms(const char *command, const char *flag, const char *s, unsigned *ret);
/* The same from min_ms (0 takes "0" and "0s"). */
int parse_duration_min_ms(const char *command, const char *flag, const char *s, unsigned min_ms,
                          unsigned *ret);

/* The node agent's shared flags: getopt_long values above any subcommand's own. */
enum {
        NODE_FLAG_IMAGE_GC_HIGH = 0x1000,
        NODE_FLAG_IMAGE_GC_LOW,
        NODE_FLAG_IMAGE_MINIMUM_GC_AGE,
        NODE_FLAG_IMAGE_GC_PERIOD,
        NODE_FLAG_INSECURE_REGISTRY,
        NODE_FLAG_POD_WORKERS,
        NODE_FLAG_EVENT_QPS,
        NODE_FLAG_EVENT_BURST,
};
#define NODE_FLAG_OPTIONS                                                                     \
 { "image-gc-high-threshold", required_argument, NULL, NODE_FLAG_IMAGE_GC_HIGH },             \
         { "image-gc-low-threshold", required_argument, NULL, NODE_FLAG_IMAGE_GC_LOW },       \
         { "image-minimum-gc-age", required_argument, NULL, NODE_FLAG_IMAGE_MINIMUM_GC_AGE }, \
         { "insecure-registry", required_argument, NULL, NODE_FLAG_INSECURE_REGISTRY },       \
         { "image-gc-period", required_argument, NULL, NODE_FLAG_IMAGE_GC_PERIOD },           \
         { "pod-workers", required_argument, NULL, NODE_FLAG_POD_WORKERS },                   \
         { "event-qps", required_argument, NULL, NODE_FLAG_EVENT_QPS },                       \
 {                                                                                            \
  "event-burst", required_argument, NULL, NODE_FLAG_EVENT_BURST                               \
 }
#define NODE_FLAG_USAGE                                                                \
 "  --image-gc-high-threshold PERCENT\n"                                               \
 "                          image filesystem use that starts the image garbage\n"      \
 "                          collection (default 85; 100: never)\n"                     \
 "  --image-gc-low-threshold PERCENT\n"                                                \
 "                          what it frees down to (default 80)\n"                      \
 "  --image-minimum-gc-age DURATION\n"                                                 \
 "                          an image seen more recently is kept (default 2m)\n"        \
 "  --image-gc-period DURATION\n"                                                      \
 "                          how often it looks (default 5m, as the kubelet's)\n"       \
 "  --insecure-registry HOST[:PORT]\n"                                                 \
 "                          pull from this registry over plain http (repeatable)\n"    \
 "  --pod-workers N         pods stepped at once (default: twice the CPUs, 2 to 16)\n" \
 "  --event-qps N           events sent a second at most (default 50; 0: 5)\n"         \
 "  --event-burst N         events sent at once after a quiet while (default 100;\n"   \
 "                          0: 10)\n"

/* The node agent's flags, as both subcommands keep them. */
struct node_agent_flags {
        struct image_gc_policy image_gc;
        const char **insecure_registries; /* --insecure-registry, NULL-ended */
        unsigned pod_workers;
        struct event_rate event_rate;
};
#define NODE_AGENT_FLAGS_DEFAULT                                              \
 ((struct node_agent_flags){ .image_gc = IMAGE_GC_POLICY_DEFAULT,             \
                             .pod_workers = node_agent_default_pod_workers(), \
                             .event_rate = EVENT_RATE_DEFAULT })

/* Applies getopt_long's opt with its argument to f when it is one of NODE_FLAG_* (the
 * --insecure-registry list holds borrowed strings, grown): returns 1, 0 when opt is not one
 * of them, -EINVAL on a bad value. */
int parse_node_flag(const char *command, int opt, const char *arg, struct node_agent_flags *f);
/* Checks the node agent's flags together, once all are parsed (image_gc_policy_check). */
int check_node_flags(const char *command, const struct node_agent_flags *f);
/* Copies the flags into the agent's options. */
void node_agent_flags_apply(const struct node_agent_flags *f, struct node_agent_options *o);

#endif
