/* userns.c: the node's user namespace ID ranges: a bitmap of 65536-ID slots (what is handed
 * out, what is free) and each pod's record of its range. Making the namespace and mapping the
 * volumes is the runtime's (src/node/runtime/userns.c); when to allocate and free is the pod
 * worker's. */
#include <errno.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "node/userns.h"

static int slot_of(uint32_t base, uint32_t *ret)
{
        uint32_t slot = base / USERNS_LENGTH;

        if (base % USERNS_LENGTH || slot < USERNS_FIRST_SLOT ||
            slot >= USERNS_FIRST_SLOT + USERNS_SLOTS)
                return -EINVAL;
        *ret = slot - USERNS_FIRST_SLOT;
        return 0;
}

bool userns_ranges_taken(const struct userns_ranges *r, uint32_t base)
{
        uint32_t i;

        if (slot_of(base, &i) < 0)
                return false;
        return r->used[i / 8] & (1U << (i % 8));
}

int userns_ranges_record(struct userns_ranges *r, uint32_t base)
{
        uint32_t i;

        if (slot_of(base, &i) < 0)
                return -EINVAL;
        if (r->used[i / 8] & (1U << (i % 8)))
                return -EEXIST;
        r->used[i / 8] |= (uint8_t) (1U << (i % 8));
        return 0;
}

int userns_ranges_take(struct userns_ranges *r, uint32_t *ret_base)
{
        for (uint32_t byte = 0; byte < sizeof(r->used); byte++) {
                if (r->used[byte] == 0xff)
                        continue;
                for (uint32_t bit = 0; bit < 8; bit++) {
                        uint32_t i = byte * 8 + bit;

                        if (i >= USERNS_SLOTS)
                                return -ENOSPC;
                        if (r->used[byte] & (1U << bit))
                                continue;
                        r->used[byte] |= (uint8_t) (1U << bit);
                        *ret_base = (i + USERNS_FIRST_SLOT) * USERNS_LENGTH;
                        return 0;
                }
        }
        return -ENOSPC;
}

void userns_ranges_release(struct userns_ranges *r, uint32_t base)
{
        uint32_t i;

        if (slot_of(base, &i) == 0)
                r->used[i / 8] &= (uint8_t) ~(1U << (i % 8));
}

/* One mapping of the record: {"hostId", "containerId", "length"}, exactly one in the array. */
static int mapping_of(const json_t *arr, uint32_t *ret_host, uint32_t *ret_container,
                      uint32_t *ret_length)
{
        const json_t *m = json_array_get(arr, 0), *h, *c, *l;

        if (!json_is_array(arr) || json_array_size(arr) != 1 || !json_is_object(m))
                return -EBADMSG;
        h = json_object_get(m, "hostId");
        c = json_object_get(m, "containerId");
        l = json_object_get(m, "length");
        if (!json_is_integer(h) || !json_is_integer(c) || !json_is_integer(l) ||
            json_integer_value(h) < 0 || json_integer_value(h) > UINT32_MAX ||
            json_integer_value(c) < 0 || json_integer_value(c) > UINT32_MAX ||
            json_integer_value(l) < 0 || json_integer_value(l) > UINT32_MAX)
                return -EBADMSG;
        *ret_host = (uint32_t) json_integer_value(h);
        *ret_container = (uint32_t) json_integer_value(c);
        *ret_length = (uint32_t) json_integer_value(l);
        return 0;
}

int userns_record_read(int pod_dir_fd, uint32_t *ret_base, struct error **reterr)
{
        cleanup_json json_t *j = NULL;
        uint32_t uh, uc, ul, gh, gc, gl, slot;
        int r;

        r = fs_read_json_at(pod_dir_fd, USERNS_FILE, &j);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return error_set(reterr, -r, "user namespace: read the pod's %s: %s", USERNS_FILE,
                                 strerror(-r));
        /* K8S parseUserNsFileAndRecord: one mapping each, identical, container ID 0 mapped */
        if (mapping_of(json_object_get(j, "uidMappings"), &uh, &uc, &ul) < 0 ||
            mapping_of(json_object_get(j, "gidMappings"), &gh, &gc, &gl) < 0)
                return error_set(reterr, EBADMSG,
                                 "user namespace: invalid user namespace mappings file");
        if (uh != gh || uc != gc || ul != gl)
                return error_set(reterr, EBADMSG,
                                 "user namespace: invalid user namespace configuration: GID and "
                                 "UID mapping should be identical");
        if (uc != 0)
                return error_set(reterr, EBADMSG,
                                 "user namespace: invalid user namespace configuration: UID 0 "
                                 "must be mapped");
        if (ul != USERNS_LENGTH)
                return error_set(reterr, EBADMSG, "user namespace: wrong user namespace length %u",
                                 ul);
        if (slot_of(uh, &slot) < 0)
                return error_set(reterr, EBADMSG,
                                 "user namespace: wrong user namespace offset specified %u", uh);
        *ret_base = uh;
        return 1;
}

int userns_record_write(int pod_dir_fd, uint32_t base, struct error **reterr)
{
        cleanup_json json_t *j = NULL;
        int r;

        j = json_pack("{s:[{s:I, s:i, s:I}], s:[{s:I, s:i, s:I}]}", "uidMappings", "hostId",
                      (json_int_t) base, "containerId", 0, "length", (json_int_t) USERNS_LENGTH,
                      "gidMappings", "hostId", (json_int_t) base, "containerId", 0, "length",
                      (json_int_t) USERNS_LENGTH);
        /* fs_write_json_atomic: temporary file, fsync, rename, then the folder's fsync, as
         * upstream's writeMappingsToFile (atomic write, then the parent dir synced) */
        r = fs_write_json_atomic(pod_dir_fd, USERNS_FILE, j);
        if (r < 0)
                return error_set(reterr, -r, "user namespace: write the pod's %s: %s", USERNS_FILE,
                                 strerror(-r));
        return 0;
}
