/* sysctl.h: the namespaced sysctls upstream holds safe for any pod, the one list the API
 * server's Pod Security checks and the node's sysctl admission both read. K8S:
 * pkg/kubelet/sysctl/safe_sysctls.go and pod-security-admission's check_sysctls.go. */
#ifndef FLEXLET_API_SYSCTL_H
#define FLEXLET_API_SYSCTL_H

#include <stddef.h>

/* Oldest first, so each version's set is a prefix: the first SAFE_SYSCTLS_V1_0 entries since
 * v1.0, then those added in v1.27, v1.29 and v1.32. */
#define SAFE_SYSCTLS_V1_0  5
#define SAFE_SYSCTLS_V1_27 6
#define SAFE_SYSCTLS_V1_29 10
#define SAFE_SYSCTLS_V1_32 12
extern const char *const safe_sysctls[SAFE_SYSCTLS_V1_32];

#endif
