/* volume-internal.h: the parts of the volume code that unit tests reach directly: the
 * /proc/self/mountinfo reader (proc(5)) behind "is a tmpfs mounted exactly here". */
#ifndef FLEXLET_NODE_VOLUME_INTERNAL_H
#define FLEXLET_NODE_VOLUME_INTERNAL_H

#include <stdio.h>

/* Longest mountinfo line looked at; longer lines are skipped (the kernel never writes one). */
#define EMPTYDIR_MOUNTINFO_MAX_LINE 65536

/* One mountinfo line:
 * "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue".
 * Path-like fields are unescaped (the kernel writes space, tab, newline and backslash as \040,
 * \011, \012 and \134). All strings owned. */
struct emptydir_mountinfo {
        int mount_id;
        int parent_id;
        unsigned int major, minor;
        char *root;
        char *mount_point;
        char *mount_options;
        char *fstype;
        char *source;
        char *super_options;
};

void emptydir_mountinfo_release(struct emptydir_mountinfo *m);

/* Undoes the kernel's octal escapes in s[0..len): "\ooo" becomes that byte; a backslash not
 * followed by three octal digits, or an escape that would make a NUL, is -EINVAL. *ret owned. */
int emptydir_mountinfo_unescape(const char *s, size_t len, char **ret);

/* Parses one line (a trailing newline is allowed). -EINVAL when a field is missing or bad. */
int emptydir_mountinfo_parse_line(const char *line, struct emptydir_mountinfo *ret);

/* The mount at mount_point in the mountinfo stream f. When mount_id >= 0 (statx's
 * STATX_MNT_ID of the path) only that mount qualifies, so a mount stacked over another is told
 * apart exactly; otherwise the last entry at mount_point wins (the kernel lists mounts in the
 * order they were made, so the last is the one on top). Malformed and overlong lines are
 * skipped. -ENOENT when nothing is mounted there. */
int emptydir_mountinfo_find(FILE *f, const char *mount_point, int mount_id,
                            struct emptydir_mountinfo *ret);

#endif
