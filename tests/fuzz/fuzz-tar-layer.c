/* fuzz-tar-layer.c: libFuzzer target for image layer extraction (tar.c): the bytes, as a plain,
 * gzip or zstd tarball, unpacked with OCI whiteouts on (the first byte's low bit off) or off,
 * into a fresh root inside a fresh folder, and the layer's uncompressed digest taken.
 *
 * Invariants: a failure carries a message; whatever the input, nothing is created beside the
 * root (the folder holds the root and nothing else) and nothing outside that folder is touched
 * (the process's working directory is the folder's parent, checked empty but for it). */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "node/runtime/runtime-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char parent[64];

static void remove_parent(void)
{
        (void) fs_remove_tree(parent);
}

/* the names in dir, but for "." and ".." */
static int count_entries(const char *dir, const char *only)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        int n = 0;

        if (!d)
                abort();
        while ((de = readdir(d))) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                        continue;
                if (only && strcmp(de->d_name, only) != 0)
                        abort(); /* something landed beside the root */
                n++;
        }
        closedir(d);
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct rt_tar_options opts = { .whiteouts = size > 0 && !(data[0] & 1) };
        struct rt_tar_stats st;
        struct error *err = NULL;
        char base[128], root[160], sha[65];
        int fd, rootfd, r;

        if (!parent[0]) {
                strcpy(parent, "/tmp/fuzz-tar-layer-XXXXXX");
                if (!mkdtemp(parent))
                        abort();
                atexit(remove_parent);
        }
        snprintf(base, sizeof(base), "%s/base", parent);
        snprintf(root, sizeof(root), "%s/root", base);
        if (mkdir(base, 0755) < 0 || mkdir(root, 0755) < 0)
                abort();
        fd = memfd_create("layer", MFD_CLOEXEC);
        if (fd < 0 || write(fd, data, size) != (ssize_t) size || lseek(fd, 0, SEEK_SET) != 0)
                abort();
        rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                abort();

        r = rt_tar_extract(fd, rootfd, &opts, &st, &err);
        if (r < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
                err = NULL;
        }
        r = rt_tar_uncompressed_sha256(fd, sha, &err);
        if (r < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
        } else if (strlen(sha) != 64) {
                abort();
        }
        close(rootfd);
        close(fd);

        count_entries(base, "root");
        count_entries(parent, "base");
        if (fs_remove_tree(base) < 0)
                abort();
        return 0;
}
