/* test-network.c: the pod network's pure parts (CIDR, the configuration list flexlet writes,
 * port mappings and CNI_ARGS as containerd passes them), the CNI result parser and error words,
 * the execution configuration derived for each plugin, and the invoker against fake plugins
 * (shell scripts that record what they were given): environment, stdin, order, prevResult. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "node/network/cni.h"
#include "node/network/network.h"

/* ------------------------------------------------------------------ CIDR */

static void test_cidr(void **state)
{
        static const struct {
                const char *in, *gateway, *text;
        } good[] = {
                { "10.88.0.0/16", "10.88.0.1", "10.88.0.0/16" },
                { "10.128.5.0/24", "10.128.5.1", "10.128.5.0/24" },
                { "192.168.0.0/30", "192.168.0.1", "192.168.0.0/30" },
        };
        static const char *const bad[] = { "10.88.0.1/16", "10.88.0.0",     "10.88.0.0/7",
                                           "10.88.0.0/31", "10.88.0.0/x",   "fd00::/64",
                                           "10.88.0/16",   "10.88.0.0/16 ", "" };
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
                struct network_cidr c;
                assert_int_equal(network_parse_cidr(good[i].in, &c, NULL), 0);
                assert_string_equal(c.gateway_text, good[i].gateway);
                assert_string_equal(c.text, good[i].text);
        }
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct network_cidr c;
                cleanup_error struct error *err = NULL;
                assert_int_equal(network_parse_cidr(bad[i], &c, &err), -EINVAL);
                assert_non_null(strstr(err->message, "pod CIDR"));
        }
}

/* ------------------------------------------------------------------ the conflist */

static void test_default_conflist(void **state)
{
        struct network_cidr c;
        cleanup_json json_t *l = NULL;
        const json_t *bridge, *ipam, *portmap;

        (void) state;
        assert_int_equal(network_parse_cidr("10.88.0.0/16", &c, NULL), 0);
        l = network_default_conflist("flexlet0", &c, NULL, "/data/cni/networks");
        assert_int_equal(cni_conflist_check(l, NULL), 0);
        assert_string_equal(json_string_value(json_object_get(l, "cniVersion")), "1.0.0");
        assert_string_equal(json_string_value(json_object_get(l, "name")), NETWORK_NAME);
        assert_int_equal(json_array_size(json_object_get(l, "plugins")), 2);
        bridge = json_array_get(json_object_get(l, "plugins"), 0);
        assert_string_equal(json_string_value(json_object_get(bridge, "type")), "bridge");
        assert_string_equal(json_string_value(json_object_get(bridge, "bridge")), "flexlet0");
        /* nothing that routes pod traffic off the node or turns on ip_forward */
        assert_true(json_is_false(json_object_get(bridge, "isGateway")));
        assert_true(json_is_false(json_object_get(bridge, "isDefaultGateway")));
        assert_true(json_is_false(json_object_get(bridge, "ipMasq")));
        ipam = json_object_get(bridge, "ipam");
        assert_string_equal(json_string_value(json_object_get(ipam, "type")), "host-local");
        assert_string_equal(json_string_value(json_object_get(ipam, "dataDir")),
                            "/data/cni/networks");
        assert_string_equal(
                json_path_string(
                        json_array_get(json_array_get(json_object_get(ipam, "ranges"), 0), 0),
                        "subnet"),
                "10.88.0.0/16");
        assert_null(json_object_get(ipam, "routes"));
        portmap = json_array_get(json_object_get(l, "plugins"), 1);
        assert_string_equal(json_string_value(json_object_get(portmap, "type")), "portmap");
        assert_true(json_is_true(json_path(portmap, "capabilities.portMappings")));

        /* across nodes: a route to the cluster CIDR via the bridge; none when it is the node's */
        json_decref(l);
        assert_int_equal(network_parse_cidr("10.88.3.0/24", &c, NULL), 0);
        l = network_default_conflist("flx0", &c, "10.88.0.0/16", "/d");
        assert_int_equal(cni_conflist_check(l, NULL), 0);
        ipam = json_path(json_array_get(json_object_get(l, "plugins"), 0), "ipam");
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(ipam, "routes"), 0), "dst"),
                "10.88.0.0/16");
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(ipam, "routes"), 0), "gw"),
                "10.88.3.1");
        json_decref(l);
        l = network_default_conflist("flx0", &c, "10.88.3.0/24", "/d");
        assert_null(json_path(json_array_get(json_object_get(l, "plugins"), 0), "ipam.routes"));

        json_decref(l);
        l = network_loopback_conflist();
        assert_int_equal(cni_conflist_check(l, NULL), 0);
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(l, "plugins"), 0), "type"),
                "loopback");
}

