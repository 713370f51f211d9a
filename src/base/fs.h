/* fs.h: small file-system helpers the node's parts share: directories made with their parents,
 * state files written atomically and durably (temporary file, fsync, rename, fsync of the
 * folder) or atomically only (no fsync), small files and JSON read whole, and a tree removal that
 * never follows a symbolic link nor crosses into another file system. -errno on failure. */
#ifndef FLEXLET_BASE_FS_H
#define FLEXLET_BASE_FS_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

/* mkdir -p: path and its missing parents with mode (an existing directory is fine). */
int fs_mkdir_p(const char *path, mode_t mode);
/* write(2) until all of data is written (EINTR retried). */
int fs_write_all(int fd, const char *data, size_t len);
/* Writes name in dirfd through a temporary file, fsync and rename: readers see the old or the
 * new content, never a part. */
int fs_write_file_atomic(int dirfd, const char *name, const char *data, size_t len);
/* The same with exactly the file mode given (0600 for a secret: never readable by others, not
 * even between the write and the rename); fs_write_file_atomic makes 0644 less the umask. */
int fs_write_file_atomic_mode(int dirfd, const char *name, const char *data, size_t len,
                              mode_t mode);
int fs_write_json_atomic(int dirfd, const char *name, const json_t *j);
/* Atomic but not durable: through a temporary file and rename, without fsync. A process killed
 * at any point leaves the old or the new content (the page cache outlives it); a power loss
 * may leave the old content, or an empty or partial file. Only for state whose loss repeats
 * idempotent work (the readers take an unreadable file as absent). */
int fs_write_file_replace(int dirfd, const char *name, const char *data, size_t len);
/* Reads a whole small file (NUL-terminated, at most max bytes: -EFBIG beyond). */
int fs_read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len);
/* Reads a JSON file of at most FS_JSON_FILE_MAX bytes; -EBADMSG when it does not parse. */
#define FS_JSON_FILE_MAX (1024 * 1024)
int fs_read_json_at(int dirfd, const char *name, json_t **ret);
/* Removes path and everything below it, never following symbolic links nor crossing into
 * another filesystem (-EBUSY). Missing: 0. */
int fs_remove_tree(const char *path);

#endif
