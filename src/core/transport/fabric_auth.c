/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The fabric secret: a peer across namespaces or machines (Comch, the UCX module's TCP link)
 * proves it belongs to the same emulated system before anything it sends is looked at. The
 * secret is ODMA_FABRIC_SECRET (16 characters or more), else a cookie in the runtime
 * directory (`fabric-secret`, 32 random bytes as hex, mode 0600, made by the first process
 * that needs it), which every process of this user on this machine shares, in any network
 * namespace; across machines, copy the cookie or set the variable on both sides. It never travels:
 * each side proves it with HMAC-SHA256 over both sides' fresh nonces (nettle), the server first, so
 * a replayed handshake and a stranger get nothing. The proofs bind the protocol and the listener
 * the client dialled too: a relay that hands a client's handshake to another listener of the same
 * secret breaks them. It authenticates; it does not encrypt.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/transport.h"

ODMA_LOG_REGISTER(ODMA_FABRIC_AUTH)

#define COOKIE_NAME "fabric-secret"
#define SECRET_MIN 16u

static void derive(const void *secret, size_t len, uint8_t key[ODMA_FABRIC_KEY_LEN])
{
	struct sha256_ctx s;

	sha256_init(&s);
	sha256_update(&s, len, secret);
	sha256_digest(&s, SHA256_DIGEST_SIZE, key);
}

/* Makes the cookie (O_EXCL: one process wins; the others read what it wrote). */
static bool cookie_make(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t raw[32];
	char text[2 * sizeof(raw) + 1];
	int fd;
	bool ok;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return false;
	for (size_t i = 0; i < sizeof(raw); i++) {
		text[2 * i] = hex[raw[i] >> 4];
		text[2 * i + 1] = hex[raw[i] & 15];
	}
	text[2 * sizeof(raw)] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno == EEXIST;
	ok = write(fd, text, sizeof(text)) == (ssize_t)sizeof(text);
	close(fd);
	return ok;
}

/* Reads the cookie at @path into @buf (trailing white space cut): its length, or 0 (*why). */
static size_t cookie_read(const char *path, char *buf, size_t cap, const char **why)
{
	struct stat st;
	ssize_t n = 0;
	int fd;

	/* a cookie being written by the process that made it: wait for it briefly */
	for (int tries = 0; tries < 100; tries++) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			*why = "cannot open it";
			return 0;
		}
		if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0077) != 0 ||
		    !S_ISREG(st.st_mode)) {
			close(fd);
			*why = "it is not a regular file of this user with mode 0600 (others could "
			       "read it); fix its mode or remove it";
			return 0;
		}
		n = read(fd, buf, cap - 1);
		close(fd);
		if (n >= (ssize_t)SECRET_MIN)
			break;
		usleep(1000);
	}
	if (n < 0)
		n = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r'))
		n--;
	if ((size_t)n < SECRET_MIN) {
		*why = "it holds fewer than 16 characters";
		return 0;
	}
	return (size_t)n;
}

bool doca_priv_fabric_key(uint8_t key[ODMA_FABRIC_KEY_LEN], char *why_text, size_t why_len)
{
	const char *v = doca_priv_config_string("ODMA_FABRIC_SECRET");
	const char *why = NULL;
	char dir[256], path[300], buf[512];
	size_t n;

	if (v != NULL) {
		if (strlen(v) >= SECRET_MIN) {
			derive(v, strlen(v), key);
			return true;
		}
		snprintf(why_text, why_len,
		         "ODMA_FABRIC_SECRET is %zu characters long; it needs at least %u (the "
		         "same value on both sides)",
		         strlen(v), SECRET_MIN);
		return false;
	}
	if (!doca_priv_rundir(dir, sizeof(dir), &why)) {
		snprintf(why_text, why_len,
		         "no ODMA_FABRIC_SECRET and no runtime directory for the cookie (%s)", why);
		return false;
	}
	snprintf(path, sizeof(path), "%s/" COOKIE_NAME, dir);
	if (!cookie_make(path)) {
		snprintf(why_text, why_len, "cannot create the fabric cookie %s: %s", path,
		         strerror(errno));
		return false;
	}
	n = cookie_read(path, buf, sizeof(buf), &why);
	if (n == 0) {
		snprintf(why_text, why_len, "the fabric cookie %s is unusable: %s", path, why);
		return false;
	}
	derive(buf, n, key);
	memset(buf, 0, sizeof(buf));
	return true;
}

void doca_priv_fabric_proof(const uint8_t key[ODMA_FABRIC_KEY_LEN], uint8_t role, const void *bind,
                            size_t bind_len, const uint8_t first[ODMA_FABRIC_NONCE_LEN],
                            const uint8_t second[ODMA_FABRIC_NONCE_LEN],
                            uint8_t out[ODMA_FABRIC_PROOF_LEN])
{
	struct hmac_sha256_ctx h;
	/* its length first: bytes cannot move between @bind and the nonces */
	uint8_t blen[2] = { (uint8_t)bind_len, (uint8_t)(bind_len >> 8) };

	hmac_sha256_set_key(&h, ODMA_FABRIC_KEY_LEN, key);
	hmac_sha256_update(&h, 1, &role);
	hmac_sha256_update(&h, sizeof(blen), blen);
	hmac_sha256_update(&h, bind_len, bind);
	hmac_sha256_update(&h, ODMA_FABRIC_NONCE_LEN, first);
	hmac_sha256_update(&h, ODMA_FABRIC_NONCE_LEN, second);
	hmac_sha256_digest(&h, ODMA_FABRIC_PROOF_LEN, out);
}
