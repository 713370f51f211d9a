/* utf8.h: UTF-8 as Go reads it (unicode/utf8), the one decoder behind every place flexlet
 * must see text as kube-apiserver does: quoting in messages, label and selector values,
 * request paths and query parameters, metric label values. */
#ifndef FLEXLET_BASE_UTF8_H
#define FLEXLET_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Go's utf8.DecodeRune over the n bytes at s (n >= 1): the code point and its length in
 * *ret_len; for an invalid, overlong, surrogate or truncated sequence -1 and a length of 1
 * (Go's RuneError, width 1). */
int32_t utf8_decode(const char *s, size_t n, size_t *ret_len);

/* Go's utf8.Valid over n bytes (a NUL byte is valid, as in Go). */
bool utf8_valid(const char *s, size_t n);

/* Appends the n bytes at s with each byte that is not part of valid UTF-8 replaced by U+FFFD,
 * as Go's encoding/json writes a string (a status message cut inside a character included). */
void utf8_append_valid(struct strbuf *sb, const char *s, size_t n);

/* Go's unicode.IsPrint for a code point >= 0x80, approximated without Unicode tables: C1
 * controls, non-ASCII spaces, format characters, private use, noncharacters, tags and the
 * unassigned planes 4-13 are not printable; unassigned code points inside planes 0-3 (which Go
 * also escapes) pass as printable. */
bool utf8_go_is_print(int32_t r);

/* Appends Go's strconv.Quote (%q) of the n bytes at s, as upstream quotes values and names in
 * its messages: printable runes as they are, '"' and '\' escaped, \a \b \f \n \r \t \v,
 * other controls and invalid bytes as \xNN, other unprintable runes as \uNNNN or \UNNNNNNNN. */
void utf8_go_quote(struct strbuf *sb, const char *s, size_t n);

#endif
