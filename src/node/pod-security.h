/* pod-security.h: the node's reading of a container's securityContext: the pod's and the
 * container's merged with upstream's precedence (the container's field wins), checked, and
 * turned into the runtime's struct runtime_security. A pure function of the pod, the container
 * and (for Localhost seccomp profiles) the data dir: unit-tested by tables.
 *
 * K8S: what the kubelet refuses before it asks the runtime (verifyRunAsNonRoot, unknown
 * capabilities, sysctls outside the safe set, fields this node does not implement) comes back
 * as -EINVAL with upstream's message where one exists; the agent shows it as the waiting reason
 * CreateContainerConfigError. A Localhost profile that cannot be loaded is the runtime's
 * failure (CreateContainerError): pod_security_load_profile. */
#ifndef FLEXLET_NODE_POD_SECURITY_H
#define FLEXLET_NODE_POD_SECURITY_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"
#include "node/runtime/runtime.h"
#include "node/volume/ownership.h"

/* What the runtime spec borrows. Release with pod_security_release. */
struct pod_security {
        struct runtime_security sec;
        uid_t uid;
        gid_t gid;
        const char *localhost_profile; /* the name, borrowed from the pod; NULL unless Localhost */
        /* owned */
        gid_t *groups;
        struct runtime_sysctl *sysctls;
        char **sysctl_paths;
        char *profile_text;
};

/* Resolves the securityContext of container c of pod (borrowed; c is one of the pod's
 * containers or init containers) over the image config's User (image_user, NULL or "" when
 * none: root). -EINVAL with a message when the container must not start. */
int pod_security_resolve(const json_t *pod, const json_t *c, const char *image_user,
                         struct pod_security *ret, struct error **reterr);
/* Reads the Localhost profile (DATA/seccomp/<name>) into ret->sec when asked for: upstream's
 * "cannot load seccomp profile" failure otherwise. No-op for the other modes. */
int pod_security_load_profile(struct pod_security *ps, const char *data_dir, struct error **reterr);
void pod_security_release(struct pod_security *ps);

/* K8S spec.securityContext.fsGroup and fsGroupChangePolicy (unset: Always): 1 with *ret_gid and
 * *ret_policy (when not NULL) when the pod sets fsGroup, 0 when it does not, -EINVAL with a
 * message when either is malformed. pod_security_resolve adds the group to every container's
 * supplemental groups; the pod worker gives the volumes its ownership (volume/ownership.h). */
int pod_security_fs_group(const json_t *pod, gid_t *ret_gid, enum volume_fsgroup_policy *ret_policy,
                          struct error **reterr);

/* K8S pkg/kubelet/sysctl safe_sysctls.go: whether the sysctl (dotted or '/'-separated, as
 * upstream accepts) is in the safe set; *ret_path gets its path under /proc/sys (caller
 * frees). */
bool pod_security_sysctl_safe(const char *name, char **ret_path);

#endif
