/* cmd.h: the subcommands of the one flexlet binary. Each parses its own flags, wires the
 * components together and decides what to log; nothing else lives in cmd/. */
#ifndef FLEXLET_CMD_CMD_H
#define FLEXLET_CMD_CMD_H

int cmd_serve(int argc, char **argv);
int cmd_apiserver(int argc, char **argv);
int cmd_node(int argc, char **argv);
int cmd_version(int argc, char **argv);

#define FLEXLET_VERSION "0.1.0"

#endif