static void test_conflist_check(void **state)
{
        static const char *const bad[] = {
                "[]",
                "{\"name\":\"n\",\"plugins\":[{\"type\":\"bridge\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"bridge\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[]}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"../x\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"..\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{}]}",
        };
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                cleanup_json json_t *j = json_loads(bad[i], 0, NULL);
                assert_int_equal(cni_conflist_check(j, NULL), -EINVAL);
        }
}

static void test_plugin_config(void **state)
{
        cleanup_json json_t *list = json_loads(
                "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"plugins\":[{\"type\":\"bridge\","
                "\"bridge\":\"br\"},{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true,"
                "\"bandwidth\":true}}]}",
                0, NULL);
        cleanup_json json_t *caps = json_loads(
                "{\"portMappings\":[{\"hostPort\":80,\"containerPort\":8080,\"protocol\":\"tcp\"}],"
                "\"ips\":[\"10.0.0.1\"]}",
                0, NULL);
        cleanup_json json_t *prev = json_loads("{\"cniVersion\":\"1.0.0\",\"ips\":[]}", 0, NULL);
        cleanup_json json_t *b = NULL, *p = NULL;

        (void) state;
        /* the first plugin: no prevResult, no runtimeConfig (it declares nothing) */
        b = cni_plugin_config(list, json_array_get(json_object_get(list, "plugins"), 0), caps,
                              NULL);
        assert_string_equal(json_string_value(json_object_get(b, "name")), "net");
        assert_string_equal(json_string_value(json_object_get(b, "cniVersion")), "1.0.0");
        assert_string_equal(json_string_value(json_object_get(b, "bridge")), "br");
        assert_null(json_object_get(b, "prevResult"));
        assert_null(json_object_get(b, "runtimeConfig"));
        /* the second: capabilities removed, only the declared and offered one inserted */
        p = cni_plugin_config(list, json_array_get(json_object_get(list, "plugins"), 1), caps,
                              prev);
        assert_null(json_object_get(p, "capabilities"));
        assert_true(json_equal(json_object_get(p, "prevResult"), prev));
        assert_true(json_equal(json_path(p, "runtimeConfig.portMappings"),
                               json_object_get(caps, "portMappings")));
        assert_null(json_path(p, "runtimeConfig.ips"));
        assert_null(json_path(p, "runtimeConfig.bandwidth"));
}

static void test_port_mappings_and_args(void **state)
{
        cleanup_json json_t *pod = json_loads(
                "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\",\"uid\":\"u-1\"},"
                "\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80},"
                "{\"containerPort\":8080,\"hostPort\":18080,\"protocol\":\"TCP\"}]},"
                "{\"name\":\"b\",\"ports\":[{\"containerPort\":53,\"hostPort\":5353,"
                "\"protocol\":\"UDP\",\"hostIP\":\"127.0.0.1\"}]}]}}",
                0, NULL);
        cleanup_json json_t *none =
                json_loads("{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}", 0, NULL);
        cleanup_json json_t *pm = network_port_mappings(pod);
        cleanup_json json_t *want =
                json_loads("[{\"hostPort\":18080,\"containerPort\":8080,\"protocol\":\"tcp\"},"
                           "{\"hostPort\":5353,\"containerPort\":53,\"protocol\":\"udp\","
                           "\"hostIP\":\"127.0.0.1\"}]",
                           0, NULL);
        cleanup_json json_t *args = network_cni_args(pod, "abc");
        cleanup_json json_t *want_args =
                json_pack("[s,s,s,s,s]", "IgnoreUnknown=1", "K8S_POD_NAMESPACE=ns",
                          "K8S_POD_NAME=web", "K8S_POD_INFRA_CONTAINER_ID=abc", "K8S_POD_UID=u-1");

        (void) state;
        assert_true(json_equal(pm, want));
        assert_null(network_port_mappings(none));
        assert_true(json_equal(args, want_args));
}

/* ------------------------------------------------------------------ results */

static const char result_bridge[] =
        "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"flexlet0\",\"mac\":\"ee:a9:b8:78:"
        "e9:7f\"},{\"name\":\"veth1\",\"mac\":\"ee:a9:b8:78:e9:7f\"},{\"name\":\"eth0\",\"mac\":"
        "\"22:52:25:87:5d:61\",\"sandbox\":\"/data/pods/u/network/netns\"}],\"ips\":["
        "{\"interface\":2,\"address\":\"fd00:88::5/64\"},"
        "{\"interface\":2,\"address\":\"10.88.0.5/16\",\"gateway\":\"10.88.0.1\"}],"
        "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.88.0.1\"}],\"dns\":{}}";

