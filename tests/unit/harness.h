/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit test harness for purlinctl: a temporary directory that behaves like
 * Purlin's configfs tree, or Linux nvmet's (fakecfs.c), tree snapshots, and
 * an in-process runner for the command line.
 */
#ifndef PURLIN_TEST_HARNESS_H
#define PURLIN_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

/* Output of the last run_cli(). */
extern char *cli_out;
extern char *cli_err;

/* The temporary target root of the current test. */
extern char test_root[];

/* Make test_root with hosts/, ports/, subsystems/ and install the fake configfs. */
int root_setup(void **state);
int root_teardown(void **state);

/* Which kernel the fake configfs behaves like (root_setup: FAKE_PURLIN). */
enum fake_target {
	FAKE_PURLIN,	/* drivers/configfs.c */
	FAKE_NVMET,	/* Linux 6.1's nvmet, the one the guest tests run */
};
extern enum fake_target fake_target;
/* Behave like an older nvmet, without attr_qid_max (implies FAKE_NVMET). */
extern bool fake_old_nvmet;

/*
 * Run "purlinctl --root ROOT ARGS..." in process. args are split on
 * blanks; a "%s" in fmt is not split. Returns the exit code.
 */
int run_cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a line split on every blank. */
int run_cli_line(const char *line);
/* The same without --root, for option parsing. */
int run_cli_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* tree_snapshot() of a target without objects: the root's discovery_nqn at its default. */
#define EMPTY_TREE \
	"d /controllers\nd /hosts\nd /ports\nd /subsystems\n" \
	"f /discovery_nqn = nqn.2014-08.org.nvmexpress.discovery\n"

/* Every dir, file (with contents) and link under test_root, one per line, sorted. */
char *tree_snapshot(void);
/* Contents of ROOT/rel with trailing whitespace removed, or NULL. */
char *tree_read(const char *rel);
bool tree_exists(const char *rel);
void tree_write(const char *rel, const char *val);

/* A file under test_root's sibling scratch dir holding text; returns its path. */
char *scratch_file(const char *name, const char *text);
/* Absolute path of a file in tests/unit/data. */
char *data_file(const char *name);
char *slurp(const char *path);

/* Fail unless ROOT/rel holds want. */
void assert_file(const char *rel, const char *want);
/* Remove a directory tree. */
void tree_rm_rf(const char *path);

/* run_cli() must succeed; its stderr in the failure message. */
#define assert_run_ok(...)                                                        \
	do {                                                                      \
		int _rc = run_cli(__VA_ARGS__);                                   \
		if (_rc)                                                          \
			fail_msg("exit %d: %s", _rc, cli_err);                    \
	} while (0)

#define assert_has(hay, needle)                                                   \
	do {                                                                      \
		if (!strstr((hay), (needle)))                                     \
			fail_msg("'%s' not found in:\n%s", (needle), (hay));      \
	} while (0)

/* The root's files as the fake's target has them (nvmet 6.1: no discovery_nqn). */
void fakecfs_root_as_target(void);
/* EMPTY_TREE of Linux 6.1's nvmet. */
#define EMPTY_TREE_NVMET "d /hosts\nd /ports\nd /subsystems\n"

/* Install the fake configfs operations into the cfs layer (no files added). */
void fakecfs_install(void);
/* A regular file that exists in the fake's world (for device_path). */
void fakecfs_add_file(const char *path);

#endif
