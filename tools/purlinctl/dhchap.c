// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: DH-HMAC-CHAP secrets ("DHHC-1:<tt>:<base64 of key and
 * CRC-32>:", as nvme-cli and Linux write them): checking, generating,
 * masking.  SHA-256/384/512 and HMAC are here so that generating a key
 * transformed with a host NQN (as `nvme gen-dhchap-key` does) needs no
 * crypto library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dhchap.h"

/* ---- CRC-32 (IEEE 802.3, as zlib and the kernel's crc32_le) ---- */

uint32_t pl_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffff;

	while (n--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/* ---- base64 (RFC 4648, padded) ---- */

static const char b64chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void pl_b64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];

		out[o++] = b64chars[v >> 18];
		out[o++] = b64chars[(v >> 12) & 63];
		out[o++] = b64chars[(v >> 6) & 63];
		out[o++] = b64chars[v & 63];
	}
	if (i < n) {
		uint32_t v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0);

		out[o++] = b64chars[v >> 18];
		out[o++] = b64chars[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

int pl_b64_decode(const char *s, size_t n, uint8_t *out, size_t max)
{
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0, pad = 0;

	if (!n || n % 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *c;

		if (s[i] == '=') {
			if (i < n - 2)
				return -1;
			pad++;
			continue;
		}
		c = s[i] ? strchr(b64chars, s[i]) : NULL;
		if (!c || pad)
			return -1;
		acc = acc << 6 | (uint32_t)(c - b64chars);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == max)
				return -1;
			out[o++] = acc >> bits;
		}
	}
	return (int)o;
}

