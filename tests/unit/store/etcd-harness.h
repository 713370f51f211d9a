/* etcd-harness.h: a real etcd for the store's unit tests: started from Debian's `etcd` on free
 * loopback ports with its data in a temporary folder, killed (also if this process dies: it
 * gets SIGKILL with its parent) and the folder removed after. etcd_raw() speaks to it directly
 * over its JSON gateway, so a test sees what the store wrote. Included by test-store.c only. */
#ifndef FLEXLET_TESTS_ETCD_HARNESS_H
#define FLEXLET_TESTS_ETCD_HARNESS_H

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "base/base64.h"
#include "base/strbuf.h"

static struct {
        char dir[256];
        pid_t pid;
        char endpoint[64];
} etcd;

static bool etcd_installed(void)
{
        return system("command -v etcd >/dev/null 2>&1") == 0;
}

static int etcd_free_port(void)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int port = -1;

        if (fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof(a)) == 0 &&
            getsockname(fd, (struct sockaddr *) &a, &len) == 0)
                port = ntohs(a.sin_port);
        if (fd >= 0)
                (void) close(fd);
        return port;
}

static const char *etcd_endpoint(void)
{
        return etcd.endpoint;
}

static size_t etcd_collect(char *data, size_t size, size_t n, void *ud)
{
        strbuf_add(ud, data, size * n);
        return size * n;
}

/* POSTs body to path on the test's etcd; the JSON answer, or NULL. */
static json_t *etcd_raw(const char *path, const char *body)
{
        CURL *h = curl_easy_init();
        struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
        cleanup_free char *url = xasprintf("%s%s", etcd.endpoint, path);
        struct strbuf out;
        json_t *ans = NULL;

        strbuf_init(&out);
        (void) curl_easy_setopt(h, CURLOPT_URL, url);
        (void) curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        (void) curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
        (void) curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, etcd_collect);
        (void) curl_easy_setopt(h, CURLOPT_WRITEDATA, &out);
        (void) curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
        if (curl_easy_perform(h) == CURLE_OK)
                ans = json_loads(out.buf, 0, NULL);
        strbuf_release(&out);
        curl_slist_free_all(hd);
        curl_easy_cleanup(h);
        return ans;
}

/* Deletes every key, so each test starts on an empty etcd (the revision goes on). */
static void etcd_wipe(void)
{
        /* key "\0" with range_end "\0": every key */
        json_decref(etcd_raw("/v3/kv/deleterange", "{\"key\":\"AA==\",\"range_end\":\"AA==\"}"));
}

static int etcd_rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st, (void) flag, (void) ftw;
        (void) remove(p);
        return 0;
}

static int etcd_stop(void **state)
{
        (void) state;
        if (etcd.pid > 0) {
                (void) kill(etcd.pid, SIGKILL);
                (void) waitpid(etcd.pid, NULL, 0);
                etcd.pid = 0;
        }
        if (etcd.dir[0])
                (void) nftw(etcd.dir, etcd_rm, 16, FTW_DEPTH | FTW_PHYS);
        return 0;
}

static int etcd_start(void **state)
{
        const char *tmp = getenv("TMPDIR");
        int client = etcd_free_port(), peer = etcd_free_port();
        char data[300], log[300], curl_[64], purl[64], cluster[96];

        (void) state;
        (void) snprintf(etcd.dir, sizeof(etcd.dir), "%s/flexlet-etcd-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(etcd.dir) || client < 0 || peer < 0)
                return -1;
        (void) snprintf(data, sizeof(data), "%s/data", etcd.dir);
        (void) snprintf(log, sizeof(log), "%s/etcd.log", etcd.dir);
        (void) snprintf(curl_, sizeof(curl_), "http://127.0.0.1:%d", client);
        (void) snprintf(purl, sizeof(purl), "http://127.0.0.1:%d", peer);
        (void) snprintf(cluster, sizeof(cluster), "default=%s", purl);
        (void) snprintf(etcd.endpoint, sizeof(etcd.endpoint), "%s", curl_);
        etcd.pid = fork();
        if (etcd.pid < 0)
                return -1;
        if (etcd.pid == 0) {
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (fd >= 0) {
                        (void) dup2(fd, 1);
                        (void) dup2(fd, 2);
                }
                /* objects up to the store's 3 MiB cap, as test-etcd.sh and the docs say */
                execlp("etcd", "etcd", "--data-dir", data, "--listen-client-urls", curl_,
                       "--advertise-client-urls", curl_, "--listen-peer-urls", purl,
                       "--initial-advertise-peer-urls", purl, "--initial-cluster", cluster,
                       "--max-request-bytes", "8388608", "--logger", "zap", "--log-level", "error",
                       (char *) NULL);
                _exit(127);
        }
        /* The first store_open_etcd waits for it to answer. */
        return 0;
}

#endif
