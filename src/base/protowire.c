/* protowire.c: protocol buffer varints, tags, fixed and length-delimited fields, written in
 * place with one compaction pass for nested lengths, and read with bounds checks (see
 * protowire.h). What the fields mean, and which are allowed where, is api/protobuf.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/protowire.h"

void pbw_init(struct pbw *w, struct strbuf *sb)
{
        memset(w, 0, sizeof(*w));
        w->sb = sb;
}

void pbw_release(struct pbw *w)
{
        free(w->fix);
        w->fix = NULL;
        w->nfix = w->afix = 0;
        w->depth = 0;
}

void pbw_finish(struct pbw *w)
{
        struct strbuf *sb = w->sb;
        size_t rd, wr;

        if (w->nfix > 0) {
                /* Slide every stretch between two length slots down over the unused part of the
                 * slots before it: one memmove per nested message, each byte moved once. */
                rd = wr = w->fix[0].at;
                for (size_t i = 0; i < w->nfix; i++) {
                        size_t keep = w->fix[i].at + w->fix[i].used - rd;
                        memmove(sb->buf + wr, sb->buf + rd, keep);
                        wr += keep;
                        rd = w->fix[i].at + PBW_LEN_MAX;
                }
                memmove(sb->buf + wr, sb->buf + rd, sb->len - rd);
                sb->len = wr + (sb->len - rd);
                sb->buf[sb->len] = '\0';
        }
        pbw_release(w);
}

static size_t varint_put(uint8_t out[10], uint64_t v)
{
        size_t n = 0;

        while (v >= 0x80) {
                out[n++] = (uint8_t) (v | 0x80);
                v >>= 7;
        }
        out[n++] = (uint8_t) v;
        return n;
}

void pbw_varint(struct pbw *w, uint64_t v)
{
        uint8_t b[10];

        strbuf_add(w->sb, b, varint_put(b, v));
}

void pbw_tag(struct pbw *w, uint32_t field, enum pb_wire wt)
{
        pbw_varint(w, ((uint64_t) field << 3) | (uint64_t) wt);
}

void pbw_uint64(struct pbw *w, uint32_t field, uint64_t v)
{
        pbw_tag(w, field, PB_WIRE_VARINT);
        pbw_varint(w, v);
}

void pbw_int64(struct pbw *w, uint32_t field, int64_t v)
{
        pbw_uint64(w, field, (uint64_t) v);
}

void pbw_int32(struct pbw *w, uint32_t field, int32_t v)
{
        /* Sign-extended to 64 bits: -1 is ten bytes, as protobuf's int32 specifies. */
        pbw_uint64(w, field, (uint64_t) (int64_t) v);
}

void pbw_bool(struct pbw *w, uint32_t field, bool v)
{
        pbw_uint64(w, field, v ? 1 : 0);
}

void pbw_double(struct pbw *w, uint32_t field, double v)
{
        uint64_t bits;
        uint8_t b[8];

        memcpy(&bits, &v, sizeof(bits));
        for (int i = 0; i < 8; i++)
                b[i] = (uint8_t) (bits >> (8 * i));
        pbw_tag(w, field, PB_WIRE_FIXED64);
        strbuf_add(w->sb, b, sizeof(b));
}

void pbw_bytes(struct pbw *w, uint32_t field, const void *data, size_t len)
{
        pbw_tag(w, field, PB_WIRE_LEN);
        pbw_varint(w, len);
        strbuf_add(w->sb, data, len);
}

void pbw_string(struct pbw *w, uint32_t field, const char *s)
{
        pbw_bytes(w, field, s, strlen(s));
}

int pbw_begin(struct pbw *w, uint32_t field)
{
        static const uint8_t zero[PBW_LEN_MAX];

        if (w->depth >= PB_MAX_DEPTH)
                return -E2BIG;
        pbw_tag(w, field, PB_WIRE_LEN);
        if (w->nfix == w->afix) {
                w->afix = w->afix ? 2 * w->afix : 16;
                w->fix = xrealloc(w->fix, w->afix * sizeof(*w->fix));
        }
        w->fix[w->nfix] = (struct pbw_fix){ .at = w->sb->len, .used = 0 };
        w->open[w->depth] = w->nfix++;
        w->saved[w->depth] = 0;
        w->depth++;
        strbuf_add(w->sb, zero, sizeof(zero));
        return 0;
}

