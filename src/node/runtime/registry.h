/* registry.h: pulling an image from a registry that speaks the distribution API v2 (OCI
 * distribution-spec), into the node's content-addressed image store (image-store.c).
 *
 * Contract:
 * - registry_pull resolves the image's manifest (by tag or digest), follows an index or manifest
 *   list to the manifest for this platform (linux and this machine's architecture, as containerd's
 *   default platform matcher), fetches its config and the layers the store lacks, checks every
 *   byte against the digest and size of the descriptor that names it (a mismatch fails the pull
 *   and keeps nothing), and hands them to the store as an OCI layout (rt_image_import_tree), so a
 *   pulled image is recorded, shared and collected exactly as an imported one.
 * - Registries are hostile: manifests, indexes and configs are capped at 4 MiB, token responses
 *   at 64 KiB, a layer at its descriptor's size; unknown media types are refused; redirects are
 *   followed only to https (or http for a registry named insecure), at most 5.
 * - Auth: anonymous, then each matching credential in turn; a `WWW-Authenticate: Bearer` challenge
 *   is answered with a token from its realm (the credential as basic auth there), a `Basic` one
 *   with the credential. Plain http only for registries in `insecure` (HOST[:PORT]); https is
 *   verified against the system's CA store otherwise.
 * - Blocking (network and disk): call it off any loop that must stay responsive (image-puller.h).
 *   Thread-safe.
 * - Errors read as containerd's through the CRI, which is what the kubelet shows:
 *   `rpc error: code = NotFound desc = failed to pull and unpack image "X": failed to resolve
 *   reference "X": X: not found` and the like. */
#ifndef FLEXLET_NODE_RUNTIME_REGISTRY_H
#define FLEXLET_NODE_RUNTIME_REGISTRY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct registry_credential {
        char *username;
        char *password;
};

/* A pull's inputs. */
struct registry_pull_options {
        const char *const *insecure;             /* HOST[:PORT] over plain http; NULL-ended */
        const struct registry_credential *creds; /* to try in order after anonymous fails */
        size_t n_creds;
        const int *cancel; /* when it reads non-zero (atomically), transfers stop; may be NULL */
};

struct registry_pull_result {
        char *reference;     /* the name it is stored under (canonical) */
        uint64_t size;       /* bytes of config and layers, as the registry serves them */
        unsigned layers_new; /* fetched (the others the store had) */
};
void registry_pull_result_release(struct registry_pull_result *r);

/* Pulls `image` into DATA/images of data_dir. 0, or -errno with *reterr. */
int registry_pull(const char *data_dir, const char *image, const struct registry_pull_options *o,
                  struct registry_pull_result *ret, struct error **reterr);

/* ---- the parts, for tests */

/* A WWW-Authenticate challenge: scheme "Bearer" or "Basic" (as sent), and its parameters. */
struct registry_challenge {
        char *scheme;
        char *realm;
        char *service;
        char *scope;
};
void registry_challenge_release(struct registry_challenge *c);
/* Parses the header's value (RFC 7235: scheme, then key="quoted" or key=token pairs). -EINVAL
 * when it is not one. */
int registry_challenge_parse(const char *value, struct registry_challenge *ret);

/* The credentials for registry host `domain` in a kubernetes.io/dockerconfigjson Secret's
 * `.dockerconfigjson` bytes ({"auths": {KEY: {"auth": base64(user:pass)} or {"username",
 * "password"}}}), KEY matched as the kubelet's credential provider does (a URL or host, with or
 * without scheme and path; docker.io's index.docker.io/v1/ forms). Appends each match to *creds.
 * 0 (maybe none appended), or -EINVAL with *reterr when the bytes are not such a config. */
int registry_dockerconfig_creds(const char *json, size_t len, const char *domain,
                                struct registry_credential **creds, size_t *n_creds,
                                struct error **reterr);
void registry_credentials_free(struct registry_credential *creds, size_t n);

enum registry_media {
        REGISTRY_MEDIA_UNKNOWN,
        REGISTRY_MEDIA_INDEX,    /* OCI index, Docker manifest list */
        REGISTRY_MEDIA_MANIFEST, /* OCI manifest, Docker schema 2 manifest */
};
/* What a manifest response is: its mediaType field, else the Content-Type it came with. */
enum registry_media registry_media_kind(const char *media_type);

/* The digest (owned) of the manifest of an index for linux on `arch` (an OCI architecture:
 * "amd64", "arm64"); a descriptor's variant is not compared. -ENOENT with *reterr when none
 * matches, -EINVAL when the index is not one. *ret_size: the descriptor's size. */
int registry_index_select(const json_t *index, const char *arch, char **ret_digest,
                          int64_t *ret_size, struct error **reterr);

/* Checks a manifest's own shape: a sha256 config and layers with sizes within bounds, known
 * layer media types. 0 or -EINVAL with *reterr. */
int registry_manifest_check(const json_t *manifest, struct error **reterr);

/* This machine's OCI architecture. */
const char *registry_arch(void);

#endif
