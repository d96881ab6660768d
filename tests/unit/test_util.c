// SPDX-License-Identifier: GPL-2.0
/*
 * The small helpers every layer shares: the string join, the atomic file
 * writer, usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static void test_join(void **state)
{
	struct strv sv = { 0 };
	char *s;

	(void)state;
	s = strv_join(&sv, ", ");
	assert_string_equal(s, "");
	free(s);
	strv_add(&sv, "dcb");
	s = strv_join(&sv, ", ");
	assert_string_equal(s, "dcb");
	free(s);
	strv_add(&sv, "");
	strv_add(&sv, "pfc");
	s = strv_join(&sv, ", ");
	assert_string_equal(s, "dcb, , pfc");
	free(s);
	s = strv_join(&sv, "");
	assert_string_equal(s, "dcbpfc");
	free(s);
	strv_free(&sv);
}

static char dir[64];

static int dir_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/purlinctl-util-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	(void)state;
	tree_rm_rf(dir);
	return 0;
}

static char *path_in(const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	return p;
}

static void assert_content(const char *path, const char *want)
{
	char *got = slurp(path);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void assert_gone(const char *path)
{
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_write_new_and_replace(void **state)
{
	char *path = path_in("a/b/file.json"), *tmp = path_in("a/b/file.json.tmp");
	struct stat st;
	mode_t old = umask(022);

	(void)state;
	/* missing directories are made */
	assert_int_equal(pl_write_atomic(path, "one\n", 0600), 0);
	assert_content(path, "one\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_gone(tmp);
	/* an existing file is replaced whole, not appended to or left longer */
	assert_int_equal(pl_write_atomic(path, "2\n", 0600), 0);
	assert_content(path, "2\n");
	assert_gone(tmp);
	assert_int_equal(pl_write_atomic(path, "", 0600), 0);
	assert_content(path, "");
	/* a new file's mode is less the umask */
	free(path);
	path = path_in("other");
	assert_int_equal(pl_write_atomic(path, "x", 0666), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	umask(old);
	free(path);
	free(tmp);
}

static void test_write_failure_keeps_old(void **state)
{
	char *path = path_in("file"), *tmp = path_in("file.tmp"), *sub = path_in("dir/x");
	char *notdir = path_in("file/below");

	(void)state;
	assert_int_equal(pl_write_atomic(path, "old\n", 0600), 0);
	/* the temporary file cannot be made: the old file stays */
	assert_int_equal(mkdir(tmp, 0755), 0);
	assert_int_equal(pl_write_atomic(path, "new\n", 0600), -EISDIR);
	assert_content(path, "old\n");
	assert_int_equal(rmdir(tmp), 0);
	/* the rename fails (a directory with something in it is in the way): no temporary left */
	free(path);
	path = path_in("dir");
	free(tmp);
	tmp = path_in("dir.tmp");
	assert_int_equal(pl_write_atomic(sub, "inside\n", 0600), 0);
	assert_true(pl_write_atomic(path, "new\n", 0600) < 0);
	assert_gone(tmp);
	assert_content(sub, "inside\n");
	/* a directory above cannot be made */
	assert_int_equal(pl_write_atomic(notdir, "x", 0600), -ENOTDIR);
	free(path);
	path = path_in("file");
	assert_content(path, "old\n");
	free(path);
	free(tmp);
	free(sub);
	free(notdir);
}

static void test_usage_error(void **state)
{
	char *text = NULL;
	size_t len;

	(void)state;
	pl_errs = open_memstream(&text, &len);
	assert_int_equal(pl_usage_error("net set", "unknown knob '%s'", "frob"), PL_EXIT_USAGE);
	fclose(pl_errs);
	pl_errs = NULL;
	assert_string_equal(text, "purlinctl: net set: unknown knob 'frob' (see 'purlinctl net help')\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test_setup_teardown(test_write_new_and_replace, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_keeps_old, dir_setup, dir_teardown),
		cmocka_unit_test(test_usage_error),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
