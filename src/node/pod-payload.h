/* pod-payload.h: what the configMap, secret, downwardAPI and projected volumes of a pod hold, as
 * the kubelet's volume plugins compute it before their AtomicWriter writes it (K8S 1.33:
 * pkg/volume/configmap MakePayload, pkg/volume/secret MakePayload, pkg/volume/downwardapi
 * CollectData, pkg/volume/projected collectData). ConfigMaps and Secrets come through the same
 * lookup the environment uses (node/pod-config.h, backed by the agent's informer), service
 * account tokens through the node's token callback; nothing here does I/O of its own. The errors
 * are upstream's messages, which the pod worker reports as `MountVolume.SetUp failed for volume "x"
 * : <message>`. */
#ifndef FLEXLET_NODE_POD_PAYLOAD_H
#define FLEXLET_NODE_POD_PAYLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "node/pod-config.h"
#include "node/volume/atomic-writer.h"

/* K8S: ConfigMapVolumeSourceDefaultMode, SecretVolumeSourceDefaultMode,
 * DownwardAPIVolumeSourceDefaultMode, ProjectedVolumeSourceDefaultMode: all 0644 */
#define POD_PAYLOAD_DEFAULT_MODE 0644

/* A service account token for pod (its spec.serviceAccountName, bound to the pod by name and
 * uid) for audience (NULL: the API server's) valid for expiration_seconds (K8S: the projected
 * plugin's getServiceAccountToken, answered by the kubelet's token manager,
 * node/token-manager.h). *ret_token malloc'd; an error carries the cause. */
typedef int (*pod_token_fn)(void *ud, const json_t *pod, const char *audience,
                            int64_t expiration_seconds, char **ret_token, struct error **reterr);

/* What the node gives the payloads. The allocatable resources: a container's limit that is not
 * set reads as these (K8S MergeContainerResourceLimits); 0: not known (a resourceFieldRef
 * needing it fails). token: serviceAccountToken sources (NULL: they fail). */
struct pod_payload_node {
        int64_t allocatable_milli_cpu;
        int64_t allocatable_memory;
        pod_token_fn token;
        void *token_ud;
};

/* K8S: SetDefaults_ServiceAccountTokenProjection: a token source's expirationSeconds (1 h) */
#define POD_PAYLOAD_TOKEN_DEFAULT_SECONDS 3600

/* Whether the volume (an element of spec.volumes) is a configMap, secret, downwardAPI or
 * projected volume. */
bool pod_payload_volume(const json_t *volume);

/* The payload of such a volume of pod into *ret (empty on entry; released by the caller also
 * on failure). Follows upstream:
 *  - configMap/secret: every key of data (and a ConfigMap's binaryData; a Secret's data decoded
 *    from base64) with defaultMode, or only the items (key -> path, their mode or defaultMode);
 *    a missing object fails with the lookup's message (`configmap "x" not found`) unless
 *    optional, which gives an empty volume; an item whose key is missing fails (`configmap
 *    references non-existent config key: k`, `references non-existent secret key: k`) unless
 *    optional, which skips it;
 *  - downwardAPI: items with fieldRef (metadata.name, namespace, uid, labels, annotations as
 *    `key="value"` lines sorted by key, one label or annotation by subscript) or
 *    resourceFieldRef (a container's limits/requests of cpu, memory, ephemeral-storage,
 *    hugepages-*, divided by divisor and rounded up; an unset limit is the node's allocatable);
 *  - projected: its sources' payloads together with the volume's defaultMode, errors gathered
 *    as upstream's aggregate (one: its message; several: "[a, b]"). A serviceAccountToken
 *    source is node->token's answer for its audience and expirationSeconds (default 1 h) at its
 *    path, with the volume's defaultMode, or 0600 when the pod has an fsGroup or an FsUser (every
 *    container and init container runs as one same runAsUser, K8S FsUserFrom), the file then
 *    owned by that user (the fsGroup's ownership adds group read afterwards). A
 *    clusterTrustBundle source is refused (-ENOTSUP).
 * Paths are validated as the AtomicWriter does (atomic_writer_validate_path). -EAGAIN when the
 * informer has not listed yet. */
int pod_payload_build(const json_t *pod, const json_t *volume, pod_object_lookup_fn lookup,
                      void *ud, const struct pod_payload_node *node, struct atomic_payload *ret,
                      struct error **reterr);

#endif
