/* admission-storage.h: the storage admission plugins kube-apiserver 1.33 runs by default:
 * DefaultStorageClass (a claim created without a class gets the default class),
 * PersistentVolumeClaimResize (only bound claims of a class that allows expansion may grow) and
 * StorageObjectInUseProtection (claims and volumes are created with their protection finalizer).
 * The decisions are pure functions over objects; the hooks, which the claims' and the volumes'
 * strategies carry (apiserver/resources.h), read the classes from the store. */
#ifndef FLEXLET_APISERVER_ADMISSION_STORAGE_H
#define FLEXLET_APISERVER_ADMISSION_STORAGE_H

#include <jansson.h>
#include <stdbool.h>

#include "apiserver/resources.h"
#include "base/error.h"

struct store;

/* K8S: GetDefaultClass (pkg/volume/util): among classes (a JSON array of StorageClasses), the
 * one annotated default created last, ties broken by the name first in byte order; NULL when no
 * class is annotated. Borrowed from classes. */
const json_t *storage_class_default(const json_t *classes);

/* K8S: DefaultStorageClass.Admit on create: a claim without a class (neither
 * spec.storageClassName, even "", nor the beta annotation) gets the default class's name in
 * spec.storageClassName. Returns whether it set one. */
bool pvc_default_storage_class(json_t *pvc, const json_t *classes);

/* K8S: PersistentVolumeClaimResize.Validate on an update of the claim itself: a request that
 * grows is refused with -EPERM and "Only bound persistent volume claims can be expanded" unless
 * the old claim is Bound, and with "only dynamically provisioned pvc can be resized and the
 * storageclass that provisions the pvc must support resize" unless both claims name the same
 * class and that class (sc, NULL when it does not exist) has allowVolumeExpansion true. */
int pvc_resize_admit(const json_t *new_pvc, const json_t *old_pvc, const json_t *sc,
                     struct error **reterr);

/* K8S: StorageObjectInUseProtection.Admit on create: appends finalizer to obj's
 * metadata.finalizers unless it is there already. Returns whether it added it. */
bool storage_object_protect(json_t *obj, const char *finalizer);

/* The claim strategy's hooks: StorageObjectInUseProtection and DefaultStorageClass on create
 * (the latter reads every class) and PersistentVolumeClaimResize on update (reads the claim's
 * class). A store failure refuses the request with -EPERM, as upstream's admission turns lister
 * errors into Forbidden. */
int pvc_admit(struct store *store, enum api_subresource sub, json_t *pvc, const json_t *old,
              struct error **reterr);
int pvc_admit_validate(struct store *store, enum api_subresource sub, const json_t *pvc,
                       const json_t *old, struct error **reterr);

/* The volume strategy's hook: StorageObjectInUseProtection on creates of the volume itself
 * (never through a subresource). Never fails. */
int pv_admit(struct store *store, enum api_subresource sub, json_t *pv, const json_t *old,
             struct error **reterr);

#endif
