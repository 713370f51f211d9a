/* uuid.h: random (version 4, RFC 4122) UUIDs in their 36-character text form, as Kubernetes
 * gives objects (metadata.uid) and tokens (jti). */
#ifndef FLEXLET_BASE_UUID_H
#define FLEXLET_BASE_UUID_H

#define UUID_STRING_LEN 36

/* Writes a new random UUID and its NUL into out; aborts if the kernel has no randomness. */
void uuid_random(char out[static UUID_STRING_LEN + 1]);

#endif
