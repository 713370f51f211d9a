/* cmd.h: the subcommands of the one flexlet binary. Each parses its own flags, wires the
 * components together and decides what to log; nothing else lives in cmd/. */
#ifndef FLEXLET_CMD_CMD_H
#define FLEXLET_CMD_CMD_H

#include <signal.h>

int cmd_serve(int argc, char **argv);
int cmd_apiserver(int argc, char **argv);
int cmd_node(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* Waits for one of sigs (blocked in every thread) and returns it; meanwhile, every few seconds,
 * calls release(ud) (NULL: none), for a component to free what it keeps and nothing uses any
 * more, then gives the pages of freed memory back to the kernel (alloc_release_free). For the main
 * thread of a long-running command, once everything is started. */
int cmd_wait_signal(const sigset_t *sigs, void (*release)(void *ud), void *ud);

#define FLEXLET_VERSION "0.1.0"

#endif
