/* local-volume.h: what the API server, the storage controllers and the owning node agree on
 * about a local-loop volume (docs/storage.md, "Volumes on their node"): which node it lives on
 * and where its backing file is. Pure functions over the PersistentVolume. */
#ifndef FLEXLET_API_LOCAL_VOLUME_H
#define FLEXLET_API_LOCAL_VOLUME_H

#include <jansson.h>
#include <stdbool.h>

/* Whether pv's required nodeAffinity pins it to node and to node only: one nodeSelectorTerm
 * holding one matchExpression "kubernetes.io/hostname In [node]" and nothing else (what the
 * local-loop provisioner writes). node NULL or "": false. */
bool local_volume_pinned_to(const json_t *pv, const char *node);

/* The backing file of a volume: "<data_dir>/volumes/<handle>.img" (caller frees), or NULL when
 * handle is not a single safe path component ([a-z0-9.-], not starting with '.', at most 253
 * bytes). */
char *local_volume_file(const char *data_dir, const char *handle);

#endif
