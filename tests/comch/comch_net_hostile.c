/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A hostile Comch client across machines: it speaks the transport (core/transport's endpoints,
 * UCX) by hand at ODMA_FABRIC and sends what no odma client sends. The server must refuse
 * each connection without crashing: a HELLO without the fabric secret's challenge, a wrong
 * proof and a replayed one with REJECT (NOT_PERMITTED), a HELLO for an unknown server with
 * REJECT (NOT_FOUND); and go on serving (the scripts then run a good client against it). It
 * knows the secret (ODMA_FABRIC_SECRET, as the scripts give both sides) where a case needs it.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "comch/wire.h"
#include "core/device/device.h"
#include "core/transport/transport.h"

#include <doca_error.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>

/* counted by the transport's callbacks (the service thread or a polling one) */
static atomic_int rejects, welcomes, pongs, auth2s, echoes;
/* after_hello's connection, and whether the server closed it (not an earlier one) */
static _Atomic(struct odma_tp_ep *) cur_ep;
static atomic_int cur_closed;
static atomic_uint reject_code;
static atomic_bool keep_all;   /* hostile-unread: no message's credit goes back */
static atomic_long acks;       /* hostile-unread: the CONS_ACKs that came */
static atomic_ullong kept;     /* hostile-unread: the transport's credit they hold */
static uint8_t auth2[16 + 32]; /* the server's nonce and proof (the last AUTH 2) */

static bool on_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm, void *arg)
{
	(void)ep;
	(void)arg;
	if (imm == COMCH_W_WELCOME)
		atomic_fetch_add(&welcomes, 1);
	if (imm == COMCH_W_PONG)
		atomic_fetch_add(&pongs, 1);
	if (imm == COMCH_W_MSG)
		atomic_fetch_add(&echoes, 1);
	if (imm == COMCH_W_AUTH && len == 4 + sizeof(auth2)) {
		memcpy(auth2, (const uint8_t *)bytes + 4, sizeof(auth2));
		atomic_fetch_add(&auth2s, 1);
	}
	if (imm == COMCH_W_REJECT && len >= 4) {
		uint32_t a;

		memcpy(&a, bytes, 4);
		reject_code = a;
		atomic_fetch_add(&rejects, 1);
	}
	if (imm == COMCH_W_CONS_ACK)
		atomic_fetch_add(&acks, 1);
	atomic_fetch_add(&kept, len + ODMA_TP_MSG_COST);
	return atomic_load(&keep_all);
}

static void on_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)why;
	(void)arg;
	if (ep == cur_ep)
		atomic_store(&cur_closed, 1);
}

static const struct odma_tp_ep_cbs cbs = { .on_recv = on_recv, .on_close = on_close, .arg = NULL };

static void nap_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/*
 * HMAC-SHA256 of @role, the binding (its length, then "comch " and ODMA_FABRIC), @a, @b under
 * the key of ODMA_FABRIC_SECRET (fabric_auth.c and net.c's auth_bind, by hand).
 */
static void proof_of(uint8_t role, const uint8_t a[16], const uint8_t b[16], uint8_t out[32])
{
	const char *secret = getenv("ODMA_FABRIC_SECRET"), *fab = getenv("ODMA_FABRIC");
	uint8_t key[32];
	struct sha256_ctx s;
	struct hmac_sha256_ctx h;
	char bind[80];
	size_t n = (size_t)snprintf(bind, sizeof(bind), "comch %s", fab != NULL ? fab : "");
	const uint8_t blen[2] = { (uint8_t)n, 0 };

	sha256_init(&s);
	sha256_update(&s, secret != NULL ? strlen(secret) : 0, (const uint8_t *)secret);
	sha256_digest(&s, sizeof(key), key);
	hmac_sha256_set_key(&h, sizeof(key), key);
	hmac_sha256_update(&h, 1, &role);
	hmac_sha256_update(&h, sizeof(blen), blen);
	hmac_sha256_update(&h, n, (const uint8_t *)bind);
	hmac_sha256_update(&h, 16, a);
	hmac_sha256_update(&h, 16, b);
	hmac_sha256_digest(&h, 32, out);
}

static int send_auth(struct odma_tp_ep *ep, uint32_t step, const void *p, size_t n)
{
	uint8_t b[4 + 64];

	memcpy(b, &step, 4);
	memcpy(b + 4, p, n);
	return doca_priv_tp_ep_send(ep, b, 4 + n, COMCH_W_AUTH, NULL, NULL) == DOCA_SUCCESS ? 0 : 1;
}

