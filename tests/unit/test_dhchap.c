// SPDX-License-Identifier: GPL-2.0
/*
 * DH-HMAC-CHAP secrets: the DHHC-1 format and its CRC-32, base64, the
 * SHA-2 and HMAC used for nvme gen-dhchap-key's transformation (vectors
 * from Python's hashlib and hmac), masking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dhchap.h"
#include "harness.h"

static void hex(const uint8_t *p, int n, char *out)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_sha2(void **state)
{
	uint8_t d[64];
	char h[129];

	(void)state;
	pl_sha2(32, "abc", 3, d);
	hex(d, 32, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	pl_sha2(48, "abc", 3, d);
	hex(d, 48, h);
	assert_string_equal(h, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
			       "8086072ba1e7cc2358baeca134c825a7");
	pl_sha2(64, "abc", 3, d);
	hex(d, 64, h);
	assert_string_equal(h, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
			       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
}

/* key = HMAC(bytes 0..n-1, "nqn.2014-08.a:b" "NVMe-over-Fabrics"). */
static void test_transform(void **state)
{
	static const char *const want[] = {
		"39d4d19f767a5340ac306930b883c275e62adf5938b06a7f6dbe2a577eca059e",
		"8e83fc5b735bcdbb633d15caf7e0f02483e49e4b969b2c9f365a775b6b6e86da"
		"fc55c48958ca244b54f6a4cb2ab00eea",
		"9a4335ea3eb306e368726730c101b4783669fdc450814e26d3ebc158b26f040f"
		"fdfa6488156bacb8d67d7336d66615016af6509464ef2506b332ef77aaffe177",
	};
	uint8_t secret[64], key[64];
	char h[129];

	(void)state;
	for (int i = 0; i < 64; i++)
		secret[i] = (uint8_t)i;
	for (int hmac = 1; hmac <= 3; hmac++) {
		int len = 16 + 16 * hmac;

		assert_null(pl_dhchap_transform(secret, len, hmac, "nqn.2014-08.a:b", key));
		hex(key, len, h);
		assert_string_equal(h, want[hmac - 1]);
	}
	assert_non_null(pl_dhchap_transform(secret, 32, 3, "nqn.2014-08.a:b", key));
}

static void test_format_and_check(void **state)
{
	uint8_t key[64];
	char s[PL_DHCHAP_MAX_STR];

	(void)state;
	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	assert_int_equal(pl_dhchap_format(key, 32, 0, s, sizeof(s)), 0);
	assert_string_equal(s, "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
	assert_null(pl_check_dhchap_secret(s));
	assert_int_equal(pl_dhchap_format(key, 40, 0, s, sizeof(s)), -1);
	for (int len = 32; len <= 64; len += 16) {
		assert_int_equal(pl_dhchap_format(key, len, 2, s, sizeof(s)), 0);
		assert_null(pl_check_dhchap_secret(s));
	}
	assert_null(pl_check_dhchap_secret(""));	/* no key */
	assert_non_null(pl_check_dhchap_secret("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:"));
	assert_non_null(pl_check_dhchap_secret("DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"));
	assert_non_null(pl_check_dhchap_secret("DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"));
	assert_non_null(pl_check_dhchap_secret("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR"));
	assert_non_null(pl_check_dhchap_secret("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+Kfia*:"));
	assert_non_null(pl_check_dhchap_secret("DHHC-1:00:AAECAwQF:"));
	assert_non_null(pl_check_dhchap_secret("DHHC-1:00::"));
	assert_null(pl_check_dhchap_hash("hmac(sha384)"));
	assert_non_null(pl_check_dhchap_hash("sha256"));
	assert_null(pl_check_dhchap_dhgroup("ffdhe8192"));
	assert_null(pl_check_dhchap_dhgroup("null"));
	assert_non_null(pl_check_dhchap_dhgroup("ffdhe1024"));
}

static void test_crc_b64(void **state)
{
	uint8_t out[8];

	(void)state;
	assert_int_equal(pl_crc32((const uint8_t *)"123456789", 9), 0xcbf43926);
	assert_int_equal(pl_b64_decode("TWE=", 4, out, sizeof(out)), 2);
	assert_memory_equal(out, "Ma", 2);
	assert_int_equal(pl_b64_decode("TW=E", 4, out, sizeof(out)), -1);
	assert_int_equal(pl_b64_decode("TWE", 3, out, sizeof(out)), -1);
	assert_int_equal(pl_b64_decode("TWFuTWFuTWFu", 12, out, 8), -1);
}

static void test_mask(void **state)
{
	char s[] = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
	char bad[] = "not a secret";

	(void)state;
	pl_dhchap_mask(s);
	assert_string_equal(s, "DHHC-1:00:<hidden>:");
	pl_dhchap_mask(bad);
	assert_string_equal(bad, "not a secret");
}

#define HN "nqn.2026-12.io.purlin.test:h1"
#define KEY "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"

static void cli_ok(const char *line)
{
	int rc = run_cli_line(line);

	if (rc)
		fail_msg("'%s' exited %d: %s", line, rc, cli_err);
}

/* host add/set with keys; show masks them unless asked; save and restore. */
static void test_cli_keys(void **state)
{
	char *file, *text, *k;
	struct stat st;

	(void)state;
	cli_ok("host add " HN " key " KEY " hash hmac(sha384) dhgroup ffdhe3072");
	k = tree_read("hosts/" HN "/dhchap_key");
	assert_string_equal(k, KEY);
	free(k);
	cli_ok("host show " HN);
	assert_non_null(strstr(cli_out, "DHHC-1:00:<hidden>:"));
	assert_null(strstr(cli_out, KEY));
	cli_ok("host show " HN " secrets");
	assert_non_null(strstr(cli_out, KEY));
	/* A malformed key changes nothing. */
	assert_int_equal(run_cli_line("host set " HN " ctrl-key DHHC-1:00:AAAA:"), PL_EXIT_USAGE);
	assert_non_null(strstr(cli_err, "dhchap_ctrl_key"));
	cli_ok("host set " HN " ctrl-key " KEY);
	file = scratch_file("keys.json", "");
	assert_int_equal(run_cli("save %s", file), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	text = slurp(file);
	assert_non_null(strstr(text, "\"dhchap\": {"));
	assert_non_null(strstr(text, "\"ctrl_key\": \"" KEY "\""));
	assert_non_null(strstr(text, "\"dhgroup\": \"ffdhe3072\""));
	assert_non_null(strstr(text, "\"hash\": \"hmac(sha384)\""));
	free(text);
	/* Restored from a file others can read: done, with a warning. */
	cli_ok("clear");
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_non_null(strstr(cli_err, "readable by others"));
	k = tree_read("hosts/" HN "/dhchap_ctrl_key");
	assert_string_equal(k, KEY);
	free(k);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha2),
		cmocka_unit_test(test_transform),
		cmocka_unit_test(test_format_and_check),
		cmocka_unit_test(test_crc_b64),
		cmocka_unit_test(test_mask),
		cmocka_unit_test_setup_teardown(test_cli_keys, root_setup, root_teardown),
	};

	return cmocka_run_group_tests_name("dhchap", tests, NULL, NULL);
}