static void test_result_parse(void **state)
{
        struct cni_result r;
        const char *ips[2];

        (void) state;
        assert_int_equal(cni_result_parse(result_bridge, strlen(result_bridge), &r, NULL), 0);
        assert_string_equal(r.cni_version, "1.0.0");
        assert_int_equal(r.n_interfaces, 3);
        assert_string_equal(r.interfaces[0].sandbox, "");
        assert_string_equal(r.interfaces[2].sandbox, "/data/pods/u/network/netns");
        assert_int_equal(r.n_ips, 2);
        assert_string_equal(r.ips[1].ip, "10.88.0.5");
        assert_int_equal(r.ips[1].family, AF_INET);
        assert_string_equal(r.ips[1].gateway, "10.88.0.1");
        assert_int_equal(r.ips[1].interface, 2);
        assert_int_equal(r.n_routes, 1);
        assert_string_equal(r.routes[0].gw, "10.88.0.1");
        /* IPv4 first, one per family, only on eth0 inside the sandbox */
        assert_int_equal(cni_result_pod_ips(&r, "eth0", ips, 2), 2);
        assert_string_equal(ips[0], "10.88.0.5");
        assert_string_equal(ips[1], "fd00:88::5");
        assert_int_equal(cni_result_pod_ips(&r, "veth1", ips, 2), 0);
        assert_int_equal(cni_result_pod_ips(&r, "eth0", ips, 1), 1);
        cni_result_release(&r);

        /* an IPAM plugin's abbreviated result */
        {
                static const char ipam[] = "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"address\":"
                                           "\"10.1.2.3/24\"}]}";
                assert_int_equal(cni_result_parse(ipam, strlen(ipam), &r, NULL), 0);
                assert_int_equal(r.ips[0].interface, -1);
                assert_int_equal(cni_result_pod_ips(&r, "eth0", ips, 2), 0);
                cni_result_release(&r);
        }
}

static void test_result_parse_refuses(void **state)
{
        static const char *const bad[] = {
                "",
                "nope",
                "[]",
                "{}",
                "{\"cniVersion\":1}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":{}}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/33\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/-1\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"300.0.0.1/8\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/8\",\"gateway\":\"x\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/8\",\"interface\":0}]}",
                ("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\"}],\"ips\":[{"
                 "\"address\":\"10.0.0.1/8\",\"interface\":1}]}"),
                "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"mac\":\"x\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\\u0000b\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"routes\":[{\"gw\":\"10.0.0.1\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"routes\":[{\"dst\":\"10.0.0.0/8\",\"gw\":\"nope\"}]}",
                "{\"cniVersion\":\"1.0.0\",\"cniVersion\":\"0.4.0\"}",
        };
        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct cni_result r = { 0 };
                cleanup_error struct error *err = NULL;
                assert_int_equal(cni_result_parse(bad[i], strlen(bad[i]), &r, &err), -EBADMSG);
                assert_non_null(err);
                assert_non_null(strstr(err->message, "cni result"));
        }
        /* too many entries */
        {
                struct strbuf sb;
                struct cni_result r;
                strbuf_init(&sb);
                strbuf_addstr(&sb, "{\"cniVersion\":\"1.0.0\",\"routes\":[");
                for (int i = 0; i <= CNI_RESULT_MAX_ENTRIES; i++)
                        strbuf_addf(&sb, "%s{\"dst\":\"10.0.0.0/8\"}", i ? "," : "");
                strbuf_addstr(&sb, "]}");
                assert_int_equal(cni_result_parse(sb.buf, sb.len, &r, NULL), -EBADMSG);
                strbuf_release(&sb);
        }
}

static void test_error_message(void **state)
{
        static const char err1[] = "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"Invalid "
                                   "Configuration\",\"details\":\"Network too small\"}";
        static const char err2[] = "{\"code\":11,\"msg\":\"try again\"}";
        long code;
        char *m;

        (void) state;
        m = cni_error_message(err1, strlen(err1), "", 0, 1, &code);
        assert_string_equal(m, "Invalid Configuration; Network too small");
        assert_int_equal(code, 7);
        free(m);
        m = cni_error_message(err2, strlen(err2), "", 0, 1, &code);
        assert_string_equal(m, "try again");
        assert_int_equal(code, 11);
        free(m);
        m = cni_error_message("", 0, "panic: boom\n", 12, 2, &code);
        assert_string_equal(m, "panic: boom");
        assert_int_equal(code, 0);
        free(m);
        /* output that is not text: what comes before a NUL, else the next source */
        m = cni_error_message("\0\0oops", 6, "on stderr", 9, 1, &code);
        assert_string_equal(m, "on stderr");
        free(m);
        m = cni_error_message("", 0, "", 0, 139, &code);
        assert_string_equal(m, "exit status 139");
        free(m);
}

