/* names.h: generated object names, as apiserver's SimpleNameGenerator makes them
 * (k8s.io/apiserver/pkg/storage/names: the prefix, cut to 58 characters, and 5 random
 * characters of utilrand's alphabet, which has no vowels so no word is spelled). Used for
 * metadata.generateName and for the names admission plugins give what they add. */
#ifndef FLEXLET_BASE_NAMES_H
#define FLEXLET_BASE_NAMES_H

/* K8S: maxGeneratedNameLength = 63 - 5: the longest prefix kept */
#define NAME_GENERATE_MAX_PREFIX 58

/* prefix (cut to NAME_GENERATE_MAX_PREFIX bytes) followed by 5 random characters of
 * "bcdfghjklmnpqrstvwxz2456789"; malloc'd. Aborts if the kernel has no randomness. */
char *name_generate(const char *prefix);

#endif
