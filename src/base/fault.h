/* fault.h: named fault points for crash-safety tests. A process started with
 * FLEXLET_FAULT=<name> kills itself with SIGKILL the first time it reaches the point of that
 * name, as a power cut or an OOM kill would; with the variable unset every point is a no-op.
 * Points are named where they are placed (docs/resize.md lists the node agent's). */
#ifndef FLEXLET_BASE_FAULT_H
#define FLEXLET_BASE_FAULT_H

/* Dies here when FLEXLET_FAULT equals name. */
void fault_point(const char *name);
/* The same for "<prefix>-<n>". */
void fault_point_n(const char *prefix, unsigned n);

#endif
