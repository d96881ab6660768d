// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: text and JSON output from the same calls. In JSON the calls
 * build a json-c document, printed at the end; in text they print as they
 * go, and the open objects and arrays are only counted (for lists).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

#define MAX_DEPTH 16

struct frame {
	struct json_object *obj;	/* JSON only */
	bool array;
	const char *sep, *none;		/* text form of a list */
	size_t items;
};

static struct {
	bool json;
	struct json_object *root;
	struct frame stack[MAX_DEPTH];
	int depth;
} pr;

void pl_print_start(bool json)
{
	memset(&pr, 0, sizeof(pr));
	pr.json = json;
}

void pl_print_end(void)
{
	if (pr.json && pr.root) {
		char *text = pl_json_text(pr.root);

		fputs(text, pl_out);
		free(text);
	}
	json_object_put(pr.root);
	memset(&pr, 0, sizeof(pr));
}

bool pl_print_is_json(void)
{
	return pr.json;
}

static struct frame *top(void)
{
	return pr.depth ? &pr.stack[pr.depth - 1] : NULL;
}

/* Put a JSON value where the open object or array wants it; taken over. */
static void put(const char *key, struct json_object *val)
{
	struct frame *f = top();

	if (!f) {
		json_object_put(pr.root);
		pr.root = val;
	} else if (f->array) {
		json_object_array_add(f->obj, val);
	} else {
		json_object_object_add(f->obj, key, val);
	}
}

/* In text, an item of a list is preceded by the list's separator. */
static void text_item(void)
{
	struct frame *f = top();

	if (f && f->array && f->items++ && f->sep)
		fputs(f->sep, pl_out);
}

static void push(const char *key, struct json_object *obj, bool array)
{
	struct frame *f;

	if (pr.depth == MAX_DEPTH) {
		fputs("purlinctl: output nested too deeply\n", stderr);
		abort();
	}
	if (pr.json) {
		put(key, obj);
	} else {
		text_item();
		json_object_put(obj);
		obj = NULL;
	}
	f = &pr.stack[pr.depth++];
	memset(f, 0, sizeof(*f));
	f->obj = obj;
	f->array = array;
}

static void pop(void)
{
	struct frame *f = top();

	if (!f)
		return;
	if (!pr.json && f->array && !f->items && f->none)
		fputs(f->none, pl_out);
	pr.depth--;
}

void pl_print_open_object(const char *key)
{
	push(key, pr.json ? json_object_new_object() : NULL, false);
}

void pl_print_close_object(void)
{
	pop();
}

void pl_print_open_array(const char *key)
{
	push(key, pr.json ? json_object_new_array() : NULL, true);
}

void pl_print_open_list(const char *key, const char *sep, const char *none)
{
	pl_print_open_array(key);
	top()->sep = sep;
	top()->none = none;
}

void pl_print_close_array(void)
{
	pop();
}

void pl_print_open_json(const char *key, struct json_object *obj)
{
	push(key, obj, false);
}

/*
 * Whether kind prints in the current form; in text, also count the item
 * and print the list's separator before it.
 */
static bool wanted(enum pl_print_kind kind, const char *fmt)
{
	if (pr.json)
		return kind & PL_JSON;
	if (!(kind & PL_TEXT) || !fmt)
		return false;
	text_item();
	return true;
}

void pl_print_string(enum pl_print_kind kind, const char *key, const char *fmt, const char *val)
{
	if (!wanted(kind, val ? fmt : NULL))
		return;
	if (pr.json)
		put(key, val ? json_object_new_string(val) : NULL);
	else
		fprintf(pl_out, fmt, val);
}

void pl_print_int(enum pl_print_kind kind, const char *key, const char *fmt, int val)
{
	if (!wanted(kind, fmt))
		return;
	if (pr.json)
		put(key, json_object_new_int(val));
	else
		fprintf(pl_out, fmt, val);
}

void pl_print_uint(enum pl_print_kind kind, const char *key, const char *fmt, unsigned int val)
{
	if (!wanted(kind, fmt))
		return;
	if (pr.json)
		put(key, json_object_new_int64(val));
	else
		fprintf(pl_out, fmt, val);
}

