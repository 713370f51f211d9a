/* net.h: a TCP connection made within a time limit, for the parts that dial on their own: the
 * prober's tcpSocket checks (node/prober.c) and the HTTP/2 client connection
 * (http/h2-client.c). */
#ifndef FLEXLET_BASE_NET_H
#define FLEXLET_BASE_NET_H

/* Which step of a dial failed, in Go's words for it ("dial tcp ADDR: OP: ..."). */
struct net_dial_failure {
        const char *op; /* "lookup", "socket" or "connect" */
        int gai_error;  /* lookup: getaddrinfo's code, for gai_strerror */
};

/* Connects to host:port (a numeric port), trying each address the name resolves to in turn,
 * all within timeout_ms: a connected socket (non-blocking, close-on-exec), or -errno with *ret
 * saying which step failed: -EHOSTUNREACH for a name that does not resolve, -ETIMEDOUT when the
 * time ran out, else the last address's error. */
int net_dial(const char *host, const char *port, int timeout_ms, struct net_dial_failure *ret);

#endif
