/* slot-file.c: slot-file.h's two slots: the header's layout, its checks, the in-place write and
 * the file made anew. The file never leaves its host: the header is in the host's byte order. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/macro.h"
#include "base/slot-file.h"

#define SLOT_MAGIC "flxslot1"
/* slots are whole pages: an overwrite never shares a block with the other slot */
#define SLOT_ALIGN 4096

struct slot_header {
        char magic[8];
        uint64_t seq;
        uint64_t len;
        uint64_t sum;
};

static uint64_t slot_sum(uint64_t seq, uint64_t len, const char *data)
{
        uint64_t h = HASH_FNV_OFFSET;

        h = hash_fnv1a(h, &seq, sizeof(seq));
        h = hash_fnv1a(h, &len, sizeof(len));
        return hash_fnv1a(h, data, len);
}

static size_t slot_size_for(size_t len)
{
        return (sizeof(struct slot_header) + len + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
}

/* slot: one slot's bytes; the payload when the header holds, else NULL */
static const char *slot_payload(const char *slot, size_t slot_size, uint64_t *ret_seq,
                                size_t *ret_len)
{
        struct slot_header h;

        memcpy(&h, slot, sizeof(h));
        if (memcmp(h.magic, SLOT_MAGIC, sizeof(h.magic)) != 0 || h.seq == 0 ||
            h.len > slot_size - sizeof(h) || slot_sum(h.seq, h.len, slot + sizeof(h)) != h.sum)
                return NULL;
        *ret_seq = h.seq;
        *ret_len = (size_t) h.len;
        return slot + sizeof(h);
}

int slot_file_read(int dirfd, const char *name, char **ret, size_t *ret_len, uint64_t *ret_seq)
{
        cleanup_free char *file = NULL;
        const char *best = NULL;
        uint64_t best_seq = 0;
        size_t file_len, slot_size, best_len = 0;
        int r;

        r = fs_read_file_at(dirfd, name, 2 * slot_size_for(SLOT_FILE_MAX), &file, &file_len);
        if (r < 0)
                return r;
        slot_size = file_len / 2;
        if (file_len % (2 * SLOT_ALIGN) != 0 || slot_size == 0)
                return -EBADMSG;
        for (int i = 0; i < 2; i++) {
                uint64_t seq;
                size_t len;
                const char *payload = slot_payload(file + i * slot_size, slot_size, &seq, &len);

                if (payload && seq > best_seq) {
                        best = payload;
                        best_seq = seq;
                        best_len = len;
                }
        }
        if (!best)
                return -EBADMSG;
        *ret = xmalloc(best_len + 1);
        memcpy(*ret, best, best_len);
        (*ret)[best_len] = '\0';
        *ret_len = best_len;
        *ret_seq = best_seq;
        return 0;
}

static void slot_fill(char *slot, uint64_t seq, const char *data, size_t len)
{
        struct slot_header h = { .seq = seq, .len = len, .sum = slot_sum(seq, len, data) };

        memcpy(h.magic, SLOT_MAGIC, sizeof(h.magic));
        memcpy(slot, &h, sizeof(h));
        memcpy(slot + sizeof(h), data, len);
}

/* the record into its slot of the existing file, when the file's slots can hold it; 1 when
 * they cannot (the caller makes the file anew) */
static int write_in_place(int dirfd, const char *name, uint64_t seq, const char *data, size_t len,
                          enum slot_file_flush flush)
{
        cleanup_close int fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        cleanup_free char *slot = NULL;
        size_t slot_size, n;
        struct stat st;
        int r;

        if (fd < 0)
                return errno == ENOENT ? 1 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        slot_size = (size_t) st.st_size / 2;
        if (!S_ISREG(st.st_mode) || st.st_size % (2 * SLOT_ALIGN) != 0 ||
            sizeof(struct slot_header) + len > slot_size)
                return 1;
        n = sizeof(struct slot_header) + len;
        slot = xmalloc(n);
        slot_fill(slot, seq, data, len);
        if (lseek(fd, (off_t) ((seq % 2) * slot_size), SEEK_SET) < 0)
                return -errno;
        r = fs_write_all(fd, slot, n);
        if (r < 0 || flush == SLOT_FILE_CACHED)
                return r;
        return fdatasync(fd) < 0 ? -errno : 0;
}

int slot_file_write(int dirfd, const char *name, uint64_t *seq, const char *data, size_t len,
                    enum slot_file_flush flush)
{
        uint64_t next = *seq + 1;
        int r = 1;

        if (len > SLOT_FILE_MAX)
                return -EFBIG;
        if (*seq > 0)
                r = write_in_place(dirfd, name, next, data, len, flush);
        if (r > 0) {
                /* anew: both slots, the other one empty (the record is the newest) */
                size_t slot_size = slot_size_for(len);
                cleanup_free char *file = xcalloc(2, slot_size);

                slot_fill(file + (next % 2) * slot_size, next, data, len);
                r = flush == SLOT_FILE_DURABLE
                            ? fs_write_file_atomic(dirfd, name, file, 2 * slot_size)
                            : fs_write_file_replace(dirfd, name, file, 2 * slot_size);
        }
        if (r < 0)
                return r;
        *seq = next;
        return 0;
}
