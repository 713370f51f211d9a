/* test-store-etcd.c: the store contract of test-store.c on a real etcd (started and removed by
 * etcd-harness.h; "SKIP etcd not installed" only when the binary is absent), plus what only etcd
 * does. */
#define STORE_TEST_ETCD 1
#include "unit/store/test-store.c"