/*
 * The challenge by hand with nonce @nc: AUTH 1, the server's AUTH 2 (its proof checked),
 * then AUTH 3 (@forge: a proof that is wrong; @replay: this one instead). The proof sent is
 * left in @sent.
 */
static int auth_by_hand(struct odma_tp_ep *ep, const uint8_t nc[16], bool forge,
                        const uint8_t *replay, uint8_t sent[32])
{
	int want = auth2s + 1;
	uint8_t expect[32];

	if (send_auth(ep, 1, nc, 16) != 0)
		return 1;
	for (int i = 0; i < 200 && auth2s < want; i++)
		nap_ms(10);
	if (auth2s < want) {
		fprintf(stderr, "hostile: the server sent no AUTH 2\n");
		return 1;
	}
	proof_of('S', nc, auth2, expect);
	if (memcmp(expect, auth2 + 16, 32) != 0) {
		fprintf(stderr, "hostile: the server's proof is wrong\n");
		return 1;
	}
	proof_of('C', auth2, nc, sent);
	if (forge)
		sent[0] ^= 1;
	if (replay != NULL)
		memcpy(sent, replay, 32);
	return send_auth(ep, 3, sent, 32);
}

/*
 * One connection that (when @auth) proves the secret, sends @len bytes as packet @type, waits
 * a little, closes.
 */
static int one(const char *addr, uint16_t port, bool auth, uint32_t type, const void *b, size_t len,
               unsigned int wait_ms)
{
	static const uint8_t nc[16] = "hostile-nonce-2";
	struct odma_tp_ep *ep;
	uint8_t sent[32];

	if (doca_priv_tp_connect(addr, port, &cbs, &ep) != DOCA_SUCCESS) {
		fprintf(stderr, "hostile: cannot connect to %s:%u\n", addr, port);
		return 1;
	}
	if (auth && auth_by_hand(ep, nc, false, NULL, sent) != 0) {
		doca_priv_tp_ep_close(ep);
		return 1;
	}
	if (doca_priv_tp_ep_send(ep, b, len, type, NULL, NULL) != DOCA_SUCCESS) {
		fprintf(stderr, "hostile: send failed\n");
		return 1;
	}
	nap_ms(wait_ms);
	doca_priv_tp_ep_close(ep);
	return 0;
}

enum auth_mode { AUTH_NONE, AUTH_FORGED, AUTH_REPLAYED, AUTH_GOOD };

/*
 * A connection that goes through the challenge as @mode says, sends @hello, and must get a
 * REJECT with @code within 2 s. A replay uses the proof of the last AUTH_GOOD connection.
 */
static int expect_reject(const char *addr, uint16_t port, enum auth_mode mode, const void *hello,
                         size_t len, doca_error_t code, const char *what)
{
	static uint8_t last_good[32];
	static const uint8_t nc[16] = "hostile-nonce-1";
	struct odma_tp_ep *ep;
	uint8_t sent[32];
	int want = rejects + 1;

	if (doca_priv_tp_connect(addr, port, &cbs, &ep) != DOCA_SUCCESS)
		return 1;
	if (mode != AUTH_NONE &&
	    auth_by_hand(ep, nc, mode == AUTH_FORGED, mode == AUTH_REPLAYED ? last_good : NULL,
	                 sent) != 0) {
		doca_priv_tp_ep_close(ep);
		return 1;
	}
	if (mode == AUTH_GOOD)
		memcpy(last_good, sent, sizeof(sent));
	(void)doca_priv_tp_ep_send(ep, hello, len, COMCH_W_HELLO, NULL, NULL);
	for (int i = 0; i < 200 && rejects < want; i++)
		nap_ms(10);
	doca_priv_tp_ep_close(ep);
	if (rejects < want || reject_code != (uint32_t)code) {
		fprintf(stderr, "hostile: %s: expected a REJECT (%s), got %d rejects (code %u)\n",
		        what, doca_error_get_name(code), rejects - want + 1, reject_code);
		return 1;
	}
	return 0;
}

