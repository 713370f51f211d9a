/* fuzz-yaml.c: arbitrary bytes through yaml_to_json. A failure must carry a message; a success
 * must encode as JSON, and that JSON text, read back as YAML (JSON is YAML), must give an equal
 * value: numbers keep their integer/real kind, strings their bytes. No crash, no leak. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/yaml.h"
#include "base/json.h"
#include "base/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* jansson writes non-ASCII text raw; YAML forbids DEL, C1 controls and U+FFFE/U+FFFF raw, and
 * reads NEL, LS and PS as line breaks, so those are escaped before the text is read as YAML. */
static void yaml_safe(struct strbuf *sb, const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (*p == 0x7F)
                        strbuf_addstr(sb, "\\u007f");
                else if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
                        strbuf_addf(sb, "\\u%04x", p[1]), p++;
                else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9))
                        strbuf_addf(sb, "\\u%04x", 0x2000 | (p[2] - 0x80)), p += 2;
                else if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
                        strbuf_addf(sb, "\\u%04x", 0xFFC0 | (p[2] & 0x3F)), p += 2;
                else
                        strbuf_addch(sb, (char) *p);
        }
}

/* YAML (libyaml and go-yaml alike) takes an implicit key of at most 1024 characters; JSON keys
 * whose escaped text may pass that are not YAML, so such values skip the round trip. */
static bool keys_fit_yaml(json_t *v)
{
        const char *key;
        json_t *item;
        size_t i;

        if (json_is_object(v)) {
                json_object_foreach(v, key, item)
                        if (strlen(key) > 1024 / 6 - 2 || !keys_fit_yaml(item))
                                return false;
        } else if (json_is_array(v)) {
                json_array_foreach(v, i, item)
                        if (!keys_fit_yaml(item))
                                return false;
        }
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        json_t *v = NULL, *again = NULL;
        struct error *err = NULL;
        struct strbuf sb;
        char *text;

        if (yaml_to_json((const char *) data, size, &v, &err) < 0) {
                if (!err || !err->message || !*err->message)
                        abort();
                error_free(err);
                return 0;
        }
        text = json_dumps(v, JSON_ENCODE_ANY);
        if (!text)
                abort();
        strbuf_init(&sb);
        yaml_safe(&sb, text);
        if (sb.len <= YAML_MAX_INPUT_BYTES && keys_fit_yaml(v)) {
                if (yaml_to_json(sb.buf, sb.len, &again, &err) < 0) {
                        fprintf(stderr, "JSON text %s fails as YAML: %s\n", sb.buf, err->message);
                        abort();
                }
                if (!json_equal(v, again)) {
                        char *back = json_dumps(again, JSON_ENCODE_ANY);

                        fprintf(stderr, "JSON text %s reads back as %s\n", sb.buf, back);
                        abort();
                }
        }
        json_decref(again);
        json_decref(v);
        free(text);
        strbuf_release(&sb);
        return 0;
}
