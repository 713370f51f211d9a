/* kubelet-stream.h: the kubelet endpoint's streaming sessions, `exec` and `attach`, over
 * WebSockets with the channel protocols kubectl speaks (K8S apimachinery wsstream and the
 * kubelet's cri/streaming/remotecommand):
 *
 *   v5.channel.k8s.io, v4.channel.k8s.io: binary messages, the first byte the channel: 0 stdin
 *   (client to server), 1 stdout, 2 stderr, 3 error (a metav1.Status JSON, sent once at the
 *   end), 4 resize (client to server: {"Width":W,"Height":H}); v5 adds the close signal, a
 *   message [255, channel] from the client that closes its stdin. The base64 variants and the
 *   older versions (without resize or Status) are not offered; the handshake then fails with
 *   400 and kubectl says so.
 *
 * The query is the kubelet's (remotecommand NewOptions): stdin, stdout, stderr, tty (each
 * "1"/"true"), command (repeated: argv) for exec. At least one stream is needed; with tty,
 * stderr is folded into stdout. The end of an exec: the error channel carries Success, or
 * Failure with reason NonZeroExitCode and the cause {reason: ExitCode, message: "N"} (kubectl
 * prints "command terminated with exit code N" and exits N), or an InternalError when the
 * process could not start; then a close frame.
 *
 * attach: the containers of this runtime have no stdin (it is /dev/null), so attach relays the
 * container's output as it is written to its log, from the moment of the attach until the
 * container exits or the client leaves (both streams on stdout; a stdin or tty asked for is
 * refused with 400, the kubelet's words for a container started without them). */
#ifndef FLEXLET_NODE_KUBELET_STREAM_H
#define FLEXLET_NODE_KUBELET_STREAM_H

#include "http/http.h"

enum kubelet_stream_kind {
        KUBELET_STREAM_EXEC,
        KUBELET_STREAM_ATTACH,
        KUBELET_STREAM_KIND_MAX,
};

/* Answers a request for an exec or attach session on the container run at state_dir
 * (runtime_container_dir; the caller found it): 400 with the reason for bad options or a
 * handshake that is no WebSocket of a protocol above, else a 101 whose session runs on the
 * upgraded connection (a thread of the HTTP server's, http_upgrade). */
void kubelet_stream_serve(enum kubelet_stream_kind kind, const char *state_dir,
                          const struct http_request *req, struct http_response *resp);

/* The message of the error channel's Status for an exec that ended with exit code code (0:
 * Success), as the kubelet writes it; argv the command. Caller frees. Exposed for tests. */
char *kubelet_stream_exit_status(const char *const *argv, int code);

#endif
