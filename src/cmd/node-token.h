/* node-token.h: what `flexlet serve` and `flexlet apiserver` publish at every start so that
 * other machines can join as nodes (docs/joining-nodes.md):
 *
 *   DATA_DIR/node-token (0600)  the join token, K10<sha256 of the CA PEM>::<id>.<secret>
 *                               (client/join-token.h); made once, kept while the CA is the same
 *   kube-system/bootstrap-token-<id>  its bootstrap token Secret (K8S: kubeadm's, type
 *                               bootstrap.kubernetes.io/token, usage-bootstrap-authentication
 *                               and -signing, group system:bootstrappers:flexlet:default-node-
 *                               token, no expiration), created when absent
 *   kube-public/cluster-info    the ConfigMap kubeadm's discovery reads anonymously: a
 *                               kubeconfig with the server and the CA (no credential)
 *   kube-public Role and RoleBinding flexlet:bootstrap-signer-clusterinfo, letting
 *                               system:anonymous get that one ConfigMap (kubeadm's
 *                               kubeadm:bootstrap-signer-clusterinfo)
 *
 * Deleting DATA_DIR/node-token and the Secret revokes the token; the next start makes a new
 * one. Everything is sent by the server's admin client (its loopback credential, through the
 * in-process loopback), as the bootstrap namespaces are. */
#ifndef FLEXLET_CMD_NODE_TOKEN_H
#define FLEXLET_CMD_NODE_TOKEN_H

#include "base/error.h"

struct api_client;

/* K8S: kubeadm's default node token group, under flexlet's name */
#define NODE_TOKEN_GROUP "system:bootstrappers:flexlet:default-node-token"

int node_token_publish(struct api_client *admin, const char *data_dir, const char *ca_pem,
                       const char *server_url, struct error **reterr);

#endif
