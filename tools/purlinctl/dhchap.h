/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: DH-HMAC-CHAP secrets (dhchap.c).
 */
#ifndef PURLINCTL_DHCHAP_H
#define PURLINCTL_DHCHAP_H

#include <stddef.h>
#include <stdint.h>

#define PL_DHCHAP_MAX_KEY 64
#define PL_DHCHAP_MAX_STR 112

uint32_t pl_crc32(const uint8_t *p, size_t n);
void pl_b64_encode(const uint8_t *in, size_t n, char *out);
/* Decoded length, or -1 for anything but padded RFC 4648 base64. */
int pl_b64_decode(const char *s, size_t n, uint8_t *out, size_t max);
/* SHA-256, SHA-384 or SHA-512 by digest length (32, 48, 64). */
void pl_sha2(int hlen, const void *data, size_t n, uint8_t *out);
void pl_hmac_sha2(int hlen, const uint8_t *key, size_t klen, const void *const *parts,
		  const size_t *lens, int nparts, uint8_t *out);

/* Validators (NULL: fine; empty values pass: no key, the default). */
const char *pl_check_dhchap_secret(const char *s);
const char *pl_check_dhchap_hash(const char *s);
const char *pl_check_dhchap_dhgroup(const char *s);

/* "DHHC-1:<hmac>:<base64>:" of key (len 32, 48 or 64) into out; 0 or -1. */
int pl_dhchap_format(const uint8_t *key, int len, int hmac, char *out, size_t size);
/*
 * nvme gen-dhchap-key's transformation of a fresh secret with a host NQN:
 * key = HMAC-SHA2(secret, nqn | "NVMe-over-Fabrics"); NULL or why not.
 */
const char *pl_dhchap_transform(const uint8_t *secret, int len, int hmac, const char *nqn,
				uint8_t *key);
/* Replace the key part of a valid secret by "<hidden>", in place. */
void pl_dhchap_mask(char *value);

#endif
