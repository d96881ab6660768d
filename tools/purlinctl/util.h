/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: small helpers shared by every object (allocation, string
 * vectors, error reporting, random identifiers).
 */
#ifndef PURLINCTL_UTIL_H
#define PURLINCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes, as documented in purlinctl(8) ("EXIT STATUS"): scripts tell them apart. */
enum {
	PL_EXIT_OK = 0,
	PL_EXIT_FAIL = 1,	/* the target refused or failed a change (undone) */
	PL_EXIT_USAGE = 2,	/* bad command line or value; nothing touched */
	PL_EXIT_NOTFOUND = 3,	/* a named object (or network device) does not exist */
	PL_EXIT_CONFLICT = 4,	/* exists already, or the target's state forbids it now */
	PL_EXIT_TARGET = 5,	/* the target is not available (module, configfs, --root) */
	PL_EXIT_FILE = 6,	/* a configuration file cannot be read, is not valid, or not written */
	PL_EXIT_CHECK = 7,	/* net check: an item fails */
	PL_EXIT_DIFFERS = 8,	/* diff: the target and the file differ */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Streams for normal output and for errors; tests point them at memstreams. */
extern FILE *pl_out;
extern FILE *pl_errs;
extern bool pl_verbose;

void *xmalloc(size_t len);
void *xcalloc(size_t n, size_t len);
void *xrealloc(void *p, size_t len);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable, NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n;
};

void strv_add(struct strv *sv, const char *s);
bool strv_has(const struct strv *sv, const char *s);
bool strv_del(struct strv *sv, const char *s);
void strv_sort(struct strv *sv);
void strv_free(struct strv *sv);
/* The strings of sv with sep between them, in a new string ("" for none). */
char *strv_join(const struct strv *sv, const char *sep);

/* "purlinctl: OBJ: WHAT: strerror(err)" on pl_errs; err is a positive errno. */
void pl_err_obj(const char *obj, const char *what, int err);
/* "purlinctl: message" on pl_errs. */
void pl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "purlinctl: CMD: message (see 'purlinctl OBJECT help')"; returns PL_EXIT_USAGE. */
int pl_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Printed only with -v. */
void pl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fill buf with len random bytes from /dev/urandom; returns 0 or -errno. */
int pl_random(void *buf, size_t len);
/* 16 lowercase hex characters; buf must hold 17 bytes. */
int pl_gen_serial(char *buf);
/* A random (version 4) UUID in canonical form; buf must hold 37 bytes. */
int pl_gen_uuid(char *buf);

/*
 * Replace path with text: written to PATH.tmp (mode, less the umask),
 * synced and renamed over path, so a crash leaves the old file or the new
 * one; missing directories above it are made (0755). On failure path is
 * as it was and PATH.tmp is gone. Returns 0 or -errno; reports nothing.
 */
int pl_write_atomic(const char *path, const char *text, mode_t mode);

/* A size as people read it ("1.5 GiB", "512 MiB"); "" for a negative (unknown) one. */
char *pl_human_size(long long bytes);

/* Strip trailing whitespace in place and return s. */
char *pl_rstrip(char *s);
/* Parse a decimal or 0x-prefixed integer that must be fully consumed. */
bool pl_parse_long(const char *s, int base, long long *out);

#endif