int comch_net_hostile(void);
int comch_net_hostile(void)
{
	const char *fab = getenv("ODMA_FABRIC");
	const char *colon = fab ? strrchr(fab, ':') : NULL;
	char addr[64];
	uint16_t port;
	uint8_t *big = calloc(1, 1u << 20);
	uint8_t hello[4 + sizeof(struct comch_hello) + 16];
	struct comch_hello h = { .magic = COMCH_WIRE_MAGIC,
		                 .version = COMCH_WIRE_VERSION,
		                 .max_msg = 4096,
		                 .recv_queue = 8 };
	int bad = 0;

	if (colon == NULL || big == NULL)
		return 2;
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - fab), fab);
	port = (uint16_t)atoi(colon + 1);
	bad |= one(addr, port, true, COMCH_W_HELLO, "ab", 2, 200);       /* runt */
	bad |= one(addr, port, true, COMCH_W_HELLO, big, 1u << 20, 300); /* oversized */
	bad |= one(addr, port, false, 999, "abcdefgh", 8, 200);          /* unknown type */
	bad |= one(addr, port, true, COMCH_W_MSG, "abcdefgh", 8, 200);   /* no HELLO first */
	bad |= one(addr, port, false, COMCH_W_MSG, big, 1u << 20, 300);  /* before the challenge */
	h.name_len = 1000;                                               /* name_len lies */
	memset(hello, 0, sizeof(hello));
	memcpy(hello + 4, &h, sizeof(h));
	bad |= one(addr, port, true, COMCH_W_HELLO, hello, sizeof(hello), 200);
	h.name_len = 16; /* a server nobody runs */
	memcpy(hello + 4, &h, sizeof(h));
	memcpy(hello + 4 + sizeof(h), "no-such-server!!", 16);
	bad |= expect_reject(addr, port, AUTH_NONE, hello, sizeof(hello), DOCA_ERROR_NOT_PERMITTED,
	                     "a HELLO without the fabric secret's challenge");
	bad |= expect_reject(addr, port, AUTH_FORGED, hello, sizeof(hello),
	                     DOCA_ERROR_NOT_PERMITTED, "a wrong proof");
	bad |= expect_reject(addr, port, AUTH_REPLAYED, hello, sizeof(hello),
	                     DOCA_ERROR_NOT_PERMITTED, "a proof replayed from another connection");
	bad |= expect_reject(addr, port, AUTH_GOOD, hello, sizeof(hello), DOCA_ERROR_NOT_FOUND,
	                     "a HELLO for a server nobody runs");
	free(big);
	if (bad)
		return 1;
	printf("hostile: 6 malformed handshakes sent; a missing, wrong or replayed proof was "
	       "rejected (NOT_PERMITTED), an unknown server (NOT_FOUND)\n");
	return 0;
}

/* Waits (10 s at most) until *@counter passes @than; false if it never did. */
static bool await_above(atomic_int *counter, int than)
{
	for (int i = 0; i < 1000 && atomic_load(counter) <= than; i++)
		nap_ms(10);
	return atomic_load(counter) > than;
}

/* Connects, proves the secret and says HELLO to server @name: the endpoint, once WELCOMEd. */
static struct odma_tp_ep *hello_ep(const char *addr, uint16_t port, const char *name)
{
	const struct odma_system *sys = doca_priv_system();
	uint8_t hello[4 + sizeof(struct comch_hello) + 64];
	struct comch_hello h = { .magic = COMCH_WIRE_MAGIC,
		                 .version = COMCH_WIRE_VERSION,
		                 .max_msg = 4096,
		                 .recv_queue = 8 };
	struct odma_tp_ep *ep;
	int want = welcomes + 1;
	uint8_t nc[16], sent[32];

	if (sys == NULL)
		return NULL;
	h.system_id = sys->id;
	h.name_len = (uint32_t)strlen(name);
	snprintf(h.pci, sizeof(h.pci), "0000:b1:00.0");
	memset(hello, 0, 4);
	memcpy(hello + 4, &h, sizeof(h));
	memcpy(hello + 4 + sizeof(h), name, h.name_len);
	for (int i = 0; i < 16; i++)
		nc[i] = (uint8_t)(rand() & 0xff);
	if (doca_priv_tp_connect(addr, port, &cbs, &ep) != DOCA_SUCCESS ||
	    auth_by_hand(ep, nc, false, NULL, sent) != 0 ||
	    doca_priv_tp_ep_send(ep, hello, 4 + sizeof(h) + h.name_len, COMCH_W_HELLO, NULL,
	                         NULL) != DOCA_SUCCESS)
		return NULL;
	for (int i = 0; i < 200 && welcomes < want; i++)
		nap_ms(10);
	if (welcomes < want) {
		fprintf(stderr, "hostile: no WELCOME from server \"%s\"\n", name);
		return NULL;
	}
	cur_closed = 0;
	cur_ep = ep;
	return ep;
}

