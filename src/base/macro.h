/* macro.h: cleanup attributes, ownership transfer and small helpers shared by every subsystem.
 * Header only; nothing here allocates. */
#ifndef FLEXLET_BASE_MACRO_H
#define FLEXLET_BASE_MACRO_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define _unused_       __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_     __attribute__((noreturn))
/* A function kept whole under its own symbol, neither inlined nor specialised into a clone
 * (GCC's .constprop, .isra): the benchmarks' uprobes time it at its entry and return. */
#if defined(__clang__)
# define _probed_ __attribute__((noinline))
#else
# define _probed_ __attribute__((noinline, noclone))
#endif

static inline void freep(void *p)
{
        free(*(void **) p);
}

static inline void closep(int *fd)
{
        if (*fd >= 0)
                (void) close(*fd);
}

#define cleanup_free  __attribute__((cleanup(freep)))
#define cleanup_close __attribute__((cleanup(closep)))

/* Declares cleanup_<name> for a type whose destructor is <fn>(T *) (NULL-safe). */
#define DEFINE_CLEANUP(type, fn, name) \
 static inline void fn##p(type **p)    \
 {                                     \
  if (*p)                              \
   fn(*p);                             \
 }
#define cleanup_of(fn) __attribute__((cleanup(fn##p)))

/* Takes ownership out of a cleanup-managed variable. */
#define TAKE_PTR(p)     \
 (                      \
         {              \
__typeof__(p) _taken = (p); \
(p) = NULL;                 \
_taken;                     \
         })
#define TAKE_FD(fd) \
 (                  \
         {          \
int _taken_fd = (fd);   \
(fd) = -1;              \
_taken_fd;              \
         })

#define streq(a, b) (strcmp((a), (b)) == 0)

#endif
