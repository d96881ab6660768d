// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: provision the Purlin NVMe-oF target (or Linux nvmet) through
 * configfs. Everything but the entry point lives in the library objects.
 */
#include "cli.h"

int main(int argc, char **argv)
{
	return pl_main(argc, argv);
}
