/* atomic-writer.h: the kubelet's AtomicWriter (pkg/volume/util/atomic_writer.go) for the
 * configMap, secret, downwardAPI and projected volumes: a payload (relative path -> bytes and
 * mode) written into a volume's directory so that a container reading it sees the whole old or
 * the whole new payload, never a mix:
 *
 *   <dir>/..2026_11_26_05_01_02.123456789/   the payload's files (a timestamped directory)
 *   <dir>/..data -> ..2026_11_26_05_01_02.123456789   swapped with rename(2)
 *   <dir>/key -> ..data/key                  one symlink per first path element
 *
 * Everything is done relative to a directory fd of the volume (openat, mkdirat, symlinkat,
 * renameat, unlinkat), never by a host path walked again; no symbolic link below the directory
 * is followed ("..data" is read with readlinkat and must name a timestamped directory of this
 * module, which is then opened by that name). A write interrupted between two steps (a crash)
 * leaves the old payload readable, and the next write removes what it left (a timestamped
 * directory "..data" does not point to, a "..data_tmp" link). One writer per directory at a
 * time; different directories may be written from several threads. */
#ifndef FLEXLET_NODE_VOLUME_ATOMIC_WRITER_H
#define FLEXLET_NODE_VOLUME_ATOMIC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

/* K8S atomic_writer.go: maxFileNameLength, maxPathLength */
#define ATOMIC_WRITER_MAX_NAME 255
#define ATOMIC_WRITER_MAX_PATH 4096

/* One file of a payload (K8S FileProjection). All strings owned by the payload. */
struct atomic_file {
        char *path; /* relative to the volume, validated and cleaned (atomic_payload_add) */
        char *data;
        size_t len;
        mode_t mode; /* permission bits, <= 0777 */
        bool owned;  /* K8S FileProjection.FsUser: chown the file to owner */
        uid_t owner;
};

/* A payload: a map from path to file (a later add of the same path replaces the file). */
struct atomic_payload {
        struct atomic_file *files;
        size_t n;
};

void atomic_payload_release(struct atomic_payload *p);

/* K8S validatePath: path must not be empty ("invalid path: must not be empty: \"\""), nor
 * absolute ("invalid path: must be relative path: /x"), nor longer than ATOMIC_WRITER_MAX_PATH,
 * nor have an element ".." ("invalid path: must not contain '..': a/../b") or longer than
 * ATOMIC_WRITER_MAX_NAME, nor a first element that starts with ".." ("invalid path: must not
 * start with '..': ..data"). -EINVAL with upstream's message. */
int atomic_writer_validate_path(const char *path, struct error **reterr);

/* Adds a copy of data[0..len) at path (validated, then cleaned as Go's filepath.Clean: "a//b/."
 * is "a/b"; a path that cleans to "." is refused as empty) with mode & 0777. */
int atomic_payload_add(struct atomic_payload *p, const char *path, const char *data, size_t len,
                       mode_t mode, struct error **reterr);

/* atomic_payload_add, the file then owned by uid (K8S: a projected token's FsUser, so a pod
 * whose containers all run as that user can read it at mode 0600). */
int atomic_payload_add_owned(struct atomic_payload *p, const char *path, const char *data,
                             size_t len, mode_t mode, uid_t owner, struct error **reterr);

/* Called after the new timestamped directory is written and before "..data" points to it
 * (K8S setPerms: the fsGroup ownership of the volume). */
typedef int (*atomic_writer_perms_fn)(void *ud, struct error **reterr);

/* K8S AtomicWriter.Write into the directory dirfd (borrowed): returns 0 without writing when the
 * files "..data" points to hold the payload's bytes already (K8S shouldWritePayload compares
 * the content only: a mode set_perms widened is no change) and no old path is to go; else
 * writes a new timestamped directory (0755, files with their mode, directories 0755), calls
 * set_perms (may be NULL), swaps "..data" to it, adds the missing top-level symlinks, removes
 * the top-level names no longer in the payload and the old timestamped directory, and returns
 * 1. A file path that is also another file's directory fails (-ENOTDIR or -EEXIST). On failure
 * "..data" still points to the old payload; *reterr reads "write volume payload: <step>: <cause>".
 */
int atomic_writer_write(int dirfd, const struct atomic_payload *payload,
                        atomic_writer_perms_fn set_perms, void *ud, struct error **reterr);

#endif
