/* history.c: ordering and pruning revision histories (history.h). It holds no state and makes no
 * request of its own: the controllers' callbacks say what is in use and do the deleting. */
#include "controllers/history.h"

int history_cmp_revision(const void *pa, const void *pb)
{
        json_int_t a = json_integer_value(json_object_get(*(json_t *const *) pa, "revision"));
        json_int_t b = json_integer_value(json_object_get(*(json_t *const *) pb, "revision"));

        return a < b ? -1 : a > b;
}

long history_prune(const json_t *revs, long excess, const struct history_pruner *p)
{
        long counted = 0;
        size_t i;
        json_t *rev;

        json_array_foreach(revs, i, rev) {
                if (counted >= excess)
                        break;
                if (p->in_use && p->in_use(rev, p->ctx))
                        continue;
                if (p->delete (rev, p->ctx))
                        counted++;
        }
        return counted;
}
