/* informer-feed.h: the feed (client/informer.h) that components in the API server's own process
 * (`flexlet serve` and `flexlet apiserver`: the controllers and the scheduler) list and watch
 * through instead of loopback HTTPS. K8S: kube-apiserver's loopback client, minus the wire.
 *
 * A path is routed as the server routes it, listed from the store's cached index
 * (store_list_shared) and watched from the store's watch history, filtered by the path's
 * labelSelector and fieldSelector as LIST and WATCH filter; the informer gets the store's own
 * shared objects, never copies. Nothing is authorized: what reads through the feed reads as the
 * server itself. */
#ifndef FLEXLET_APISERVER_INFORMER_FEED_H
#define FLEXLET_APISERVER_INFORMER_FEED_H

#include "client/informer.h"

struct store;

/* A feed on s (borrowed: it must outlive the feed). Stop every informer started with the feed
 * (informer_stop waits for their threads) before freeing it and before closing s. */
struct informer_feed *informer_feed_new(struct store *s);
/* NULL-safe; returns NULL. */
struct informer_feed *informer_feed_free(struct informer_feed *f);

#endif
