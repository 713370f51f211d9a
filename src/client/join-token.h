/* join-token.h: the token a node joins a cluster with, as k3s writes it:
 * "K10<sha256 of the CA certificate PEM, 64 lower-case hex>::<id>.<secret>", where id.secret is
 * a bootstrap token (K8S: [a-z0-9]{6}.[a-z0-9]{16}, cluster-bootstrap/token/api). The hash pins
 * the cluster's CA (kubeadm's --discovery-token-ca-cert-hash), so a node trusts the CA it
 * fetches anonymously only when the hash matches, and sends the token only to a server that CA
 * vouches for. `flexlet serve` and `flexlet apiserver` write it to DATA_DIR/node-token;
 * `flexlet node --token-file` reads it. Pure functions; the text is hostile until parsed. */
#ifndef FLEXLET_CLIENT_JOIN_TOKEN_H
#define FLEXLET_CLIENT_JOIN_TOKEN_H

#include <stddef.h>

#include "base/error.h"

#define JOIN_TOKEN_PREFIX     "K10"
#define JOIN_TOKEN_HASH_LEN   64
#define JOIN_TOKEN_ID_LEN     6
#define JOIN_TOKEN_SECRET_LEN 16
/* the longest file taken: the token, white space around it */
#define JOIN_TOKEN_MAX_BYTES 4096

struct join_token {
        char ca_hash[JOIN_TOKEN_HASH_LEN + 1]; /* lower-case hex */
        char id[JOIN_TOKEN_ID_LEN + 1];
        char secret[JOIN_TOKEN_SECRET_LEN + 1];
};

/* Parses text (len bytes; white space before and after is ignored). 0 with *ret, or -EINVAL with
 * *reterr saying which part is wrong ("the join token does not start with K10", "the CA hash is
 * not 64 hex digits", "the bootstrap token is not of the form [a-z0-9]{6}.[a-z0-9]{16}"). The
 * token itself is never put in a message. */
int join_token_parse(const char *text, size_t len, struct join_token *ret, struct error **reterr);

/* The sha256 of len bytes of CA PEM as 64 lower-case hex digits and a NUL. */
void join_token_ca_hash(const char *ca_pem, size_t len, char out[static JOIN_TOKEN_HASH_LEN + 1]);

/* "K10<hash of ca_pem>::<id>.<secret>"; caller frees. */
char *join_token_format(const char *ca_pem, const char *id, const char *secret);

/* A new random bootstrap token id and secret of [a-z0-9] (uniform: rejection sampling over
 * the random bytes). -errno when the random generator fails. */
int join_token_generate(char id[static JOIN_TOKEN_ID_LEN + 1],
                        char secret[static JOIN_TOKEN_SECRET_LEN + 1]);

#endif
