/* test-fs.c: the state-file writers of base/fs.h: the durable one and the atomic-only one both
 * replace a file whole, leave no temporary file behind, refuse a symbolic link in the name's
 * place, and read back as what they wrote; and base/slot-file.h's two slots (allocated.slots'
 * flushed, actuated.slots' cached): written in place, a torn newest slot read as the record
 * before it, grown when a record outgrows them, the sequence kept on a failed write. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/macro.h"
#include "base/slot-file.h"

struct dir {
        char path[64];
        int fd;
};

static int setup(void **state)
{
        struct dir *d = xcalloc(1, sizeof(*d));

        (void) snprintf(d->path, sizeof(d->path), "/tmp/flexlet-test-fs.XXXXXX");
        if (!mkdtemp(d->path))
                return -1;
        d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        *state = d;
        return d->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
        struct dir *d = *state;

        (void) close(d->fd);
        (void) fs_remove_tree(d->path);
        free(d);
        return 0;
}

/* The names in the folder, in no order, as one string "a b " (tests compare sets of one). */
static size_t entries(const struct dir *d, char *out, size_t cap)
{
        DIR *dd = opendir(d->path);
        struct dirent *de;
        size_t n = 0;

        out[0] = '\0';
        assert_non_null(dd);
        while ((de = readdir(dd))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                (void) strncat(out, de->d_name, cap - strlen(out) - 2);
                (void) strcat(out, " ");
                n++;
        }
        (void) closedir(dd);
        return n;
}

static void check_writer(void **state, int (*write)(int, const char *, const char *, size_t))
{
        struct dir *d = *state;
        cleanup_free char *got = NULL;
        char names[256];
        size_t len = 0;

        assert_int_equal(write(d->fd, "s.json", "{\"a\":1,\"long\":\"xxxxxxxx\"}", 25), 0);
        assert_int_equal(write(d->fd, "s.json", "{\"a\":2}", 7), 0);
        assert_int_equal(fs_read_file_at(d->fd, "s.json", 1024, &got, &len), 0);
        /* replaced whole: nothing of the longer first content is left */
        assert_int_equal(len, 7);
        assert_string_equal(got, "{\"a\":2}");
        assert_int_equal(entries(d, names, sizeof(names)), 1);
        assert_string_equal(names, "s.json ");
}

static void test_durable_replaces_whole(void **state)
{
        check_writer(state, fs_write_file_atomic);
}

static void test_replace_replaces_whole(void **state)
{
        check_writer(state, fs_write_file_replace);
}

/* a symbolic link where the file goes is replaced as a name, never written through */
static void test_replace_never_follows_a_link(void **state)
{
        struct dir *d = *state;
        cleanup_free char *target = xasprintf("%s/target", d->path);
        cleanup_free char *got = NULL;
        struct stat st;

        assert_int_equal(fs_write_file_replace(d->fd, "target", "old", 3), 0);
        assert_int_equal(symlinkat(target, d->fd, "s.json"), 0);
        assert_int_equal(fs_write_file_replace(d->fd, "s.json", "new", 3), 0);
        assert_int_equal(fstatat(d->fd, "s.json", &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(fs_read_file_at(d->fd, "target", 64, &got, NULL), 0);
        assert_string_equal(got, "old");
}

static void test_replace_reports_errno(void **state)
{
        struct dir *d = *state;
        char names[256];

        assert_int_equal(fs_write_file_replace(d->fd, "no-such-dir/s.json", "x", 1), -ENOENT);
        assert_int_equal(fs_write_file_replace(-1, "s.json", "x", 1), -EBADF);
        assert_int_equal(entries(d, names, sizeof(names)), 0);
}

/* an empty or torn file (what a power loss can leave of an unsynced one) does not parse */
static void test_torn_json_is_ebadmsg(void **state)
{
        struct dir *d = *state;
        json_t *got = NULL;

        assert_int_equal(fs_write_file_replace(d->fd, "a.json", "", 0), 0);
        assert_int_equal(fs_read_json_at(d->fd, "a.json", &got), -EBADMSG);
        assert_int_equal(fs_write_file_replace(d->fd, "a.json", "{\"pod\":{\"cpu", 12), 0);
        assert_int_equal(fs_read_json_at(d->fd, "a.json", &got), -EBADMSG);
        assert_null(got);
}

static void slot_read_equal(const struct dir *d, const char *want, uint64_t want_seq)
{
        cleanup_free char *got = NULL;
        uint64_t seq = 0;
        size_t len = 0;

        assert_int_equal(slot_file_read(d->fd, "a.slots", &got, &len, &seq), 0);
        assert_string_equal(got, want);
        assert_int_equal(len, strlen(want));
        assert_int_equal(seq, want_seq);
}

/* the first write makes the file (two 4 KiB slots); the next ones overwrite it in place, flushed
 * or not */
static void check_in_place(const struct dir *d, enum slot_file_flush flush)
{
        uint64_t seq = 0;
        struct stat first, later;
        char names[256];

        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "{\"a\":1}", 7, flush), 0);
        assert_int_equal(seq, 1);
        assert_int_equal(fstatat(d->fd, "a.slots", &first, 0), 0);
        assert_int_equal(first.st_size, 8192);
        slot_read_equal(d, "{\"a\":1}", 1);
        for (int i = 2; i <= 5; i++) {
                char rec[32];

                (void) snprintf(rec, sizeof(rec), "{\"a\":%d}", i);
                assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, rec, strlen(rec), flush),
                                 0);
                assert_int_equal(seq, (uint64_t) i);
                slot_read_equal(d, rec, seq);
        }
        assert_int_equal(fstatat(d->fd, "a.slots", &later, 0), 0);
        assert_int_equal(later.st_ino, first.st_ino);
        assert_int_equal(later.st_size, 8192);
        assert_int_equal(entries(d, names, sizeof(names)), 1);
        assert_string_equal(names, "a.slots ");
}