void pbw_end(struct pbw *w)
{
        struct pbw_fix *fix;
        uint8_t b[10];
        size_t len, n, give;

        if (w->depth == 0)
                abort(); /* programming error: pbw_end without pbw_begin */
        w->depth--;
        fix = &w->fix[w->open[w->depth]];
        /* The final length: what was written after the slot less what the children give back. */
        len = w->sb->len - (fix->at + PBW_LEN_MAX) - w->saved[w->depth];
        n = varint_put(b, len);
        if (n > PBW_LEN_MAX)
                abort(); /* a message of 32 GiB: the caller's size caps make this impossible */
        memcpy(w->sb->buf + fix->at, b, n);
        fix->used = n;
        give = PBW_LEN_MAX - n + w->saved[w->depth];
        if (w->depth > 0)
                w->saved[w->depth - 1] += give;
}

/* ---- reading ---- */

void pbr_init(struct pbr *r, const void *buf, size_t len)
{
        r->p = buf;
        r->end = len > 0 ? r->p + len : r->p; /* no arithmetic on a NULL buf of length 0 */
        r->depth = 0;
}

int pb_varint_decode(const uint8_t *buf, size_t len, uint64_t *ret)
{
        uint64_t v = 0;

        for (size_t i = 0; i < 10; i++) {
                if (i >= len)
                        return -EBADMSG;
                /* The tenth byte carries bit 63 only: anything more overflows 64 bits, which
                 * Go's protowire.ConsumeVarint also refuses. */
                if (i == 9 && buf[i] > 1)
                        return -EBADMSG;
                v |= (uint64_t) (buf[i] & 0x7f) << (7 * i);
                if (!(buf[i] & 0x80)) {
                        *ret = v;
                        return (int) i + 1;
                }
        }
        return -EBADMSG;
}

int pbr_next(struct pbr *r, struct pb_field *f)
{
        size_t avail = (size_t) (r->end - r->p);
        uint64_t tag, v;
        int n;

        if (avail == 0)
                return 0;
        n = pb_varint_decode(r->p, avail, &tag);
        if (n < 0)
                return n;
        r->p += n;
        avail -= (size_t) n;
        if ((tag >> 3) == 0 || (tag >> 3) > PB_FIELD_MAX)
                return -EBADMSG;
        memset(f, 0, sizeof(*f));
        f->num = (uint32_t) (tag >> 3);
        switch (tag & 7) {
        case PB_WIRE_VARINT:
                n = pb_varint_decode(r->p, avail, &f->u);
                if (n < 0)
                        return n;
                r->p += n;
                f->wire = PB_WIRE_VARINT;
                return 1;
        case PB_WIRE_FIXED64:
        case PB_WIRE_FIXED32: {
                size_t size = (tag & 7) == PB_WIRE_FIXED64 ? 8 : 4;
                if (avail < size)
                        return -EBADMSG;
                v = 0;
                for (size_t i = 0; i < size; i++)
                        v |= (uint64_t) r->p[i] << (8 * i);
                r->p += size;
                f->u = v;
                f->wire = (enum pb_wire)(tag & 7);
                return 1;
        }
        case PB_WIRE_LEN:
                n = pb_varint_decode(r->p, avail, &v);
                if (n < 0)
                        return n;
                r->p += n;
                avail -= (size_t) n;
                if (v > avail)
                        return -EBADMSG;
                f->wire = PB_WIRE_LEN;
                f->data = r->p;
                f->len = (size_t) v;
                r->p += v;
                return 1;
        default:
                /* 3 and 4 are the deprecated groups (Kubernetes has none), 6 and 7 unassigned. */
                return -EBADMSG;
        }
}

int pbr_sub(const struct pbr *r, const struct pb_field *f, struct pbr *ret_sub)
{
        if (f->wire != PB_WIRE_LEN || r->depth + 1 > PB_MAX_DEPTH)
                return -EBADMSG;
        pbr_init(ret_sub, f->data, f->len);
        ret_sub->depth = r->depth + 1;
        return 0;
}
