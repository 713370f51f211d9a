/* routes.c: the routes between nodes and the forwarding switches (see routes.h), over
 * rtnetlink: a dump of the main table's IPv4 routes of flexlet's protocol, then RTM_NEWROUTE
 * with NLM_F_REPLACE for each wanted one and RTM_DELROUTE for each other. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/network/routes.h"

struct route_req {
        struct nlmsghdr h;
        struct rtmsg rt;
        char attrs[64];
};

static void add_attr(struct route_req *r, unsigned short type, const void *data, size_t len)
{
        struct rtattr *a = (struct rtattr *) ((char *) &r->h + NLMSG_ALIGN(r->h.nlmsg_len));

        a->rta_type = type;
        a->rta_len = (unsigned short) RTA_LENGTH(len);
        memcpy(RTA_DATA(a), data, len);
        r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

static int nl_open(void)
{
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

        return fd < 0 ? -errno : fd;
}

/* Sends r on fd and reads its acknowledgement: 0 or the kernel's -errno. */
static int nl_ack(int fd, struct route_req *r)
{
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        char buf[4096];

        r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
        if (sendto(fd, &r->h, r->h.nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0)
                return -errno;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                struct nlmsghdr *h = (struct nlmsghdr *) buf;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                for (; NLMSG_OK(h, (unsigned) n); h = NLMSG_NEXT(h, n))
                        if (h->nlmsg_type == NLMSG_ERROR)
                                return ((struct nlmsgerr *) NLMSG_DATA(h))->error;
        }
}

static int parse_dst(const char *text, struct in_addr *dst, unsigned *prefix)
{
        const char *slash = strchr(text, '/');
        char addr[INET_ADDRSTRLEN];
        char *end;
        long p;

        if (!slash || (size_t) (slash - text) >= sizeof(addr))
                return -EINVAL;
        memcpy(addr, text, (size_t) (slash - text));
        addr[slash - text] = '\0';
        p = strtol(slash + 1, &end, 10);
        if (inet_pton(AF_INET, addr, dst) != 1 || *end || p < 0 || p > 32 || end == slash + 1)
                return -EINVAL;
        *prefix = (unsigned) p;
        return 0;
}

static void route_msg(struct route_req *r, int type, int flags, const struct in_addr *dst,
                      unsigned prefix)
{
        memset(r, 0, sizeof(*r));
        r->h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
        r->h.nlmsg_type = (unsigned short) type;
        r->h.nlmsg_flags = (unsigned short) flags;
        r->rt.rtm_family = AF_INET;
        r->rt.rtm_dst_len = (unsigned char) prefix;
        r->rt.rtm_table = RT_TABLE_MAIN;
        r->rt.rtm_protocol = NETWORK_RTPROT;
        r->rt.rtm_scope = RT_SCOPE_UNIVERSE;
        r->rt.rtm_type = RTN_UNICAST;
        add_attr(r, RTA_DST, dst, sizeof(*dst));
}

/* Every flexlet route of the main table: dst/prefix pairs into *ret (caller frees). */
static int dump_ours(int fd, struct network_route **ret, size_t *ret_n)
{
        struct {
                struct nlmsghdr h;
                struct rtmsg rt;
        } req = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
                         .nlmsg_type = RTM_GETROUTE,
                         .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
                  .rt = { .rtm_family = AF_INET } };
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        struct network_route *out = NULL;
        size_t n_out = 0;
        char buf[16384];

        if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0)
                return -errno;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                struct nlmsghdr *h = (struct nlmsghdr *) buf;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        free(out);
                        return -errno;
                }
                for (; NLMSG_OK(h, (unsigned) n); h = NLMSG_NEXT(h, n)) {
                        struct rtmsg *rt = NLMSG_DATA(h);
                        struct rtattr *a;
                        int len;
                        struct network_route one;

                        memset(&one, 0, sizeof(one));

                        if (h->nlmsg_type == NLMSG_DONE) {
                                *ret = out;
                                *ret_n = n_out;
                                return 0;
                        }
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                int e = ((struct nlmsgerr *) NLMSG_DATA(h))->error;
                                free(out);
                                return e ? e : -EIO;
                        }
                        if (h->nlmsg_type != RTM_NEWROUTE || rt->rtm_protocol != NETWORK_RTPROT ||
                            rt->rtm_table != RT_TABLE_MAIN)
                                continue;
                        len = (int) RTM_PAYLOAD(h);
                        for (a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
                                char addr[INET_ADDRSTRLEN];
                                if (a->rta_type != RTA_DST ||
                                    !inet_ntop(AF_INET, RTA_DATA(a), addr, sizeof(addr)))
                                        continue;
                                (void) snprintf(one.dst, sizeof(one.dst), "%s/%u", addr,
                                                (unsigned) rt->rtm_dst_len);
                        }
                        if (!one.dst[0])
                                continue;
                        out = xrealloc(out, (n_out + 1) * sizeof(*out));
                        out[n_out++] = one;
                }
        }
}

