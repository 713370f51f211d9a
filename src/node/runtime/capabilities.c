/* capabilities.c: Linux capability names as Kubernetes and containerd read them, the merge of
 * securityContext.capabilities onto the default set, and applying a set to the container
 * process before it execs (bounding set, then effective/permitted/inheritable, ambient cleared).
 * Not the decision which set a container gets: the agent makes it (pod-security.c). */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

/* The kernel's names (include/uapi/linux/capability.h), by number. */
static const char *const cap_names[RUNTIME_CAP_LAST + 1] = {
        "CAP_CHOWN",
        "CAP_DAC_OVERRIDE",
        "CAP_DAC_READ_SEARCH",
        "CAP_FOWNER",
        "CAP_FSETID",
        "CAP_KILL",
        "CAP_SETGID",
        "CAP_SETUID",
        "CAP_SETPCAP",
        "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE",
        "CAP_NET_BROADCAST",
        "CAP_NET_ADMIN",
        "CAP_NET_RAW",
        "CAP_IPC_LOCK",
        "CAP_IPC_OWNER",
        "CAP_SYS_MODULE",
        "CAP_SYS_RAWIO",
        "CAP_SYS_CHROOT",
        "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT",
        "CAP_SYS_ADMIN",
        "CAP_SYS_BOOT",
        "CAP_SYS_NICE",
        "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME",
        "CAP_SYS_TTY_CONFIG",
        "CAP_MKNOD",
        "CAP_LEASE",
        "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL",
        "CAP_SETFCAP",
        "CAP_MAC_OVERRIDE",
        "CAP_MAC_ADMIN",
        "CAP_SYSLOG",
        "CAP_WAKE_ALARM",
        "CAP_BLOCK_SUSPEND",
        "CAP_AUDIT_READ",
        "CAP_PERFMON",
        "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
};

const char *runtime_capability_name(int cap)
{
        return cap >= 0 && cap <= RUNTIME_CAP_LAST ? cap_names[cap] : NULL;
}

/* containerd's normalisation: upper case, "CAP_" added when missing */
static bool name_is(const char *name, const char *canonical)
{
        size_t off = strncasecmp(name, "CAP_", 4) == 0 ? 4 : 0;

        return strcasecmp(name + off, canonical + 4) == 0;
}

int runtime_capability_from_name(const char *name)
{
        if (!name)
                return -EINVAL;
        for (int i = 0; i <= RUNTIME_CAP_LAST; i++)
                if (name_is(name, cap_names[i]))
                        return i;
        return -EINVAL;
}

static bool is_all(const char *name)
{
        return strcasecmp(name, "ALL") == 0;
}

int runtime_capabilities_merge(uint64_t base, const char *const *add, const char *const *drop,
                               uint64_t *ret, struct error **reterr)
{
        const uint64_t all = (1ULL << (RUNTIME_CAP_LAST + 1)) - 1;
        uint64_t caps = base;

        /* K8S/containerd: "ALL" first, so that add [ALL] drop [CHOWN] is all but CHOWN and drop
         * [ALL] add [NET_BIND_SERVICE] is that one alone */
        for (size_t i = 0; add && add[i]; i++)
                if (is_all(add[i]))
                        caps = all;
        for (size_t i = 0; drop && drop[i]; i++)
                if (is_all(drop[i]))
                        caps = 0;
        for (int pass = 0; pass < 2; pass++) {
                const char *const *v = pass == 0 ? add : drop;

                for (size_t i = 0; v && v[i]; i++) {
                        int c;

                        if (is_all(v[i]))
                                continue;
                        c = runtime_capability_from_name(v[i]);
                        if (c < 0)
                                return error_set(reterr, EINVAL, "unknown capability \"%s\"", v[i]);
                        if (pass == 0)
                                caps |= 1ULL << c;
                        else
                                caps &= ~(1ULL << c);
                }
        }
        *ret = caps;
        return 0;
}

/* The highest capability the running kernel knows. */
static int kernel_cap_last(void)
{
        /* atomic: pods start on several threads at once; each finds the same value */
        static _Atomic int cached = -1;
        char buf[16] = { 0 };
        int last = atomic_load(&cached);
        FILE *f;

        if (last >= 0)
                return last;
        last = RUNTIME_CAP_LAST;
        f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        if (f) {
                if (fgets(buf, sizeof(buf), f))
                        last = atoi(buf);
                fclose(f);
        }
        if (last < 0 || last > 63)
                last = RUNTIME_CAP_LAST;
        atomic_store(&cached, last);
        return last;
}

int rt_caps_drop_bounding(uint64_t keep)
{
        int last = kernel_cap_last();

        for (int c = 0; c <= last; c++)
                if (!(keep & (1ULL << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 &&
                    errno != EINVAL)
                        return -errno;
        return 0;
}

int rt_caps_set(uint64_t effective_permitted)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = { 0 };

        d[0].effective = d[0].permitted = (uint32_t) effective_permitted;
        d[1].effective = d[1].permitted = (uint32_t) (effective_permitted >> 32);
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        /* EINVAL: a kernel without ambient capabilities has none to clear */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        return 0;
}

uint64_t rt_caps_all(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = { 0 };
        int last = kernel_cap_last();
        uint64_t all = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;

        /* every capability we hold: a runtime that itself runs confined (in a container whose
         * bounding set lacks some) gives what it has, as runc does */
        if (syscall(SYS_capget, &h, d) < 0)
                return all;
        return all & ((uint64_t) d[1].permitted << 32 | d[0].permitted);
}
