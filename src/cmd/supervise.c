/* supervise.c: `flexlet supervise` (internal: the node agent starts it, detached, for each pod
 * sandbox and each container) and `flexlet image import|list` (the local image store). Flags
 * and printing only; the work is in node/runtime. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json.h"
#include "cmd/cmd-runtime.h"
#include "node/runtime/runtime-internal.h"
#include "node/runtime/runtime.h"

#define DEFAULT_DATA_DIR "/var/lib/flexlet"

int cmd_supervise(int argc, char **argv)
{
        cleanup_error struct error *err = NULL;
        int status = runtime_helper_main(argc, argv, &err);

        /* stderr is /dev/null when the runtime starts us; this is for a person running it */
        if (err)
                (void) fprintf(stderr, "flexlet supervise: %s\n", err->message);
        return status;
}

static void image_usage(FILE *f)
{
        (void) fprintf(
                f,
                "usage: flexlet image import FILE [NAME]            add a docker save archive or an OCI\n"
                "                                                    image layout (a directory or a tar),\n"
                "                                                    named NAME or by the archive\n"
                "       flexlet image import NAME FILE.tar [flags]   add a root filesystem tarball (- reads stdin)\n"
                "       flexlet image ls|list [--data-dir DIR]       list the local images\n"
                "       flexlet image rm NAME...                     remove images, then the layers no\n"
                "                                                    image or container uses\n\n"
                "  --data-dir DIR        the node's data dir (default " DEFAULT_DATA_DIR ")\n"
                "  --entrypoint ARG      the image's entrypoint, one word per flag\n"
                "  --cmd ARG             the image's default arguments, one word per flag\n"
                "  --env NAME=VALUE      an environment variable of the image (repeatable)\n"
                "  --workdir DIR         the image's working directory\n\n"
                "busybox (any tag) is built in: it is assembled from the host's static busybox.\n");
}

static int image_list(const char *data_dir)
{
        cleanup_error struct error *err = NULL;
        json_t *list = NULL, *v;
        size_t i;

        if (runtime_image_list(data_dir, &list, &err) < 0) {
                (void) fprintf(stderr, "flexlet image list: %s\n", err->message);
                return 1;
        }
        (void) printf("%-60s %-19s %-6s %s\n", "IMAGE", "IMAGE ID", "LAYERS", "ROOTFS");
        json_array_foreach(list, i, v) {
                const char *id = json_string_value(json_object_get(v, "id"));
                (void) printf("%-60s %-19.19s %-6lld %s\n",
                              json_string_value(json_object_get(v, "reference")), id ? id : "-",
                              (long long) json_integer_value(json_object_get(v, "layers")),
                              json_string_value(json_object_get(v, "rootfs")));
        }
        json_decref(list);
        return 0;
}

int cmd_image(int argc, char **argv)
{
        static const struct option options[] = {
                { "data-dir", required_argument, NULL, 'd' },
                { "entrypoint", required_argument, NULL, 'e' },
                { "cmd", required_argument, NULL, 'c' },
                { "env", required_argument, NULL, 'v' },
                { "workdir", required_argument, NULL, 'w' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        cleanup_error struct error *err = NULL;
        const char *data_dir = DEFAULT_DATA_DIR, *verb, *name, *file;
        char **entrypoint = xcalloc(1, sizeof(char *)), **cmd = xcalloc(1, sizeof(char *)),
             **env = xcalloc(1, sizeof(char *));
        size_t n_ep = 0, n_cmd = 0, n_env = 0;
        struct runtime_image_config cfg = { 0 };
        int c, r = 2;

        /* GNU getopt permutes: flags may come before or after the operands */
        optind = 1;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (c) {
                case 'd':
                        data_dir = optarg;
                        break;
                case 'e':
                        rt_strv_push(&entrypoint, &n_ep, xstrdup(optarg));
                        break;
                case 'c':
                        rt_strv_push(&cmd, &n_cmd, xstrdup(optarg));
                        break;
                case 'v':
                        if (!strchr(optarg, '=') || optarg[0] == '=') {
                                (void) fprintf(stderr,
                                               "flexlet image: --env \"%s\" is not NAME=VALUE\n",
                                               optarg);
                                goto out;
                        }
                        rt_strv_push(&env, &n_env, xstrdup(optarg));
                        break;
                case 'w':
                        cfg.working_dir = optarg;
                        break;
                case 'h':
                        image_usage(stdout);
                        r = 0;
                        goto out;
                default:
                        image_usage(stderr);
                        goto out;
                }
        }
        verb = optind < argc ? argv[optind] : NULL;
        if (verb && (streq(verb, "list") || streq(verb, "ls")) && argc - optind == 1) {
                r = image_list(data_dir);
                goto out;
        }
        if (verb && streq(verb, "rm") && argc - optind >= 2) {
                r = 0;
                for (int i = optind + 1; i < argc; i++) {
                        struct runtime_image_prune pr = { 0 };
                        if (runtime_image_remove(data_dir, argv[i], &pr, &err) < 0) {
                                (void) fprintf(stderr, "flexlet image rm: %s\n", err->message);
                                error_free(TAKE_PTR(err));
                                r = 1;
                                continue;
                        }
                        (void) printf("removed %s (%u layers, %u blobs freed)\n", argv[i],
                                      pr.layers, pr.blobs);
                }
                goto out;
        }
        if (!verb || !streq(verb, "import") || argc - optind < 2 || argc - optind > 3) {
                image_usage(stderr);
                goto out;
        }
        /* `import FILE [NAME]`, or the older `import NAME FILE`: with two operands, the first
         * is the file when it is a path that exists (or "-"), else the name */
        file = argv[optind + 1];
        name = argc - optind == 3 ? argv[optind + 2] : NULL;
        if (name && !(streq(file, "-") || access(file, F_OK) == 0)) {
                file = argv[optind + 2];
                name = argv[optind + 1];
        }
        cfg.entrypoint = (const char *const *) entrypoint;
        cfg.cmd = (const char *const *) cmd;
        cfg.env = (const char *const *) env;
        {
                json_t *refs = NULL, *v;
                size_t i;
                if (runtime_image_import_path(data_dir, file, name, &cfg, &refs, &err) < 0) {
                        (void) fprintf(stderr, "flexlet image import: %s\n", err->message);
                        r = 1;
                        goto out;
                }
                json_array_foreach(refs, i, v) {
                        (void) printf("imported %s\n", json_string_value(v));
                }
                json_decref(refs);
                r = 0;
        }
out:
        rt_strv_free(entrypoint);
        rt_strv_free(cmd);
        rt_strv_free(env);
        return r;
}