/* ------------------------------------------------------------------ the invoker */

static char tmp[64];

static void write_plugin(const char *name, const char *body)
{
        cleanup_free char *path = xasprintf("%s/%s", tmp, name);
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        (void) fprintf(f, "#!/bin/sh\n%s", body);
        fclose(f);
        assert_int_equal(chmod(path, 0755), 0);
}

/* Records "NAME COMMAND CONTAINERID NETNS IFNAME ARGS PATH" and its stdin, then answers. */
static const char recorder[] =
        "n=$(basename \"$0\")\n"
        "echo \"$n $CNI_COMMAND $CNI_CONTAINERID $CNI_NETNS $CNI_IFNAME $CNI_ARGS $CNI_PATH\" "
        ">> \"$(dirname \"$0\")/calls\"\n"
        "cat > \"$(dirname \"$0\")/stdin-$n-$CNI_COMMAND\"\n";

static int setup_tmp(void **state)
{
        (void) state;
        (void) snprintf(tmp, sizeof(tmp), "/tmp/flexlet-test-cni.XXXXXX");
        return mkdtemp(tmp) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
        (void) state;
        return fs_remove_tree(tmp);
}

static char *read_tmp(const char *name)
{
        char *data = NULL;
        size_t len;
        int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fs_read_file_at(dfd, name, 1 << 20, &data, &len) < 0)
                data = NULL;
        close(dfd);
        return data;
}

static void test_invoke(void **state)
{
        cleanup_free char *first = NULL, *second = NULL, *calls = NULL;
        cleanup_json json_t *list = json_pack("{s:s, s:s, s:[{s:s}, {s:s, s:{s:b}}]}", "cniVersion",
                                              "1.0.0", "name", "net", "plugins", "type", "one",
                                              "type", "two", "capabilities", "portMappings", 1);
        cleanup_json json_t *caps = json_loads("{\"portMappings\":[{\"hostPort\":1,"
                                               "\"containerPort\":2,\"protocol\":\"tcp\"}]}",
                                               0, NULL);
        cleanup_json json_t *in1 = NULL, *in2 = NULL;
        const char *args[] = { "IgnoreUnknown=1", "K8S_POD_NAME=p", NULL };
        struct cni_attachment a = { .container_id = "c0ffee",
                                    .netns = "/run/netns/x",
                                    .ifname = "eth0",
                                    .args = args,
                                    .capabilities = caps };
        struct cni_result r;
        cleanup_free char *body1 = NULL, *body2 = NULL;

        (void) state;
        body1 = xasprintf("%secho '{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\","
                          "\"sandbox\":\"/run/netns/x\"}],\"ips\":[{\"address\":\"10.9.0.2/24\","
                          "\"interface\":0}]}'\n",
                          recorder);
        /* the second passes prevResult through, as chained plugins must */
        body2 = xasprintf("%s[ \"$CNI_COMMAND\" = ADD ] && jq -c .prevResult "
                          "\"$(dirname \"$0\")/stdin-$n-$CNI_COMMAND\"\nexit 0\n",
                          recorder);
        write_plugin("one", body1);
        write_plugin("two", body2);
        if (access("/usr/bin/jq", X_OK) < 0)
                skip();
        assert_int_equal(cni_list_add(tmp, list, &a, &r, NULL), 0);
        assert_string_equal(r.ips[0].ip, "10.9.0.2");
        calls = read_tmp("calls");
        {
                cleanup_free char *want = xasprintf(
                        "one ADD c0ffee /run/netns/x eth0 IgnoreUnknown=1;K8S_POD_NAME=p %s\n"
                        "two ADD c0ffee /run/netns/x eth0 IgnoreUnknown=1;K8S_POD_NAME=p %s\n",
                        tmp, tmp);
                assert_string_equal(calls, want);
        }
        first = read_tmp("stdin-one-ADD");
        second = read_tmp("stdin-two-ADD");
        in1 = json_loads(first, 0, NULL);
        in2 = json_loads(second, 0, NULL);
        assert_null(json_object_get(in1, "prevResult"));
        assert_null(json_object_get(in1, "runtimeConfig"));
        assert_string_equal(json_string_value(json_object_get(in1, "name")), "net");
        assert_true(json_equal(json_object_get(in2, "prevResult"), r.json));
        assert_true(json_equal(json_path(in2, "runtimeConfig.portMappings"),
                               json_object_get(caps, "portMappings")));

        /* DEL: reverse order, the ADD's result as prevResult to every plugin, netns may be "" */
        {
                cleanup_free char *path = xasprintf("%s/calls", tmp);
                (void) unlink(path);
        }
        a.netns = "";
        assert_int_equal(cni_list_del(tmp, list, &a, r.json, NULL), 0);
        free(calls);
        calls = read_tmp("calls");
        {
                cleanup_free char *want =
                        xasprintf("two DEL c0ffee  eth0 IgnoreUnknown=1;K8S_POD_NAME=p %s\n"
                                  "one DEL c0ffee  eth0 IgnoreUnknown=1;K8S_POD_NAME=p %s\n",
                                  tmp, tmp);
                assert_string_equal(calls, want);
        }
        free(first);
        first = read_tmp("stdin-one-DEL");
        json_decref(in1);
        in1 = json_loads(first, 0, NULL);
        assert_true(json_equal(json_object_get(in1, "prevResult"), r.json));
        cni_result_release(&r);
}

