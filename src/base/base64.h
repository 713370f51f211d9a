/* base64.h: standard base64 (RFC 4648 §4, '=' padding) as Go's encoding/base64 StdEncoding
 * reads and writes it, which is how Go's encoding/json carries []byte values: Secret.data and
 * ConfigMap.binaryData on the JSON wire. Pure functions over memory; nothing here fails but on
 * bad input. */
#ifndef FLEXLET_BASE_BASE64_H
#define FLEXLET_BASE_BASE64_H

#include <stddef.h>

#include "base/error.h"

/* K8S (Go): base64.StdEncoding.Decode: quanta of four characters, '=' padding required, '\r'
 * and '\n' skipped anywhere, nothing but line breaks after the padding, bits after the last
 * byte ignored (not strict). On success *ret_out is a malloc'd buffer of *ret_len bytes plus a
 * terminating NUL (not counted); ret_out may be NULL to only check and measure. On bad input
 * -EINVAL and Go's CorruptInputError message "illegal base64 data at input byte N" with Go's N. */
int base64_decode(const char *s, size_t len, char **ret_out, size_t *ret_len,
                  struct error **reterr);

/* base64.StdEncoding.EncodeToString of n bytes; caller frees. */
char *base64_encode(const void *data, size_t n);

/* base64.RawURLEncoding (RFC 4648 §5 without padding), as JWS (RFC 7515) segments use it:
 * encode n bytes (caller frees); decode len characters of '-', '_' and alphanumerics (anything
 * else, '=' included, and a length that cannot end a quantum, is -EINVAL) into a malloc'd,
 * NUL-terminated buffer of *ret_len bytes. */
char *base64url_encode(const void *data, size_t n);
int base64url_decode(const char *s, size_t len, char **ret_out, size_t *ret_len);

#endif
