/* cmd-runtime.h: the runtime's subcommands: `flexlet supervise` (internal: the pod sandbox and
 * the per-container supervisor the node agent starts) and `flexlet image` (the local image
 * store). */
#ifndef FLEXLET_CMD_CMD_RUNTIME_H
#define FLEXLET_CMD_CMD_RUNTIME_H

int cmd_supervise(int argc, char **argv);
int cmd_image(int argc, char **argv);

#endif
