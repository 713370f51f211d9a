/* base64.h: Go's base64.StdEncoding, the form encoding/json gives a []byte (Secret data,
 * ConfigMap binaryData): the standard alphabet with '=' padding.
 *
 * base64_decode follows Go's StdEncoding.Decode: quanta of four, padding required, '\r' and '\n'
 * skipped anywhere, nothing but line breaks after the padding; anything else is -EINVAL.
 * (api/yaml.c's !!binary decoder and apiserver/pki.c's encoder are older copies of the same.) */
#ifndef FLEXLET_BASE_BASE64_H
#define FLEXLET_BASE_BASE64_H

#include <stddef.h>
#include "base/strbuf.h"

/* Appends the base64 of data[0..len) to sb. */
void base64_encode(struct strbuf *sb, const void *data, size_t len);
/* Appends the bytes s[0..len) encodes to out; -EINVAL (out then truncated back) when s is not
 * valid base64. */
int base64_decode(const char *s, size_t len, struct strbuf *out);

#endif
