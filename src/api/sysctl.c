/* sysctl.c: the safe sysctl list (see sysctl.h). */
#include "api/sysctl.h"

const char *const safe_sysctls[SAFE_SYSCTLS_V1_32] = {
        /* v1.0 */
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        /* v1.27 */
        "net.ipv4.ip_local_reserved_ports",
        /* v1.29 */
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        /* v1.32 */
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
};