/*
 * hello_ep, then @n packets; a short message waits for its echo before what follows.
 * @refused: the server must close the connection for what was sent (waited for; its log says
 * why), else the connection is closed here after a pause.
 */
static int after_hello(const char *addr, uint16_t port, const char *name, const uint32_t *types,
                       const void *const *bytes, const size_t *lens, int n, bool refused)
{
	struct odma_tp_ep *ep = hello_ep(addr, port, name);

	if (ep == NULL)
		return 1;
	for (int i = 0; i < n; i++) {
		int echoed = echoes;

		(void)doca_priv_tp_ep_send(ep, bytes[i], lens[i], types[i], NULL, NULL);
		if (types[i] == COMCH_W_MSG && lens[i] < 4096 && !await_above(&echoes, echoed)) {
			fprintf(stderr, "hostile: no echo from server \"%s\"\n", name);
			return 1;
		}
	}
	if (refused && !await_above(&cur_closed, 0)) {
		fprintf(stderr,
		        "hostile: server \"%s\" kept the connection (first packet type %u)\n", name,
		        types[0]);
		return 1;
	}
	if (!refused)
		nap_ms(300);
	doca_priv_tp_ep_close(ep);
	return 0;
}

int comch_net_hostile_connected(const char *name);
int comch_net_hostile_connected(const char *name)
{
	const char *fab = getenv("ODMA_FABRIC");
	const char *colon = fab ? strrchr(fab, ':') : NULL;
	char addr[64];
	uint16_t port;
	uint8_t *big = calloc(1, 200000);
	uint8_t credit_hi[12] = { 0 }, credit_lo[12] = { 0 }, credit_one[12] = { 0 };
	uint8_t fpd[4 + 24 + 8] = { 0 };
	uint8_t fpp[4 + 16] = { 0 }, fpd_lie[4 + 24] = { 0 };
	uint64_t v;
	int bad = 0;

	if (colon == NULL || big == NULL)
		return 2;
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - fab), fab);
	port = (uint16_t)atoi(colon + 1);
	v = 100;
	memcpy(credit_hi + 4, &v, 8);
	v = 0;
	memcpy(credit_lo + 4, &v, 8);
	v = 1;
	memcpy(credit_one + 4, &v, 8);
	memset(fpd, 0x41, sizeof(fpd)); /* consumer id 0x41414141, nothing posted */
	memset(fpp, 0x42, sizeof(fpp)); /* a post for a consumer this side never announced */
	memset(fpd_lie, 0, sizeof(fpd_lie));
	v = 1u << 30; /* FP_DATA whose length says 1 GiB */
	memcpy(fpd_lie + 4 + 8, &v, 8);
	{
		/* 1. a message longer than the connection takes */
		uint32_t t[] = { COMCH_W_MSG };
		const void *b[] = { big };
		size_t l[] = { 200000 };

		bad |= after_hello(addr, port, name, t, b, l, 1, true);
	}
	{
		/* 2. fast-path packets for ids nobody has, then one whose lengths lie */
		uint32_t t[] = { COMCH_W_FP_DATA, COMCH_W_FP_POST, COMCH_W_FP_DATA };
		const void *b[] = { fpd, fpp, fpd_lie };
		size_t l[] = { sizeof(fpd), sizeof(fpp), sizeof(fpd_lie) };

		bad |= after_hello(addr, port, name, t, b, l, 3, true);
	}
	{
		/* 3. a credit for more than the server sent */
		uint32_t t[] = { COMCH_W_CREDIT };
		const void *b[] = { credit_hi };
		size_t l[] = { sizeof(credit_hi) };

		bad |= after_hello(addr, port, name, t, b, l, 1, true);
	}
	{
		/* 3b. one message (echoed), its credit, then a credit that goes back */
		uint32_t t[] = { COMCH_W_MSG, COMCH_W_CREDIT, COMCH_W_CREDIT };
		const void *b[] = { "\0\0\0\0ping", credit_one, credit_lo };
		size_t l[] = { 4 + 4, sizeof(credit_one), sizeof(credit_lo) };

		bad |= after_hello(addr, port, name, t, b, l, 3, true);
	}
	{
		/* 4. a packet only a server sends, then an unknown type */
		uint32_t t[] = { COMCH_W_WELCOME, 4242 };
		const void *b[] = { "abcd", "abcd" };
		size_t l[] = { 4, 4 };

		bad |= after_hello(addr, port, name, t, b, l, 2, true);
	}
	{
		/* 5. a flood of PINGs: answered at most once per eighth of the timeout */
		enum { FLOOD = 500 };
		uint32_t t[FLOOD];
		const void *b[FLOOD];
		size_t l[FLOOD];
		int before = pongs;

		for (int i = 0; i < FLOOD; i++) {
			t[i] = COMCH_W_PING;
			b[i] = "abcd";
			l[i] = 4;
		}
		bad |= after_hello(addr, port, name, t, b, l, FLOOD, false);
		if (pongs - before > 4) {
			fprintf(stderr,
			        "hostile: %d PINGs got %d PONGs (a flood must not be echoed)\n",
			        FLOOD, pongs - before);
			bad = 1;
		}
	}
	{
		/*
		 * 6. a consumer whose ring no odma consumer makes: 16384 slots of 4 KiB, 64 MiB of
		 * the server's own memory that the peer's posts would touch (refused: a CONS_ACK
		 * that says no, and a line in the server's log)
		 */
		struct comch_cons_new m = { .nslots = 16384,
			                    .slot_size = 4088,
			                    .ring_size = 64ull << 20 };
		uint8_t cn[4 + sizeof(m)];
		uint32_t id = 1, t[] = { COMCH_W_CONS_NEW };
		const void *b[] = { cn };
		size_t l[] = { sizeof(cn) };

		memcpy(cn, &id, 4);
		memcpy(cn + 4, &m, sizeof(m));
		bad |= after_hello(addr, port, name, t, b, l, 1, false);
	}
	{
		/*
		 * 7. an FP_DATA of 2 MiB, its lengths right, while no consumer of the server's
		 * posted a buffer: refused once its first bytes are in, before the transport keeps
		 * the rest (it took the whole message, then dropped it, and kept the connection)
		 */
		size_t n2 = 2u << 20;
		uint8_t *fp = calloc(1, n2);
		struct comch_fp_data m = { .len = n2 - 4 - sizeof(m) };
		uint32_t id = 0x41414141, t[] = { COMCH_W_FP_DATA };
		const void *b[] = { fp };
		size_t l[] = { n2 };

		if (fp == NULL)
			return 2;
		memcpy(fp, &id, 4);
		memcpy(fp + 4, &m, sizeof(m));
		bad |= after_hello(addr, port, name, t, b, l, 1, true);
		free(fp);
	}
	free(big);
	if (bad)
		return 1;
	printf("hostile: 8 connections to \"%s\" broke the rules after WELCOME (oversize message, "
	       "unknown fast-path ids, lying lengths, credits beyond what was sent or going back, "
	       "unexpected and unknown packets, a PING flood, a consumer ring of 64 MiB, 2 MiB of "
	       "fast-path data with nothing posted)\n",
	       name);
	return 0;
}