/* ---- SHA-2 (FIPS 180-4) ---- */

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static const uint64_t k512[80] = {
	0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
	0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
	0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
	0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
	0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
	0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
	0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
	0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
	0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
	0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
	0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
	0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
	0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
	0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
	0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
	0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
	0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
	0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
	0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
	0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

struct sha {
	int hlen;		/* 32, 48 or 64 */
	int blen;		/* 64 or 128 */
	uint32_t h32[8];
	uint64_t h64[8];
	uint8_t buf[128];
	size_t nbuf;
	uint64_t total;
};

static void sha256_block(struct sha *c, const uint8_t *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | p[4 * i + 1] << 16 | p[4 * i + 2] << 8 |
		       p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, c->h32, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ROR32(v[4], 6) ^ ROR32(v[4], 11) ^ ROR32(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + k256[i] + w[i];
		uint32_t t2 = (ROR32(v[0], 2) ^ ROR32(v[0], 13) ^ ROR32(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->h32[i] += v[i];
}

static void sha512_block(struct sha *c, const uint8_t *p)
{
	uint64_t w[80], v[8];

	for (int i = 0; i < 16; i++) {
		w[i] = 0;
		for (int j = 0; j < 8; j++)
			w[i] = w[i] << 8 | p[8 * i + j];
	}
	for (int i = 16; i < 80; i++) {
		uint64_t s0 = ROR64(w[i - 15], 1) ^ ROR64(w[i - 15], 8) ^ (w[i - 15] >> 7);
		uint64_t s1 = ROR64(w[i - 2], 19) ^ ROR64(w[i - 2], 61) ^ (w[i - 2] >> 6);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, c->h64, sizeof(v));
	for (int i = 0; i < 80; i++) {
		uint64_t t1 = v[7] + (ROR64(v[4], 14) ^ ROR64(v[4], 18) ^ ROR64(v[4], 41)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + k512[i] + w[i];
		uint64_t t2 = (ROR64(v[0], 28) ^ ROR64(v[0], 34) ^ ROR64(v[0], 39)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->h64[i] += v[i];
}

static void sha_init(struct sha *c, int hlen)
{
	static const uint32_t iv256[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	static const uint64_t iv384[8] = {
		0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
		0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
	};
	static const uint64_t iv512[8] = {
		0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
		0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
	};

	memset(c, 0, sizeof(*c));
	c->hlen = hlen;
	c->blen = hlen == 32 ? 64 : 128;
	if (hlen == 32)
		memcpy(c->h32, iv256, sizeof(iv256));
	else
		memcpy(c->h64, hlen == 48 ? iv384 : iv512, sizeof(iv512));
}

static void sha_block(struct sha *c, const uint8_t *p)
{
	if (c->blen == 64)
		sha256_block(c, p);
	else
		sha512_block(c, p);
}

static void sha_update(struct sha *c, const void *data, size_t n)
{
	const uint8_t *p = data;

	c->total += n;
	while (n) {
		size_t k = (size_t)c->blen - c->nbuf;

		if (k > n)
			k = n;
		memcpy(c->buf + c->nbuf, p, k);
		c->nbuf += k;
		p += k;
		n -= k;
		if (c->nbuf == (size_t)c->blen) {
			sha_block(c, c->buf);
			c->nbuf = 0;
		}
	}
}

static void sha_final(struct sha *c, uint8_t *out)
{
	uint64_t bits = c->total * 8;
	size_t lenpos = (size_t)c->blen - (c->blen == 64 ? 8 : 16);
	uint8_t one = 0x80, zero = 0;

	sha_update(c, &one, 1);
	while (c->nbuf != lenpos)
		sha_update(c, &zero, 1);
	for (size_t i = lenpos; i < (size_t)c->blen; i++)
		c->buf[i] = i < (size_t)c->blen - 8 ? 0 : bits >> (8 * (c->blen - 1 - i));
	sha_block(c, c->buf);
	for (int i = 0; i < c->hlen; i++)
		out[i] = c->blen == 64 ? c->h32[i / 4] >> (24 - 8 * (i % 4)) :
					 c->h64[i / 8] >> (56 - 8 * (i % 8));
	memset(c, 0, sizeof(*c));
}

void pl_sha2(int hlen, const void *data, size_t n, uint8_t *out)
{
	struct sha c;

	sha_init(&c, hlen);
	sha_update(&c, data, n);
	sha_final(&c, out);
}

void pl_hmac_sha2(int hlen, const uint8_t *key, size_t klen, const void *const *parts,
		  const size_t *lens, int nparts, uint8_t *out)
{
	uint8_t k[128] = { 0 }, pad[128], inner[64];
	struct sha c;
	int blen = hlen == 32 ? 64 : 128;

	if (klen > (size_t)blen)
		pl_sha2(hlen, key, klen, k);
	else
		memcpy(k, key, klen);
	for (int i = 0; i < blen; i++)
		pad[i] = k[i] ^ 0x36;
	sha_init(&c, hlen);
	sha_update(&c, pad, blen);
	for (int i = 0; i < nparts; i++)
		sha_update(&c, parts[i], lens[i]);
	sha_final(&c, inner);
	for (int i = 0; i < blen; i++)
		pad[i] = k[i] ^ 0x5c;
	sha_init(&c, hlen);
	sha_update(&c, pad, blen);
	sha_update(&c, inner, hlen);
	sha_final(&c, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
	memset(inner, 0, sizeof(inner));
}

/* ---- secrets ---- */

static int hash_len(int hmac)
{
	return hmac == 1 ? 32 : hmac == 2 ? 48 : hmac == 3 ? 64 : 0;
}

const char *pl_check_dhchap_secret(const char *s)
{
	uint8_t raw[PL_DHCHAP_MAX_KEY + 4];
	size_t n = strlen(s);
	int len;
	uint32_t crc;

	if (!n)
		return NULL;	/* no key */
	if (n < 12 || strncmp(s, "DHHC-1:0", 8) || s[8] < '0' || s[8] > '3' || s[9] != ':' ||
	    s[n - 1] != ':')
		return "must be DHHC-1:0[0-3]:<base64 of the key and its CRC-32>:";
	len = pl_b64_decode(s + 10, n - 11, raw, sizeof(raw));
	if (len < 0)
		return "has invalid base64 between the last colons";
	len -= 4;
	if (len != 32 && len != 48 && len != 64)
		return "must hold a key of 32, 48 or 64 bytes";
	crc = pl_crc32(raw, (size_t)len);
	if ((raw[len] | raw[len + 1] << 8 | raw[len + 2] << 16 | (uint32_t)raw[len + 3] << 24) != crc)
		return "fails its CRC-32 check (mistyped or truncated?)";
	memset(raw, 0, sizeof(raw));
	return NULL;
}

const char *pl_check_dhchap_hash(const char *s)
{
	if (!*s || !strcmp(s, "hmac(sha256)") || !strcmp(s, "hmac(sha384)") ||
	    !strcmp(s, "hmac(sha512)"))
		return NULL;
	return "must be hmac(sha256), hmac(sha384) or hmac(sha512)";
}

const char *pl_check_dhchap_dhgroup(const char *s)
{
	static const char *const groups[] = {
		"", "null", "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192",
	};

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(s, groups[i]))
			return NULL;
	return "must be null, ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192";
}

int pl_dhchap_format(const uint8_t *key, int len, int hmac, char *out, size_t size)
{
	uint8_t raw[PL_DHCHAP_MAX_KEY + 4];
	char b64[PL_DHCHAP_MAX_STR];
	uint32_t crc = pl_crc32(key, (size_t)len);

	if (len != 32 && len != 48 && len != 64)
		return -1;
	memcpy(raw, key, (size_t)len);
	for (int i = 0; i < 4; i++)
		raw[len + i] = crc >> (8 * i);
	pl_b64_encode(raw, (size_t)len + 4, b64);
	memset(raw, 0, sizeof(raw));
	if ((size_t)snprintf(out, size, "DHHC-1:%02d:%s:", hmac, b64) >= size)
		return -1;
	memset(b64, 0, sizeof(b64));
	return 0;
}

const char *pl_dhchap_transform(const uint8_t *secret, int len, int hmac, const char *nqn,
				uint8_t *key)
{
	const void *parts[] = { nqn, "NVMe-over-Fabrics" };
	size_t lens[] = { strlen(nqn), 17 };

	if (hash_len(hmac) != len)
		return "the key length must be the hash's (32 for 1, 48 for 2, 64 for 3)";
	pl_hmac_sha2(len, secret, (size_t)len, parts, lens, 2, key);
	return NULL;
}

void pl_dhchap_mask(char *value)
{
	if (*value && !pl_check_dhchap_secret(value) && strlen(value) > 10)
		strcpy(value + 10, "<hidden>:");
}
