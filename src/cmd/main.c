/* main.c: dispatches `flexlet <command>` to its subcommand. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd-runtime.h"
#include "node/runtime/runtime.h"

static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
        const char *help;
} commands[] = {
        { "serve", cmd_serve,
          "all-in-one: API server (SQLite store, or etcd), scheduler, this node's agent" },
        { "apiserver", cmd_apiserver, "API server and scheduler, without a node agent" },
        { "node", cmd_node, "a node agent joining a cluster with a join token" },
        { "version", cmd_version, "print the version" },
        { "image", cmd_image, "the local image store: import, list" },
        { "supervise", cmd_supervise, "internal: a pod sandbox or container supervisor" },
};

static void usage(FILE *f)
{
        (void) fprintf(f, "usage: flexlet <command> [flags]\n\ncommands:\n");
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                (void) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
        (void) fprintf(f, "\n`flexlet <command> --help` lists a command's flags.\n");
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
            strcmp(argv[1], "help") == 0) {
                usage(stdout);
                return 0;
        }
        if (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "node") == 0) {
                /* runc's CVE-2019-5736 defence: the agent and every helper it starts (each
                 * pod's pid 1, the supervisors, a container's process until it execs) run from
                 * a sealed view of this binary, so no pod can write it through /proc/PID/exe */
                struct error *err = NULL;

                if (runtime_exe_reexec_sealed(argv, &err) < 0) {
                        (void) fprintf(stderr, "flexlet: %s\n", err->message);
                        error_free(err);
                        return 1;
                }
                if (!runtime_helper_binary())
                        (void) fprintf(stderr, "flexlet: no flexlet-helper beside this binary: "
                                               "the pods' helpers run flexlet itself (more "
                                               "memory per pod)\n");
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (strcmp(argv[1], commands[i].name) == 0)
                        return commands[i].run(argc - 1, argv + 1);
        (void) fprintf(stderr, "flexlet: unknown command \"%s\"\n\n", argv[1]);
        usage(stderr);
        return 2;
}
