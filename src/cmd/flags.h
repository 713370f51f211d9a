/* flags.h: flag values as the subcommands read them (counts, Go-style durations), and the node
 * agent's flags that `flexlet serve` and `flexlet node` both take, parsed one way for both.
 * Each parser says what is wrong on stderr ("flexlet COMMAND: --flag: ...") and returns
 * -EINVAL. */
#ifndef FLEXLET_CMD_FLAGS_H
#define FLEXLET_CMD_FLAGS_H

#include <getopt.h>

#include "node/image-gc.h"

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
};
#define NODE_FLAG_OPTIONS                                                                     \
 { "image-gc-high-threshold", required_argument, NULL, NODE_FLAG_IMAGE_GC_HIGH },             \
         { "image-gc-low-threshold", required_argument, NULL, NODE_FLAG_IMAGE_GC_LOW },       \
         { "image-minimum-gc-age", required_argument, NULL, NODE_FLAG_IMAGE_MINIMUM_GC_AGE }, \
         { "insecure-registry", required_argument, NULL, NODE_FLAG_INSECURE_REGISTRY },       \
         { "image-gc-period", required_argument, NULL, NODE_FLAG_IMAGE_GC_PERIOD },           \
 {                                                                                            \
  "pod-workers", required_argument, NULL, NODE_FLAG_POD_WORKERS                               \
 }
#define NODE_FLAG_USAGE                                                             \
 "  --image-gc-high-threshold PERCENT\n"                                            \
 "                          image filesystem use that starts the image garbage\n"   \
 "                          collection (default 85; 100: never)\n"                  \
 "  --image-gc-low-threshold PERCENT\n"                                             \
 "                          what it frees down to (default 80)\n"                   \
 "  --image-minimum-gc-age DURATION\n"                                              \
 "                          an image seen more recently is kept (default 2m)\n"     \
 "  --image-gc-period DURATION\n"                                                   \
 "                          how often it looks (default 5m, as the kubelet's)\n"    \
 "  --insecure-registry HOST[:PORT]\n"                                              \
 "                          pull from this registry over plain http (repeatable)\n" \
 "  --pod-workers N         pods stepped at once (default: twice the CPUs, 2 to 16)\n"

/* Applies getopt_long's opt with its argument to p (the image flags), *insecure
 * (--insecure-registry: a NULL-ended list of borrowed strings, grown) or *pod_workers when it is
 * one of NODE_FLAG_*: returns 1, 0 when opt is not one of them, -EINVAL on a bad value. */
int parse_node_flag(const char *command, int opt, const char *arg, struct image_gc_policy *p,
                    const char ***insecure, unsigned *pod_workers);
/* Checks the node agent's flags together, once all are parsed (image_gc_policy_check). */
int check_node_flags(const char *command, const struct image_gc_policy *p);

#endif