/*
 * A client that proves the secret and says HELLO, then never gives the transport's credit
 * back while it makes server @name answer: up to @n registrations of consumer 0, each refused
 * with a CONS_ACK. The answers fill the transport's window, then wait at the server; past what
 * the server may hold for one peer it refuses it and closes the connection. 0 when it did.
 */
int comch_net_hostile_unread(const char *name, long n);
int comch_net_hostile_unread(const char *name, long n)
{
	const char *fab = getenv("ODMA_FABRIC");
	const char *colon = fab ? strrchr(fab, ':') : NULL;
	uint8_t cons0[4] = { 0 }; /* consumer id 0, no ring: malformed */
	struct odma_tp_ep *ep;
	char addr[64];
	long i;

	if (colon == NULL)
		return 2;
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - fab), fab);
	atomic_store(&keep_all, true);
	ep = hello_ep(addr, (uint16_t)atoi(colon + 1), name);
	if (ep == NULL)
		return 1;
	/*
	 * Within the server's inbox (its receive queue and 256 packets): until the answers fill
	 * the transport's window (less 64 KiB for PINGs), at most 128 registrations ahead of
	 * them; then (the server holds the rest) 32 every 5 ms.
	 */
	for (i = 0; i < n && !atomic_load(&cur_closed); i++) {
		(void)doca_priv_tp_ep_send(ep, cons0, sizeof(cons0), COMCH_W_CONS_NEW, NULL, NULL);
		if (atomic_load(&kept) + (64u << 10) < ODMA_TP_EP_WINDOW) {
			for (int w = 0; w < 10000 && i + 1 - atomic_load(&acks) > 128 &&
			                atomic_load(&kept) + (64u << 10) < ODMA_TP_EP_WINDOW;
			     w++)
				nap_ms(1);
		} else if ((i & 31) == 31) {
			nap_ms(5);
		}
	}
	if (i == n || !await_above(&cur_closed, 0)) {
		fprintf(stderr,
		        "hostile-unread: server \"%s\" kept answering a peer that takes "
		        "nothing back (%ld registrations)\n",
		        name, i);
		return 1;
	}
	printf("hostile-unread: server \"%s\" closed the connection after %ld registrations\n",
	       name, i);
	doca_priv_tp_ep_close(ep);
	return 0;
}