void pl_print_u64(enum pl_print_kind kind, const char *key, const char *fmt,
		  unsigned long long val)
{
	if (!wanted(kind, fmt))
		return;
	if (pr.json)
		put(key, json_object_new_int64((int64_t)val));
	else
		fprintf(pl_out, fmt, val);
}

void pl_print_bool(enum pl_print_kind kind, const char *key, const char *fmt, bool val)
{
	if (!wanted(kind, fmt))
		return;
	if (pr.json)
		put(key, json_object_new_boolean(val));
	else
		fprintf(pl_out, fmt, val ? "on" : "off");
}

void pl_print_null(const char *key)
{
	if (pr.json)
		put(key, NULL);
}

void pl_print_strv(const char *key, const struct strv *sv, const char *sep, const char *none)
{
	pl_print_open_list(key, sep, none);
	for (size_t i = 0; i < sv->n; i++)
		pl_print_string(PL_ANY, NULL, "%s", sv->v[i]);
	pl_print_close_array();
}

void pl_print_text(const char *fmt, ...)
{
	va_list ap;

	if (pr.json)
		return;
	va_start(ap, fmt);
	vfprintf(pl_out, fmt, ap);
	va_end(ap);
}

void pl_print_nl(void)
{
	pl_print_text("\n");
}

static void print_row(char *const *cells, const size_t *width, size_t ncols)
{
	for (size_t c = 0; c < ncols; c++) {
		const char *cell = *cells[c] ? cells[c] : "-";

		if (c + 1 < ncols)
			fprintf(pl_out, "%-*s  ", (int)width[c], cell);
		else
			fprintf(pl_out, "%s\n", cell);
	}
}

void pl_print_table(const struct strv *cells, size_t ncols)
{
	size_t *width;

	if (pr.json)
		return;
	width = xcalloc(ncols, sizeof(*width));
	for (size_t i = 0; i < cells->n; i++) {
		size_t len = *cells->v[i] ? strlen(cells->v[i]) : 1;

		if (len > width[i % ncols])
			width[i % ncols] = len;
	}
	for (size_t i = 0; i + ncols <= cells->n; i += ncols)
		print_row(&cells->v[i], width, ncols);
	free(width);
}

/*
 * json-c's pretty printer differs from Python's json.dumps(indent=2) in
 * small ways ("key":value, "[\n]"); print the layout nvmetcli produces so
 * saved files diff cleanly against nvmetcli's.
 */
static void emit(FILE *f, struct json_object *obj, int depth)
{
	bool is_obj = json_object_is_type(obj, json_type_object);
	size_t n, i = 0;

	if (!is_obj && !json_object_is_type(obj, json_type_array)) {
		fputs(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_NOSLASHESCAPE), f);
		return;
	}
	n = is_obj ? (size_t)json_object_object_length(obj) : json_object_array_length(obj);
	if (!n) {
		fputs(is_obj ? "{}" : "[]", f);
		return;
	}
	fputs(is_obj ? "{\n" : "[\n", f);
	if (is_obj) {
		json_object_object_foreach(obj, key, val) {
			struct json_object *k = json_object_new_string(key);

			fprintf(f, "%*s%s: ", 2 * (depth + 1), "",
				json_object_to_json_string_ext(k, JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(k);
			emit(f, val, depth + 1);
			fputs(++i < n ? ",\n" : "\n", f);
		}
	} else {
		for (; i < n;) {
			fprintf(f, "%*s", 2 * (depth + 1), "");
			emit(f, json_object_array_get_idx(obj, i), depth + 1);
			fputs(++i < n ? ",\n" : "\n", f);
		}
	}
	fprintf(f, "%*s%s", 2 * depth, "", is_obj ? "}" : "]");
}

char *pl_json_text(struct json_object *obj)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return xstrdup("");
	emit(f, obj, 0);
	fputc('\n', f);
	fclose(f);
	return text;
}