static void test_slots_write_in_place(void **state)
{
        check_in_place(*state, SLOT_FILE_DURABLE);
}

static void test_slots_cached_write_in_place(void **state)
{
        check_in_place(*state, SLOT_FILE_CACHED);
}

/* a byte of the newest slot changed (what a power loss can leave of a write in progress): the
 * record before it is read, and the next write goes into the same slot again */
static void test_slots_torn_newest_reads_previous(void **state)
{
        struct dir *d = *state;
        cleanup_close int fd = -1;
        uint64_t seq = 0;

        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "first", 5, SLOT_FILE_DURABLE), 0);
        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "second", 6, SLOT_FILE_DURABLE),
                         0);
        assert_int_equal(seq, 2);
        fd = openat(d->fd, "a.slots", O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        /* record 2 is in slot 0: its payload starts after the 32-byte header */
        assert_int_equal(pwrite(fd, "X", 1, 34), 1);
        slot_read_equal(d, "first", 1);
        seq = 1;
        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "third", 5, SLOT_FILE_DURABLE), 0);
        slot_read_equal(d, "third", 2);
        /* its header torn: the same */
        assert_int_equal(pwrite(fd, "\xff", 1, 9), 1);
        slot_read_equal(d, "first", 1);
}

static void test_slots_none_valid(void **state)
{
        struct dir *d = *state;
        char *got = NULL;
        size_t len;
        uint64_t seq = 7;
        char zeros[8192] = { 0 };

        assert_int_equal(slot_file_read(d->fd, "a.slots", &got, &len, &seq), -ENOENT);
        assert_int_equal(fs_write_file_replace(d->fd, "a.slots", "", 0), 0);
        assert_int_equal(slot_file_read(d->fd, "a.slots", &got, &len, &seq), -EBADMSG);
        assert_int_equal(fs_write_file_replace(d->fd, "a.slots", zeros, sizeof(zeros)), 0);
        assert_int_equal(slot_file_read(d->fd, "a.slots", &got, &len, &seq), -EBADMSG);
        assert_int_equal(fs_write_file_replace(d->fd, "a.slots", "{\"a\":1}", 7), 0);
        assert_int_equal(slot_file_read(d->fd, "a.slots", &got, &len, &seq), -EBADMSG);
        assert_null(got);
        assert_int_equal(seq, 7);
}

/* a record larger than the slots makes the file anew with larger ones; records stay in order */
static void test_slots_grow(void **state)
{
        struct dir *d = *state;
        cleanup_free char *big = xmalloc(10000);
        uint64_t seq = 0;
        struct stat st;

        memset(big, 'b', 9999);
        big[9999] = '\0';
        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "small", 5, SLOT_FILE_DURABLE), 0);
        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, big, 9999, SLOT_FILE_DURABLE), 0);
        assert_int_equal(fstatat(d->fd, "a.slots", &st, 0), 0);
        assert_int_equal(st.st_size, 2 * 12288);
        slot_read_equal(d, big, 2);
        assert_int_equal(
                slot_file_write(d->fd, "a.slots", &seq, "small again", 11, SLOT_FILE_DURABLE), 0);
        slot_read_equal(d, "small again", 3);
        assert_int_equal(
                slot_file_write(d->fd, "a.slots", &seq, big, SLOT_FILE_MAX + 1, SLOT_FILE_DURABLE),
                -EFBIG);
        assert_int_equal(seq, 3);
}

/* a failed write leaves the sequence where it was (a retry never overwrites the last good
 * record's slot); a symbolic link in the file's place is never written through */
static void test_slots_failure_keeps_sequence(void **state)
{
        struct dir *d = *state;
        cleanup_free char *target = xasprintf("%s/target", d->path);
        cleanup_free char *got = NULL;
        uint64_t seq = 0;

        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "one", 3, SLOT_FILE_DURABLE), 0);
        assert_int_equal(slot_file_write(-1, "a.slots", &seq, "two", 3, SLOT_FILE_DURABLE), -EBADF);
        assert_int_equal(seq, 1);
        assert_int_equal(fs_write_file_replace(d->fd, "target", "old", 3), 0);
        assert_int_equal(unlinkat(d->fd, "a.slots", 0), 0);
        assert_int_equal(symlinkat(target, d->fd, "a.slots"), 0);
        assert_int_equal(slot_file_write(d->fd, "a.slots", &seq, "two", 3, SLOT_FILE_DURABLE),
                         -ELOOP);
        assert_int_equal(seq, 1);
        assert_int_equal(fs_read_file_at(d->fd, "target", 64, &got, NULL), 0);
        assert_string_equal(got, "old");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_durable_replaces_whole, setup, teardown),
                cmocka_unit_test_setup_teardown(test_replace_replaces_whole, setup, teardown),
                cmocka_unit_test_setup_teardown(test_replace_never_follows_a_link, setup, teardown),
                cmocka_unit_test_setup_teardown(test_replace_reports_errno, setup, teardown),
                cmocka_unit_test_setup_teardown(test_torn_json_is_ebadmsg, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slots_write_in_place, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slots_cached_write_in_place, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slots_torn_newest_reads_previous, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_slots_none_valid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slots_grow, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slots_failure_keeps_sequence, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
