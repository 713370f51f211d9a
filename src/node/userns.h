/* userns.h: the node's user namespace ID ranges (K8S KEP-127, hostUsers: false). Each such pod
 * gets its own range of USERNS_LENGTH host IDs, mapped to 0..USERNS_LENGTH-1 inside the pod,
 * handed out without overlap, recorded in the pod's folder so that a restarted agent keeps
 * each pod's range and never gives it to another, and freed when the pod is removed.
 *
 * As the kubelet's userns manager (pkg/kubelet/userns/userns_manager.go): ranges are slots of
 * 65536 IDs; a slot's first ID is a multiple of 65536; slot 0 (host IDs 0..65535, the host's
 * own users) is never handed out, so the first pod range starts at 65536 (the kubelet's
 * default when /etc/subuid has no "kubelet" entry); the record is the file `userns` in the
 * pod's folder, upstream's JSON: {"uidMappings":[{"hostId":B,"containerId":0,"length":65536}],
 * "gidMappings":[the same]}, written atomically (temporary file, fsync, rename, folder fsync).
 *
 * The allocator (struct userns_ranges) is plain data and pure functions over it; the record's
 * reading and writing are apart. Not thread-safe: the pod host's one thread owns it. */
#ifndef FLEXLET_NODE_USERNS_H
#define FLEXLET_NODE_USERNS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

#define USERNS_LENGTH     65536U /* IDs per pod (K8S: DefaultKubeletUserNamespacesIDsPerPod) */
#define USERNS_FIRST_SLOT 1U     /* slot 0 is the host's own IDs */
/* The last slot whose every ID is below 2^32 - 1 (uid -1 means "unchanged" to the kernel). */
#define USERNS_SLOTS 65534U
#define USERNS_FILE  "userns"

struct userns_ranges {
        uint8_t used[(USERNS_SLOTS + 7) / 8]; /* bit s - USERNS_FIRST_SLOT: slot s is taken */
};

/* Marks the range that starts at host ID base as used (a record read back). -EINVAL for a base
 * that is no slot's start (not a multiple of USERNS_LENGTH, slot 0, past the last slot),
 * -EEXIST when it is taken already: two pods recorded with one range (upstream: "range picked
 * for pod already taken"). */
int userns_ranges_record(struct userns_ranges *r, uint32_t base);
/* Takes the lowest free range; *ret_base is its first host ID. -ENOSPC when all are taken. */
int userns_ranges_take(struct userns_ranges *r, uint32_t *ret_base);
/* Frees the range that starts at base (nothing when it is not taken or no slot's start). */
void userns_ranges_release(struct userns_ranges *r, uint32_t base);
bool userns_ranges_taken(const struct userns_ranges *r, uint32_t base);

/* The pod's record in its folder (pod_dir_fd): 1 and *ret_base when there is one, 0 when there
 * is none, -EBADMSG with a message when it is not what this node writes (one uid and one gid
 * mapping, equal, container ID 0, length USERNS_LENGTH; upstream's checks). */
int userns_record_read(int pod_dir_fd, uint32_t *ret_base, struct error **reterr);
/* Writes the record durably (see above). */
int userns_record_write(int pod_dir_fd, uint32_t base, struct error **reterr);

#endif