int network_routes_sync(const struct network_route *want, size_t n, struct error **reterr)
{
        struct network_route *have = NULL;
        size_t n_have = 0;
        int fd, r, first = 0;

        fd = nl_open();
        if (fd < 0)
                return error_set(reterr, -fd, "routes: netlink: %s", strerror(-fd));
        r = dump_ours(fd, &have, &n_have);
        if (r < 0) {
                close(fd);
                return error_set(reterr, -r, "routes: list: %s", strerror(-r));
        }
        for (size_t i = 0; i < n_have; i++) {
                struct route_req req;
                struct in_addr dst;
                unsigned prefix;
                bool wanted = false;

                for (size_t j = 0; j < n && !wanted; j++)
                        wanted = strcmp(want[j].dst, have[i].dst) == 0;
                if (wanted || parse_dst(have[i].dst, &dst, &prefix) < 0)
                        continue;
                route_msg(&req, RTM_DELROUTE, 0, &dst, prefix);
                r = nl_ack(fd, &req);
                if (r < 0 && r != -ESRCH && first == 0)
                        first = error_set(reterr, -r, "routes: delete %s: %s", have[i].dst,
                                          strerror(-r));
        }
        for (size_t j = 0; j < n; j++) {
                struct route_req req;
                struct in_addr dst, via;
                unsigned prefix;

                if (parse_dst(want[j].dst, &dst, &prefix) < 0 ||
                    inet_pton(AF_INET, want[j].via, &via) != 1) {
                        if (first == 0)
                                first = error_set(reterr, EINVAL,
                                                  "routes: %s via %s: not an IPv4 route",
                                                  want[j].dst, want[j].via);
                        continue;
                }
                route_msg(&req, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, &dst, prefix);
                add_attr(&req, RTA_GATEWAY, &via, sizeof(via));
                r = nl_ack(fd, &req);
                if (r < 0 && first == 0)
                        first = error_set(reterr, -r, "routes: %s via %s: %s", want[j].dst,
                                          want[j].via, strerror(-r));
        }
        free(have);
        close(fd);
        return first;
}

int network_forwarding_enable(const char *ifname, struct error **reterr)
{
        char path[96];
        int fd;

        if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE || strchr(ifname, '/') ||
            strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0)
                return error_set(reterr, EINVAL, "forwarding: \"%s\" is not an interface name",
                                 ifname ? ifname : "");
        (void) snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/forwarding", ifname);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(reterr, errno, "forwarding: open %s: %s", path, strerror(errno));
        if (write(fd, "1", 1) != 1) {
                int e = errno;
                close(fd);
                return error_set(reterr, e, "forwarding: write %s: %s", path, strerror(e));
        }
        close(fd);
        return 0;
}

int network_ifname_of(const char *ip, char out[static IF_NAMESIZE])
{
        struct ifaddrs *ifs = NULL;
        struct in_addr want;
        int r = -ENOENT;

        if (!ip || inet_pton(AF_INET, ip, &want) != 1)
                return -EINVAL;
        if (getifaddrs(&ifs) < 0)
                return -errno;
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
                const struct sockaddr_in *in = (const struct sockaddr_in *) i->ifa_addr;

                if (!in || in->sin_family != AF_INET || in->sin_addr.s_addr != want.s_addr)
                        continue;
                (void) snprintf(out, IF_NAMESIZE, "%s", i->ifa_name);
                r = 0;
                break;
        }
        freeifaddrs(ifs);
        return r;
}
