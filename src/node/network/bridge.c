/* bridge.c: the host side of the pod network that is not a CNI plugin's: the bridge with the
 * gateway address on it, made over rtnetlink before any pod starts (so the API server can listen
 * at that address for pods). Only link and address creation; never deletes anything. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/network/network.h"

struct nl_req {
        struct nlmsghdr h;
        char buf[512];
};

static void *nl_tail(struct nl_req *r)
{
        return (char *) &r->h + NLMSG_ALIGN(r->h.nlmsg_len);
}

static struct rtattr *nl_attr(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
        struct rtattr *a = nl_tail(r);

        a->rta_type = type;
        a->rta_len = (unsigned short) RTA_LENGTH(len);
        if (len)
                memcpy(RTA_DATA(a), data, len);
        r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
        return a;
}

static void nl_nest_end(struct nl_req *r, struct rtattr *nest)
{
        nest->rta_len = (unsigned short) ((char *) nl_tail(r) - (char *) nest);
}

/* Sends one request and reads its acknowledgement: 0 or the kernel's -errno. */
static int nl_talk(struct nl_req *r)
{
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        char buf[4096];
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), e;
        ssize_t n;

        if (fd < 0)
                return -errno;
        r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
        r->h.nlmsg_seq = 1;
        if (sendto(fd, &r->h, r->h.nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0) {
                e = -errno;
                close(fd);
                return e;
        }
        for (;;) {
                struct nlmsghdr *h;

                n = recv(fd, buf, sizeof(buf), 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        e = -errno;
                        break;
                }
                h = (struct nlmsghdr *) buf;
                if (!NLMSG_OK(h, (unsigned) n)) {
                        e = -EBADMSG;
                        break;
                }
                if (h->nlmsg_type == NLMSG_ERROR) {
                        e = ((struct nlmsgerr *) NLMSG_DATA(h))->error;
                        break;
                }
        }
        close(fd);
        return e;
}

static int link_add_bridge(const char *name)
{
        struct nl_req r = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
                                   .nlmsg_type = RTM_NEWLINK,
                                   .nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL } };
        struct ifinfomsg *ifi = NLMSG_DATA(&r.h);
        struct rtattr *info;

        ifi->ifi_family = AF_UNSPEC;
        nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
        info = nl_attr(&r, IFLA_LINKINFO, NULL, 0);
        nl_attr(&r, IFLA_INFO_KIND, "bridge", strlen("bridge"));
        nl_nest_end(&r, info);
        return nl_talk(&r);
}

static int link_set_up(unsigned ifindex)
{
        struct nl_req r = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
                                   .nlmsg_type = RTM_NEWLINK } };
        struct ifinfomsg *ifi = NLMSG_DATA(&r.h);

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = (int) ifindex;
        ifi->ifi_flags = IFF_UP;
        ifi->ifi_change = IFF_UP;
        return nl_talk(&r);
}

static int addr_add(unsigned ifindex, const struct in_addr *a, unsigned prefix)
{
        struct nl_req r = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
                                   .nlmsg_type = RTM_NEWADDR,
                                   .nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL } };
        struct ifaddrmsg *ifa = NLMSG_DATA(&r.h);
        struct in_addr brd = { .s_addr = a->s_addr |
                                         htonl(prefix >= 32 ? 0 : 0xffffffffu >> prefix) };

        ifa->ifa_family = AF_INET;
        ifa->ifa_prefixlen = (unsigned char) prefix;
        ifa->ifa_index = ifindex;
        nl_attr(&r, IFA_LOCAL, a, sizeof(*a));
        nl_attr(&r, IFA_ADDRESS, a, sizeof(*a));
        if (prefix < 31)
                nl_attr(&r, IFA_BROADCAST, &brd, sizeof(brd));
        return nl_talk(&r);
}

int network_bridge_ensure(const char *name, const struct in_addr *gateway, unsigned prefix,
                          struct error **reterr)
{
        char sys[64];
        struct stat st;
        unsigned ifindex;
        int r;

        if (!name || !*name || strlen(name) >= IFNAMSIZ || strchr(name, '/'))
                return error_set(reterr, EINVAL, "bridge \"%s\": not an interface name",
                                 name ? name : "");
        r = link_add_bridge(name);
        if (r < 0 && r != -EEXIST)
                return error_set(reterr, -r, "create bridge \"%s\": %s", name, strerror(-r));
        (void) snprintf(sys, sizeof(sys), "/sys/class/net/%s/bridge", name);
        if (stat(sys, &st) < 0)
                return error_set(reterr, EEXIST,
                                 "bridge \"%s\": an interface of that name exists and is not a "
                                 "bridge",
                                 name);
        ifindex = if_nametoindex(name);
        if (!ifindex)
                return error_set(reterr, errno, "bridge \"%s\": %s", name, strerror(errno));
        r = addr_add(ifindex, gateway, prefix);
        if (r < 0 && r != -EEXIST) {
                char text[INET_ADDRSTRLEN];
                (void) inet_ntop(AF_INET, gateway, text, sizeof(text));
                return error_set(reterr, -r, "bridge \"%s\": add address %s/%u: %s", name, text,
                                 prefix, strerror(-r));
        }
        r = link_set_up(ifindex);
        if (r < 0)
                return error_set(reterr, -r, "bridge \"%s\": set it up: %s", name, strerror(-r));
        return 0;
}
