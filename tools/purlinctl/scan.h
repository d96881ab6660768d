/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PURLINCTL_SCAN_H
#define PURLINCTL_SCAN_H

#include "model.h"

/* Read the whole target under the cfs root; 0 or -errno (already reported). */
int pl_scan(struct pl_node **root);

#endif
