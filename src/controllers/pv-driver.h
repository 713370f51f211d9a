/* pv-driver.h: how the storage controllers reach the backing files of the volumes of the node
 * that runs in their own process (`flexlet serve`'s node), without knowing how files are made:
 * serve fills it from node/volume/nodevol.h. The volumes of every other node are that node's
 * work (docs/storage.md, "Volumes on their node"): the controllers then only write API objects.
 * All functions: 0 or -errno with *reterr "<action> volume "<file>": <cause>". */
#ifndef FLEXLET_CONTROLLERS_PV_DRIVER_H
#define FLEXLET_CONTROLLERS_PV_DRIVER_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"

struct pv_driver {
        /* the node whose files these are (its Node name); volumes pinned to it, and volumes
         * with no node affinity (made before volumes were pinned), are the driver's */
        const char *node;
        void *ud;
        /* makes and formats the file of handle (idempotent: a file already formatted is kept,
         * whatever its size), then its size in *ret_file_bytes */
        int (*create)(void *ud, const char *handle, int64_t bytes, const char *fstype,
                      int64_t *ret_file_bytes, struct error **reterr);
        /* grows the file of handle, and its loop device when attached, to bytes (never
         * shrinks: -EINVAL below the file's size); *ret_file_bytes: the size it now has */
        int (*grow)(void *ud, const char *handle, int64_t bytes, int64_t *ret_file_bytes,
                    struct error **reterr);
        /* the file's size; -ENOENT when missing */
        int (*file_bytes)(void *ud, const char *handle, int64_t *ret);
        /* removes files no volume (handles: name -> anything) and no claim (uids) names, left
         * older than age_s seconds */
        void (*sweep_orphans)(void *ud, const json_t *handles, const json_t *uids, int age_s);
};

#endif
