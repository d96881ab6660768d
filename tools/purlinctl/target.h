/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PURLINCTL_TARGET_H
#define PURLINCTL_TARGET_H

#include <stdbool.h>

#define PL_CONFIGFS "/sys/kernel/config"

/* Is name a known target ("purlin" or "nvmet")? */
int pl_target_valid(const char *name);
/*
 * Point the configfs layer at the target. With root, that directory is
 * used as is. Otherwise /sys/kernel/config/<target>, loading the target's
 * modules and mounting configfs first when it is missing; with dry_run a
 * missing target is an error and nothing is loaded. 0 or -errno, reported.
 */
int pl_target_open(const char *name, const char *root, bool dry_run);

#endif
