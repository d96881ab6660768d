/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PURLIN_H
#define PURLIN_H

#include <linux/configfs.h>

int purlin_configfs_init(void);
void purlin_configfs_exit(void);

#endif /* PURLIN_H */
