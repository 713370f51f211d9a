/* http-pipe.h: a response body written by a blocking producer on its own thread.
 *
 * Some bodies come from code that blocks and pushes bytes to a write callback (a container
 * log followed through inotify, a proxied HTTP transfer), while a struct http_stream is
 * pulled by the server one read at a time. A pipe runs the producer on a thread of its own
 * and joins the two through a local socket pair: what the producer writes, the stream reads,
 * in order; the producer blocks while the client is behind. The stream never blocks: its wake
 * descriptor is the reading end, readable when the producer wrote or returned.
 *
 * Lifetime: http_pipe_start() starts the thread. The pipe is then either handed to a response
 * with http_pipe_stream() (the stream owns it) or freed with http_pipe_free(). Either way,
 * freeing cancels: the producer's next (or current, blocked) write fails with -EPIPE and
 * http_pipe_cancelled() turns true, the thread is joined, then ud_free(ud) runs. A producer
 * must therefore return soon after a failed write, and check http_pipe_cancelled() at least
 * every second or so while it waits for something to write; freeing blocks until it returns.
 *
 * Threads: http_pipe_write and http_pipe_cancelled are for the producer's thread; the other
 * functions for the owner's. */
#ifndef FLEXLET_HTTP_HTTP_PIPE_H
#define FLEXLET_HTTP_HTTP_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "http/http.h"

struct http_pipe;

/* The producer. Everything it writes is the body; the body ends when it returns. */
typedef void (*http_pipe_fn)(struct http_pipe *p, void *ud);

/* Starts fn(p, ud) on a new thread. ud belongs to the pipe from here on, also on failure:
 * ud_free(ud) (NULL: nothing) runs once the thread is gone. -errno when the socket pair or the
 * thread cannot be made. */
int http_pipe_start(http_pipe_fn fn, void *ud, void (*ud_free)(void *ud), struct http_pipe **ret,
                    struct error **reterr);

/* Producer: writes all n bytes (blocking while the reader is behind). 0, or -EPIPE when the
 * pipe was cancelled: stop producing. */
int http_pipe_write(struct http_pipe *p, const void *buf, size_t n);
/* Producer: true once the owner freed the pipe (the client went away). */
bool http_pipe_cancelled(const struct http_pipe *p);

/* Owner: the stream that reads the body; it owns p and frees it when the response ends. */
void http_pipe_stream(struct http_pipe *p, struct http_stream *ret);
/* Owner: cancels, joins the producer, frees ud and p. NULL-safe; returns NULL. */
struct http_pipe *http_pipe_free(struct http_pipe *p);

#endif