/*
 * @n connections that prove the fabric secret on the transport's link (doca_priv_tp_connect),
 * send AUTH 1 and close once the server answers (AUTH 2) or rejects them. 0 when the server
 * answered at least one.
 */
int comch_net_hs_churn(long n);
int comch_net_hs_churn(long n)
{
	const char *fab = getenv("ODMA_FABRIC");
	const char *colon = fab ? strrchr(fab, ':') : NULL;
	static const uint8_t nc[16] = "hostile-nonce-3";
	char addr[64];
	long i, answered = 0;

	if (colon == NULL)
		return 2;
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - fab), fab);
	for (i = 0; i < n; i++) {
		struct odma_tp_ep *ep;
		int want = auth2s + 1;

		cur_closed = 0;
		if (doca_priv_tp_connect(addr, (uint16_t)atoi(colon + 1), &cbs, &ep) !=
		    DOCA_SUCCESS)
			return 1;
		cur_ep = ep; /* a rejection seen before this line waits the 2 s below */
		(void)send_auth(ep, 1, nc, 16);
		for (int w = 0; w < 2000 && auth2s < want && !cur_closed; w++)
			nap_ms(1);
		answered += auth2s >= want;
		doca_priv_tp_ep_close(ep);
	}
	printf("hs-churn: %ld connections came and went, %ld of them answered\n", n, answered);
	return answered > 0 ? 0 : 1;
}

/* Passes the bytes of one connection (@a) on to @port of loopback and back until one ends. */
static void relay_one(int a, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	uint8_t buf[65536];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (b < 0 || connect(b, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return;
	for (;;) {
		struct pollfd p[2] = { { .fd = a, .events = POLLIN },
			               { .fd = b, .events = POLLIN } };
		ssize_t n = 0;

		if (poll(p, 2, 30000) <= 0)
			return;
		if (p[0].revents != 0 && ((n = recv(a, buf, sizeof(buf), 0)) <= 0 ||
		                          send(b, buf, (size_t)n, MSG_NOSIGNAL) != n))
			return;
		if (p[1].revents != 0 && ((n = recv(b, buf, sizeof(buf), 0)) <= 0 ||
		                          send(a, buf, (size_t)n, MSG_NOSIGNAL) != n))
			return;
	}
}

/*
 * A man in the middle with no secret: listens on a port of loopback the kernel picks (printed
 * as "relaying at PORT") and passes every connection on to @port, byte for byte, one child
 * process each, for 60 s. A client whose ODMA_FABRIC names the relay must not end up at the
 * server behind it.
 */
int comch_net_relay(uint16_t port);
int comch_net_relay(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t l = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	time_t end = time(NULL) + 60;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &l) != 0)
		return 1;
	printf("relaying at %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	while (time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int c;

		if (poll(&p, 1, 1000) <= 0 || (c = accept(fd, NULL, NULL)) < 0)
			continue;
		if (fork() == 0) {
			relay_one(c, port);
			_exit(0);
		}
		close(c);
	}
	return 0;
}