static void test_invoke_errors(void **state)
{
        cleanup_json json_t *list =
                json_pack("{s:s, s:s, s:[{s:s}, {s:s}]}", "cniVersion", "1.0.0", "name", "net",
                          "plugins", "type", "fails", "type", "never");
        cleanup_json json_t *missing = json_pack("{s:s, s:s, s:[{s:s}]}", "cniVersion", "1.0.0",
                                                 "name", "net", "plugins", "type", "absent");
        cleanup_json json_t *garbage = json_pack("{s:s, s:s, s:[{s:s}]}", "cniVersion", "1.0.0",
                                                 "name", "net", "plugins", "type", "garbage");
        struct cni_attachment a = { .container_id = "id", .netns = "/x", .ifname = "eth0" };
        struct cni_result r;

        (void) state;
        write_plugin("fails", "cat >/dev/null\necho '{\"cniVersion\":\"1.0.0\",\"code\":7,"
                              "\"msg\":\"Invalid Configuration\",\"details\":\"bad\"}'\nexit 1\n");
        write_plugin("never", "touch \"$(dirname \"$0\")/never-ran\"\n");
        write_plugin("garbage", "cat >/dev/null\necho 'not json'\n");
        {
                cleanup_error struct error *err = NULL;
                cleanup_free char *never = xasprintf("%s/never-ran", tmp);
                assert_int_equal(cni_list_add(tmp, list, &a, &r, &err), -EIO);
                assert_string_equal(err->message, "plugin type=\"fails\" failed (add): Invalid "
                                                  "Configuration; bad");
                assert_int_equal(access(never, F_OK), -1);
        }
        {
                cleanup_error struct error *err = NULL;
                cleanup_free char *want = xasprintf(
                        "plugin type=\"absent\" failed (add): failed to find plugin \"absent\" in "
                        "path [%s]",
                        tmp);
                assert_int_equal(cni_list_add(tmp, missing, &a, &r, &err), -ENOENT);
                assert_string_equal(err->message, want);
        }
        {
                cleanup_error struct error *err = NULL;
                assert_int_equal(cni_list_add(tmp, garbage, &a, &r, &err), -EBADMSG);
                assert_non_null(strstr(err->message, "plugin type=\"garbage\" failed (add): cni "
                                                     "result: not JSON"));
        }
        {
                cleanup_error struct error *err = NULL;
                a.container_id = "-bad";
                assert_int_equal(cni_list_del(tmp, list, &a, NULL, &err), -EINVAL);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cidr),
                cmocka_unit_test(test_default_conflist),
                cmocka_unit_test(test_conflist_check),
                cmocka_unit_test(test_plugin_config),
                cmocka_unit_test(test_port_mappings_and_args),
                cmocka_unit_test(test_result_parse),
                cmocka_unit_test(test_result_parse_refuses),
                cmocka_unit_test(test_error_message),
                cmocka_unit_test_setup_teardown(test_invoke, setup_tmp, teardown_tmp),
                cmocka_unit_test_setup_teardown(test_invoke_errors, setup_tmp, teardown_tmp),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
