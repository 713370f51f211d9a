/* curl-setup.h: libcurl's process-wide setup, once, for every part that makes curl handles (the
 * API client, the etcd store, the image puller, the prober). */
#ifndef FLEXLET_HTTP_CURL_SETUP_H
#define FLEXLET_HTTP_CURL_SETUP_H

#include "base/error.h"

/* Sets libcurl up the first time it is called in the process (thread-safe) and returns the
 * first call's outcome every time after. The setup lasts until the process exits. */
int http_curl_setup(struct error **reterr);

#endif
