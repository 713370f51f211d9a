/* utf8.h: UTF-8 as Go reads it (unicode/utf8), the one decoder behind every place flexlet
 * must see text as kube-apiserver does: quoting in messages, label and selector values,
 * request paths and query parameters, metric label values. */
#ifndef FLEXLET_BASE_UTF8_H
#define FLEXLET_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Go's utf8.DecodeRune over the n bytes at s (n >= 1): the code point and its length in
 * *ret_len; for an invalid, overlong, surrogate or truncated sequence -1 and a length of 1
 * (Go's RuneError, width 1). */
int32_t utf8_decode(const char *s, size_t n, size_t *ret_len);

/* Go's utf8.Valid over n bytes (a NUL byte is valid, as in Go). */
bool utf8_valid(const char *s, size_t n);

#endif
