/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: one print path for text and JSON. A command prints its output
 * once, through these calls, between pl_print_start() and pl_print_end().
 * Each call says what it prints in both forms: in text, fmt with the value
 * on pl_out (nothing when fmt is NULL); in JSON, the value under key in the
 * open object, or next in the open array (key is then ignored). kind keeps
 * a call to one form, for what the two forms say differently. The JSON
 * document is printed by pl_print_end(), in the layout of saved files.
 */
#ifndef PURLINCTL_PRINT_H
#define PURLINCTL_PRINT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

enum pl_print_kind {
	PL_TEXT = 1 << 0,
	PL_JSON = 1 << 1,
	PL_ANY = PL_TEXT | PL_JSON,
};

/* Begin a command's output, as JSON or as text. */
void pl_print_start(bool json);
/* End it: with JSON, print the document (if anything was printed) and free it. */
void pl_print_end(void);
bool pl_print_is_json(void);

/* Objects and arrays give JSON its shape; in text they print nothing. */
void pl_print_open_object(const char *key);
void pl_print_close_object(void);
void pl_print_open_array(const char *key);
/*
 * An array that reads as a list in text: sep before each of its items
 * (values or objects) but the first, and none (when not NULL) if it has none.
 */
void pl_print_open_list(const char *key, const char *sep, const char *none);
void pl_print_close_array(void);
/*
 * Open obj, an object built elsewhere (taken over), to print more into it;
 * close it with pl_print_close_object(). In text obj is dropped.
 */
void pl_print_open_json(const char *key, struct json_object *obj);

/* val NULL is null in JSON and prints nothing in text. */
void pl_print_string(enum pl_print_kind kind, const char *key, const char *fmt, const char *val);
void pl_print_int(enum pl_print_kind kind, const char *key, const char *fmt, int val);
void pl_print_uint(enum pl_print_kind kind, const char *key, const char *fmt, unsigned int val);
/* fmt takes an unsigned long long; JSON holds it as a (signed) 64-bit integer. */
void pl_print_u64(enum pl_print_kind kind, const char *key, const char *fmt,
		  unsigned long long val);
/* In text fmt takes "on" or "off"; in JSON true or false. */
void pl_print_bool(enum pl_print_kind kind, const char *key, const char *fmt, bool val);
/* JSON null; nothing in text. */
void pl_print_null(const char *key);
/* The strings of sv as a list (pl_print_open_list()) under key. */
void pl_print_strv(const char *key, const struct strv *sv, const char *sep, const char *none);

/* Text only, as printf. */
void pl_print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pl_print_nl(void);
/*
 * Text only: rows of ncols cells (the first row the headers), each column
 * as wide as its widest cell, "-" for an empty cell.
 */
void pl_print_table(const struct strv *cells, size_t ncols);

/* A JSON value in the layout nvmetcli saves (Python's indent=2), ending in a newline. */
char *pl_json_text(struct json_object *obj);

#endif
