/* slot-file.h: a small state file rewritten in place, made durable by one data flush (or left
 * to the page cache, where a lost write only repeats work). The file holds two slots of equal
 * size; record N goes into slot N % 2, overwritten in place (and fdatasync'ed), so the other
 * slot keeps record N - 1 whole while it is written. A slot is a header (magic, sequence number,
 * length, FNV-1a of all three and the payload) and the payload; a reader takes the valid slot
 * of the higher sequence number, so a write torn by a power loss reads as the record before it.
 * Overwriting blocks already allocated changes no metadata: fdatasync waits for the data alone,
 * not for a journal commit, where a temporary file's fsync, rename and the folder's fsync wait
 * for two (0.15 against 0.7 ms on this project's ext4 machine); left to the page cache, it is one
 * write(2) against a new inode and a rename. A write that does not fit the slots, or the first,
 * makes the file anew through fs.h's replace. -errno on failure; -EBADMSG when neither slot is
 * valid. */
#ifndef FLEXLET_BASE_SLOT_FILE_H
#define FLEXLET_BASE_SLOT_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The largest payload a slot file takes. */
#define SLOT_FILE_MAX (1024 * 1024)

/* How far a write goes before slot_file_write returns: SLOT_FILE_DURABLE, to the disk (one
 * fdatasync; a file made anew: fs.h's durable replace); SLOT_FILE_CACHED, to the page cache only,
 * which a killed process leaves behind but a power loss may not (the file then reads as an
 * older record, or none): for state whose loss only repeats idempotent work. */
enum slot_file_flush {
        SLOT_FILE_DURABLE,
        SLOT_FILE_CACHED,
};

/* Reads name in dirfd: the newest valid record's payload (NUL-terminated, malloc'ed) and its
 * sequence number, the one to pass to the next slot_file_write. */
int slot_file_read(int dirfd, const char *name, char **ret, size_t *ret_len, uint64_t *ret_seq);

/* Writes data as record *seq + 1, as far as flush says, and sets *seq to it once written (*seq
 * unchanged on failure: a retry overwrites the same slot, never the one holding the last good
 * record). *seq is 0 for a file not read before (it is then made anew). */
int slot_file_write(int dirfd, const char *name, uint64_t *seq, const char *data, size_t len,
                    enum slot_file_flush flush);

#endif
