/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The transport table, the choice of a transport for an importer, the process identity an
 * export carries, and the exporter's region records: the one authority every remote
 * access is checked against (odma_tp_region_check), whichever transport carries it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/tp_int.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_TRANSPORT)

/*
 * The table: the rows of ODMA_TP_ROWS in their order, then room for a test's row
 * (odma_tp_row_insert). Rows with a module: their loaded ops, once loaded (tp_loaded).
 */
#define TP_ROW_REF(name) &odma_tp_row_##name,
#define TP_ROWS_MAX 8
static const struct odma_tp_ops *tp_rows[TP_ROWS_MAX] = { ODMA_TP_ROWS(TP_ROW_REF) };
static unsigned int tp_nrows =
        sizeof((const void *[]){ ODMA_TP_ROWS(TP_ROW_REF) }) / sizeof(void *);
static const struct odma_tp_ops *_Atomic tp_loaded_ops[TP_ROWS_MAX];

/* Row @i ready to use (its module loaded on first need), or NULL with *@why set. */
static const struct odma_tp_ops *tp_ready(unsigned int i, const char **why)
{
	const struct odma_tp_ops *ops =
	        atomic_load_explicit(&tp_loaded_ops[i], memory_order_acquire);

	if (ops != NULL)
		return ops;
	ops = tp_rows[i]->load != NULL ? tp_rows[i]->load(why) : tp_rows[i];
	if (ops != NULL)
		atomic_store_explicit(&tp_loaded_ops[i], ops, memory_order_release);
	return ops;
}

/* Row @i if it is ready already (never loads: the hot paths ask this). */
static const struct odma_tp_ops *tp_loaded(unsigned int i)
{
	const struct odma_tp_ops *ops =
	        atomic_load_explicit(&tp_loaded_ops[i], memory_order_acquire);

	if (ops == NULL && tp_rows[i]->load == NULL)
		return tp_rows[i];
	return ops;
}

/* Calls hook @fn with the parenthesized @args on every ready row that has it (tp_loaded). */
#define TP_EACH_LOADED(fn, args)                                                                   \
	for (unsigned int i_ = 0; i_ < tp_nrows; i_++) {                                           \
		const struct odma_tp_ops *t_ = tp_loaded(i_);                                      \
		if (t_ != NULL && t_->fn != NULL)                                                  \
			t_->fn args;                                                               \
	}

void odma_tp_row_insert(const struct odma_tp_ops *row)
{
	if (tp_nrows == TP_ROWS_MAX)
		return;
	memmove(&tp_rows[1], &tp_rows[0], tp_nrows * sizeof(tp_rows[0]));
	for (unsigned int i = tp_nrows; i > 0; i--)
		atomic_store(&tp_loaded_ops[i], atomic_load(&tp_loaded_ops[i - 1]));
	tp_rows[0] = row;
	atomic_store(&tp_loaded_ops[0], NULL);
	tp_nrows++;
}

void odma_tp_row_remove(const struct odma_tp_ops *row)
{
	for (unsigned int i = 0; i < tp_nrows; i++) {
		if (tp_rows[i] != row)
			continue;
		tp_nrows--;
		for (unsigned int k = i; k < tp_nrows; k++) {
			tp_rows[k] = tp_rows[k + 1];
			atomic_store(&tp_loaded_ops[k], atomic_load(&tp_loaded_ops[k + 1]));
		}
		atomic_store(&tp_loaded_ops[tp_nrows], NULL);
		return;
	}
}

const char *doca_priv_transport_info(unsigned int i, const char **status)
{
	if (i >= tp_nrows)
		return NULL;
	*status = tp_rows[i]->status != NULL ? tp_rows[i]->status() : "built in";
	return tp_rows[i]->name;
}

const struct odma_tp_ops *odma_tp_find(const char *name)
{
	const char *why;

	for (unsigned int i = 0; i < tp_nrows; i++)
		if (strcmp(tp_rows[i]->name, name) == 0)
			return tp_ready(i, &why);
	return NULL;
}

/* The first network row, ready (loaded), or NULL with *@why set. */
static const struct odma_tp_ops *tp_net(const char **why)
{
	*why = "not built: odma has no network transport (install libucx-dev and rebuild); hosts "
	       "and DPUs in different namespaces or machines cannot reach each other";
	for (unsigned int i = 0; i < tp_nrows; i++)
		if (tp_rows[i]->network)
			return tp_ready(i, why);
	return NULL;
}

const char *odma_tp_net_absent(void)
{
	const char *why = NULL;
	const struct odma_tp_ops *t = tp_net(&why);

	if (t == NULL)
		return why;
	return t->available == NULL || t->available(&why) ? NULL : why;
}

uint32_t odma_tp_timeout_ms(void)
{
	uint64_t v;

	if (odma_config_size("ODMA_TRANSPORT_TIMEOUT_MS", 5000, &v) != DOCA_SUCCESS)
		v = 5000; /* refused earlier, by odma_tp_config_check at the export or import */
	return (uint32_t)v;
}

/* ODMA_TRANSPORT: -1 auto, -2 a bad value, else the row id (kind) it asks for. */
static int odma_tp_forced(void)
{
	int v = 0; /* core/config's choices: auto, process, ucx */

	if (odma_config_choice("ODMA_TRANSPORT", 0, &v) != DOCA_SUCCESS)
		return -2;
	return v - 1; /* -1: auto, else enum odma_tp_kind */
}

doca_error_t odma_tp_config_check(void)
{
	char addr[64];
	uint16_t port;
	uint64_t v;

	if (odma_tp_forced() == -2 ||
	    odma_config_size("ODMA_TRANSPORT_TIMEOUT_MS", 5000, &v) != DOCA_SUCCESS ||
	    odma_config_fabric(addr, sizeof(addr), &port) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged by the parser, naming the variable */
	return DOCA_SUCCESS;
}

/* ---- who we are ---- */

static void tp_read_boot_id(uint8_t out[16])
{
	char text[64] = { 0 };
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t k = 0;

	memset(out, 0, 16);
	if (f == NULL)
		return;
	if (fgets(text, sizeof(text), f) == NULL)
		text[0] = '\0';
	fclose(f);
	for (const char *p = text; *p != '\0' && k < 32; p++) {
		int v = *p >= '0' && *p <= '9'   ? *p - '0'
		        : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
		                                 : -1;

		if (v < 0)
			continue;
		out[k / 2] = (uint8_t)(out[k / 2] | (k % 2 == 0 ? v << 4 : v));
		k++;
	}
}

void odma_tp_identity(struct odma_tp_ident *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat("/proc/self/ns/pid", &st) == 0)
		id->pidns = (uint64_t)st.st_ino;
	tp_read_boot_id(id->boot_id);
}

bool odma_tp_same_kernel(const struct odma_tp_reach *r)
{
	struct odma_tp_ident me;

	odma_tp_identity(&me);
	return memcmp(me.boot_id, r->boot_id, 16) == 0 && me.pidns == r->pidns;
}

void odma_tp_poll(void)
{
	TP_EACH_LOADED(poll, ());
}

void odma_tp_io_cancel(uint64_t owner)
{
	if (owner != 0)
		TP_EACH_LOADED(io_cancel, (owner));
}

void odma_tp_watch_kick(void)
{
	TP_EACH_LOADED(watch_kick, ());
}

#define TP_WAKE_HELD_MAX 16

static __thread struct {
	bool on;
	unsigned int n;
	int fd[TP_WAKE_HELD_MAX];
} tp_wake;

void odma_tp_wake_flush(void)
{
	static const uint64_t one = 1;

	for (unsigned int i = 0; i < tp_wake.n; i++) {
		if (write(tp_wake.fd[i], &one, sizeof(one)) < 0 && errno != EAGAIN)
			ODMA_DBG("held doorbell write failed: %s", strerror(errno));
		close(tp_wake.fd[i]); /* the copy odma_tp_wake_later took */
	}
	tp_wake.n = 0;
}

void odma_tp_wake_hold(bool on)
{
	if (!on)
		odma_tp_wake_flush();
	tp_wake.on = on;
}

bool odma_tp_wake_later(int fd)
{
	int copy;

	if (!tp_wake.on || tp_wake.n == TP_WAKE_HELD_MAX)
		return false;
	/*
	 * A copy of the descriptor is held, not its number: the owner may close the number
	 * before the round ends (a Comch consumer destroyed on its PE thread, which is no job of
	 * the transport's thread) and another file get it. None: the caller writes at once.
	 */
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (copy < 0)
		return false;
	tp_wake.fd[tp_wake.n++] = copy;
	return true;
}

void odma_tp_poll_end(void)
{
	TP_EACH_LOADED(poll_end, ());
}

doca_error_t odma_tp_reach_self(struct odma_tp_reach *r)
{
	struct odma_tp_ident me;
	bool net = odma_tp_net_wanted(), reached = false;
	const char *why = NULL;

	odma_tp_identity(&me);
	r->pidns = me.pidns;
	memcpy(r->boot_id, me.boot_id, 16);
	r->pid = (uint32_t)getpid();
	r->net_len = 0;
	for (unsigned int i = 0; i < tp_nrows; i++) {
		const struct odma_tp_ops *t;
		doca_error_t err;

		if (tp_rows[i]->network && !net)
			continue; /* the one-kernel behaviour: no network reach, no module loaded */
		t = tp_ready(i, &why);
		if (t == NULL)
			continue;
		err = t->reach_self(r);
		if (err != DOCA_SUCCESS)
			return err;
		reached = reached || t->network;
	}
	if (net && !reached)
		ODMA_RATELIMITED_WARN("ODMA_FABRIC/ODMA_TRANSPORT ask for a network transport "
		                      "but none is usable here (%s); "
		                      "exports reach only processes of this kernel",
		                      why != NULL ? why : "none is built in");
	return DOCA_SUCCESS;
}

bool odma_tp_net_wanted(void)
{
	int forced;

	if (odma_config_string("ODMA_FABRIC") != NULL)
		return true;
	forced = odma_tp_forced();
	for (unsigned int i = 0; forced >= 0 && i < tp_nrows; i++)
		if ((int)tp_rows[i]->kind == forced && tp_rows[i]->network)
			return true;
	return false;
}

/* Why no row reached the exporter, naming each row asked and its reason (the caller logs it). */
static const char *tp_why_none(const unsigned int *rows, const char *const *whys, unsigned int n,
                               int forced)
{
	static __thread char buf[768];
	size_t k;

	if (n == 0)
		return forced >= 0 ? "ODMA_TRANSPORT names a transport this odma does not have; "
		                     "unset ODMA_TRANSPORT"
		                   : "no transport is built in";
	if (forced >= 0) {
		snprintf(buf, sizeof(buf),
		         "ODMA_TRANSPORT=%s, but it cannot reach the exporter: %s; "
		         "unset ODMA_TRANSPORT",
		         tp_rows[rows[0]]->name, whys[0]);
		return buf;
	}
	k = (size_t)snprintf(buf, sizeof(buf), "no transport reaches the exporter");
	for (unsigned int j = 0; j < n && k < sizeof(buf); j++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s %s: %s", j == 0 ? ":" : ";",
		                      tp_rows[rows[j]]->name, whys[j]);
	return buf;
}

const struct odma_tp_ops *odma_tp_choose(const struct odma_tp_reach *r, const char **why)
{
	const char *whys[TP_ROWS_MAX];
	unsigned int rows[TP_ROWS_MAX], n = 0;
	int forced = odma_tp_forced();

	for (unsigned int i = 0; i < tp_nrows; i++) {
		const struct odma_tp_ops *t;

		if (forced >= 0 && (int)tp_rows[i]->kind != forced)
			continue;
		whys[n] = "unknown";
		rows[n] = i;
		if (tp_rows[i]->reachable(r, &whys[n])) {
			t = tp_ready(i, &whys[n]);
			if (t != NULL)
				return t;
		}
		n++;
	}
	*why = tp_why_none(rows, whys, n, forced);
	return NULL;
}

/* ---- region records ---- */

/*
 * Records are never returned to malloc: an importer may read a record's address at any
 * time (process transport), so a revoked record stays mapped (alive 0, key and issued
 * descriptor wiped) and is reused later with a fresh key and the next generation. A reader
 * racing the reuse sees another key or generation and treats it as revoked. The registry
 * maps ids (index + 1) to records for the UCX server; an id is never given to another
 * record.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reg_left = PTHREAD_COND_INITIALIZER; /* a holder left a revoked record */
static struct odma_tp_region **reg_all;                    /* by id - 1 */
static uint32_t reg_n, reg_cap;
static struct odma_tp_region *reg_free; /* linked through the first 8 bytes of the key */
static bool reg_atfork;                 /* the fork handlers below are registered */

#define REG_SIZE ((sizeof(struct odma_tp_region) + 63) & ~(size_t)63)

static struct odma_tp_region *reg_new_locked(void)
{
	struct odma_tp_region *r;

	if (reg_n == reg_cap) {
		uint32_t cap = reg_cap ? reg_cap * 2 : 16;
		void *p = realloc(reg_all, cap * sizeof(*reg_all));

		if (p == NULL)
			return NULL;
		reg_all = p;
		reg_cap = cap;
	}
	r = aligned_alloc(64, REG_SIZE);
	if (r == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->id = ++reg_n;
	r->gate_fd = -1;
	r->gate_slot = ODMA_TP_GATE_NONE;
	reg_all[r->id - 1] = r;
	return r;
}

/* @r, new or reused, cleared for another export: only its id and gate stay. */
static void reg_reset_locked(struct odma_tp_region *r, uint32_t gen)
{
	uint32_t id = r->id, slot = r->gate_slot;
	int32_t fd = r->gate_fd;

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->gate_fd = fd;
	r->gate_slot = slot;
	r->hdr.generation = gen + 1 != 0 ? gen + 1 : 1;
}

/*
 * A fork waits for the registry lock, so that a child never inherits it taken or a record half
 * made. In the child (its only thread) the records it inherited lose their in-flight words,
 * which are its parent's (tp_gate.c), and so does the gate file.
 */
static void reg_fork_prepare(void)
{
	pthread_mutex_lock(&reg_lock);
}

static void reg_fork_parent(void)
{
	pthread_mutex_unlock(&reg_lock);
}

static void reg_fork_child(void)
{
	for (uint32_t i = 0; i < reg_n; i++) {
		reg_all[i]->gate_fd = -1;
		reg_all[i]->gate_slot = ODMA_TP_GATE_NONE;
	}
	odma_tp_gate_forget();
	pthread_mutex_unlock(&reg_lock);
}

struct odma_tp_region *odma_tp_region_add(uint64_t addr, uint64_t len, uint32_t perms)
{
	struct odma_tp_region *r;
	uint32_t gen = 0;
	uint8_t key[16];

	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		return NULL;
	/* under the lock: the UCX server reads records (under it) at any time */
	pthread_mutex_lock(&reg_lock);
	if (!reg_atfork)
		reg_atfork = pthread_atfork(reg_fork_prepare, reg_fork_parent, reg_fork_child) == 0;
	r = reg_free;
	if (r != NULL) {
		memcpy(&reg_free, r->hdr.key, sizeof(reg_free));
		gen = r->hdr.generation;
	} else {
		r = reg_new_locked();
	}
	if (r != NULL && !odma_tp_gate_slot_locked(r)) {
		memcpy(r->hdr.key, &reg_free, sizeof(reg_free)); /* kept for the next export */
		reg_free = r;
		r = NULL;
	}
	if (r != NULL) {
		reg_reset_locked(r, gen);
		r->addr = addr;
		r->len = len;
		r->perms = perms;
		memcpy(r->hdr.key, key, sizeof(key));
	}
	pthread_mutex_unlock(&reg_lock);
	return r;
}

struct odma_tp_region *odma_tp_region_find(const void *owner, enum odma_tp_grant grant)
{
	struct odma_tp_region *r = NULL;

	pthread_mutex_lock(&reg_lock);
	for (uint32_t i = 0; i < reg_n && r == NULL; i++)
		if (reg_all[i]->hdr.alive == 1 && reg_all[i]->owner == owner &&
		    reg_all[i]->grant == (uint32_t)grant)
			r = reg_all[i];
	pthread_mutex_unlock(&reg_lock);
	return r;
}

void odma_tp_region_publish(struct odma_tp_region *reg, const void *issued, size_t len)
{
	if (len > sizeof(reg->issued))
		len = sizeof(reg->issued);
	pthread_mutex_lock(&reg_lock);
	memcpy(reg->issued, issued, len);
	reg->issued_len = (uint32_t)len;
	reg->hdr.magic = ODMA_TP_REGION_MAGIC;
	__atomic_store_n(&reg->hdr.alive, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&reg_lock);
	TP_EACH_LOADED(region_added, (reg));
}

void odma_tp_region_close(struct odma_tp_region *reg)
{
	/* the registry lock orders the revocation before any later check of the UCX server */
	pthread_mutex_lock(&reg_lock);
	__atomic_store_n(&reg->hdr.alive, 0, __ATOMIC_SEQ_CST);
	memset(reg->hdr.key, 0, sizeof(reg->hdr.key));
	memset(reg->issued, 0, sizeof(reg->issued));
	reg->issued_len = 0;
	while (reg->users != 0) /* holders of odma_tp_region_enter finish first */
		pthread_cond_wait(&reg_left, &reg_lock);
	pthread_mutex_unlock(&reg_lock);
}

void odma_tp_region_release(struct odma_tp_region *reg, uint64_t deadline_ms)
{
	/* the importers of this kernel moving bytes (unlocked: a wait may be long) */
	bool drained = odma_tp_gate_drain(reg, deadline_ms);

	pthread_mutex_lock(&reg_lock);
	if (!drained)
		reg->gate_slot =
		        ODMA_TP_GATE_NONE; /* a raised word: the next export takes another */
	memcpy(reg->hdr.key, &reg_free, sizeof(reg_free));
	reg_free = reg;
	pthread_mutex_unlock(&reg_lock);
}

void odma_tp_region_revoke(struct odma_tp_region *reg)
{
	odma_tp_region_close(reg);
	odma_tp_region_release(reg, odma_tp_revoke_deadline());
}

static bool reg_live_locked(const struct odma_tp_region *r, const uint8_t key[16])
{
	return r->hdr.magic == ODMA_TP_REGION_MAGIC && r->hdr.alive == 1 &&
	       odma_key_eq(r->hdr.key, key, 16);
}

/* The transports' check: @grants (a mask of 1 << enum odma_tp_grant) are served here. */
static doca_error_t reg_check_locked(const struct odma_tp_region *r, const uint8_t key[16],
                                     uint32_t generation, uint64_t addr, uint64_t len,
                                     uint32_t perm, uint32_t grants)
{
	if (!reg_live_locked(r, key) || r->hdr.generation != generation)
		return DOCA_ERROR_INVALID_VALUE; /* unknown, revoked or forged */
	if (!odma_tp_region_covers(r, addr, len))
		return DOCA_ERROR_INVALID_VALUE; /* outside the export */
	if ((perm & ~r->perms) != 0 || (grants & (1u << r->grant)) == 0 || r->forward != NULL)
		return DOCA_ERROR_NOT_PERMITTED; /* another grant's rights, or not served here */
	return DOCA_SUCCESS;
}

#define REG_TP_BYTES ((1u << ODMA_TP_GRANT_PCI) | (1u << ODMA_TP_GRANT_RDMA))
/* sync events' values, and the program's memory of an RDMA grant (probed first) */
#define REG_TP_ATOMIC ((1u << ODMA_TP_GRANT_PCI) | (1u << ODMA_TP_GRANT_RDMA))

doca_error_t odma_tp_region_check(uint64_t id, const uint8_t key[16], uint32_t generation,
                                  uint64_t addr, uint64_t len, uint32_t perm, void **local)
{
	doca_error_t r = DOCA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&reg_lock);
	if (id >= 1 && id <= reg_n) {
		r = reg_check_locked(reg_all[id - 1], key, generation, addr, len, perm,
		                     REG_TP_BYTES);
		if (r == DOCA_SUCCESS)
			*local = (void *)(uintptr_t)addr;
	}
	pthread_mutex_unlock(&reg_lock);
	return r;
}

/* Applies atomic @op to the u64 at @p (checked); *@old the value before. */
static void reg_apply_atomic(uint64_t *p, int op, uint64_t operand, uint64_t compare, uint64_t *old)
{
	switch (op) {
	case ODMA_TP_AT_READ:
		*old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
		break;
	case ODMA_TP_AT_FADD:
		*old = __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
		break;
	case ODMA_TP_AT_SWAP:
		*old = __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
		break;
	default: /* CAS: the expected value is replaced by the old one either way */
		__atomic_compare_exchange_n(p, &compare, operand, false, __ATOMIC_SEQ_CST,
		                            __ATOMIC_SEQ_CST);
		*old = compare;
		break;
	}
}

doca_error_t odma_tp_region_atomic(uint64_t id, const uint8_t key[16], uint32_t generation,
                                   uint64_t addr, int op, uint64_t operand, uint64_t compare,
                                   uint64_t *old)
{
	/*
	 * Every atomic, the read too, needs ODMA_TP_ATOMIC. A sync event's value is memory odma
	 * owns and never unmaps while registered. An RDMA grant's memory belongs to the program,
	 * which may unmap or protect it: its atomic runs under the fault guard, so a page gone or
	 * write-protected fails the request (odma_tp_safe_atomic).
	 */
	uint32_t perm = ODMA_TP_ATOMIC;
	doca_error_t r = DOCA_ERROR_INVALID_VALUE;
	struct odma_tp_region *reg;

	if ((addr & 7) != 0 || op < ODMA_TP_AT_READ || op > ODMA_TP_AT_CAS)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&reg_lock);
	if (id >= 1 && id <= reg_n) {
		reg = reg_all[id - 1];
		r = reg_check_locked(reg, key, generation, addr, 8, perm, REG_TP_ATOMIC);
		/* the lock keeps a sync event mapped: its owner revokes (locks) before unmapping */
		if (r == DOCA_SUCCESS && reg->grant == ODMA_TP_GRANT_RDMA) {
			if (odma_tp_safe_atomic((uint64_t *)(uintptr_t)addr, op, operand, compare,
			                        old) != 0)
				r = DOCA_ERROR_IO_FAILED;
		} else if (r == DOCA_SUCCESS) {
			reg_apply_atomic((uint64_t *)(uintptr_t)addr, op, operand, compare, old);
		}
		if (r == DOCA_SUCCESS && op != ODMA_TP_AT_READ && reg->on_update != NULL)
			reg->on_update(reg->update_arg);
	}
	pthread_mutex_unlock(&reg_lock);
	return r;
}

size_t odma_tp_region_issued(uint64_t id, const uint8_t key[16], uint32_t generation, uint8_t *out)
{
	size_t n = 0;

	pthread_mutex_lock(&reg_lock);
	if (id >= 1 && id <= reg_n) {
		const struct odma_tp_region *r = reg_all[id - 1];

		if (reg_live_locked(r, key) && r->hdr.generation == generation) {
			n = r->issued_len;
			memcpy(out, r->issued, n);
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return n;
}

doca_error_t odma_tp_region_enter(uint64_t ref, bool by_addr, enum odma_tp_grant grant,
                                  const uint8_t key[16], uint32_t perm, struct odma_tp_region **out)
{
	struct odma_tp_region *r = NULL;
	doca_error_t st = DOCA_ERROR_NOT_FOUND;

	pthread_mutex_lock(&reg_lock);
	if (!by_addr && ref >= 1 && ref <= reg_n)
		r = reg_all[ref - 1];
	for (uint32_t i = 0; by_addr && i < reg_n && r == NULL; i++)
		if ((uint64_t)(uintptr_t)reg_all[i] == ref) /* never dereferenced before */
			r = reg_all[i];
	if (r != NULL && reg_live_locked(r, key) && r->grant == (uint32_t)grant) {
		st = (perm & ~r->perms) != 0 ? DOCA_ERROR_NOT_PERMITTED : DOCA_SUCCESS;
		if (st == DOCA_SUCCESS) {
			r->users++;
			*out = r;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return st;
}

void odma_tp_region_leave(struct odma_tp_region *reg)
{
	pthread_mutex_lock(&reg_lock);
	if (--reg->users == 0 && reg->hdr.alive != 1)
		pthread_cond_broadcast(&reg_left);
	pthread_mutex_unlock(&reg_lock);
}

bool odma_tp_region_lapse(struct odma_tp_region *reg)
{
	bool first;

	pthread_mutex_lock(&reg_lock);
	first = reg->hdr.alive == 1;
	__atomic_store_n(&reg->hdr.alive, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&reg_lock);
	return first;
}

bool odma_tp_region_forwarded(uint64_t record_addr)
{
	bool fwd = false;

	pthread_mutex_lock(&reg_lock);
	for (uint32_t i = 0; i < reg_n; i++)
		if ((uint64_t)(uintptr_t)reg_all[i] == record_addr)
			fwd = reg_all[i]->hdr.alive == 1 && reg_all[i]->forward != NULL;
	pthread_mutex_unlock(&reg_lock);
	return fwd;
}

bool odma_tp_record_ok(const struct odma_tp_remote *rm, const struct odma_tp_region_hdr *rec)
{
	return rec->magic == ODMA_TP_REGION_MAGIC && rec->alive == 1 &&
	       odma_key_eq(rec->key, rm->key, sizeof(rm->key));
}

/* ---- wrappers ---- */

/* @rm, an attachment by @ops to the region @r names, before the transport's attach. */
static void tp_remote_init(const struct odma_tp_ops *ops, const struct odma_tp_reach *r,
                           struct odma_tp_remote *rm)
{
	memset(rm, 0, sizeof(*rm));
	rm->ops = ops;
	rm->pid = r->pid;
	rm->perms = r->perms;
	rm->addr = r->addr;
	rm->len = r->len;
	rm->record_addr = r->record_addr;
	rm->region_id = r->region_id;
	memcpy(rm->key, r->key, sizeof(rm->key));
	rm->generation = r->generation;
	atomic_init(&rm->failed, false);
	atomic_init(&rm->gone, false);
}

doca_error_t odma_tp_attach(const struct odma_tp_ops *ops, const struct odma_tp_reach *r,
                            struct odma_tp_remote *rm, uint8_t *issued, size_t *issued_len)
{
	tp_remote_init(ops, r, rm);
	return ops->attach(r, rm, issued, issued_len);
}

void odma_tp_detach(struct odma_tp_remote *rm)
{
	if (rm->ops != NULL)
		rm->ops->detach(rm);
	rm->ops = NULL;
}

doca_error_t odma_tp_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                            odma_tp_admit_fn *admit, void *arg, void **listener)
{
	const char *why;
	const struct odma_tp_ops *t = tp_net(&why);

	if (t == NULL || t->listen == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	return t->listen(addr, port, on_accept, admit, arg, listener);
}

/* A listener exists only where odma_tp_listen made one: the network row is loaded. */
void odma_tp_listen_close(void *listener)
{
	const char *why;
	const struct odma_tp_ops *t = listener != NULL ? tp_net(&why) : NULL;

	if (t != NULL)
		t->listen_close(listener);
}

doca_error_t odma_tp_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                             struct odma_tp_ep **ep)
{
	const char *why;
	const struct odma_tp_ops *t = tp_net(&why);

	if (t == NULL || t->connect == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	return t->connect(addr, port, cbs, ep);
}

/* The ops that made @ep (every endpoint begins with them). */
static const struct odma_tp_ops *tp_ep_ops(const struct odma_tp_ep *ep)
{
	return ((const struct odma_tp_ep_head *)(const void *)ep)->ops;
}

void odma_tp_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	tp_ep_ops(ep)->ep_set_cbs(ep, cbs);
}

doca_error_t odma_tp_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                             odma_tp_send_done_fn *done, void *arg)
{
	const struct iovec iov = { (void *)bytes, len };

	return tp_ep_ops(ep)->ep_send(ep, &iov, 1, imm, done, arg);
}

doca_error_t odma_tp_ep_sendv(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
                              uint32_t imm, odma_tp_send_done_fn *done, void *arg)
{
	ODMA_CHECK_ARG(niov >= 1 && niov <= ODMA_TP_SENDV_MAX,
	               "odma_tp_ep_sendv: %u pieces; a message has 1 to %d", niov,
	               ODMA_TP_SENDV_MAX);
	return tp_ep_ops(ep)->ep_send(ep, iov, niov, imm, done, arg);
}

doca_error_t odma_tp_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                               struct odma_tp_remote *rm)
{
	const struct odma_tp_ops *t = tp_ep_ops(ep);

	if (t->ep_attach == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	tp_remote_init(t, r, rm);
	return t->ep_attach(ep, r, rm);
}

bool odma_tp_ep_room(struct odma_tp_ep *ep, size_t len)
{
	const struct odma_tp_ops *t = tp_ep_ops(ep);

	return t->ep_room == NULL || t->ep_room(ep, len);
}

void odma_tp_ep_release(struct odma_tp_ep *ep, size_t len)
{
	tp_ep_ops(ep)->ep_release(ep, len);
}

void odma_tp_ep_close(struct odma_tp_ep *ep)
{
	tp_ep_ops(ep)->ep_close(ep);
}

/* ---- fault-safe accesses within this process (transport.h) ---- */

static odma_tp_guard_fn *_Atomic tp_guard;

void odma_tp_set_guard(odma_tp_guard_fn *guard)
{
	atomic_store(&tp_guard, guard);
}

/* @fn(@arg) under the guard: 0, EFAULT, or ENOSYS (no guard: @fn did not run). */
static int tp_guarded(void (*fn)(void *arg), void *arg)
{
	odma_tp_guard_fn *g = atomic_load_explicit(&tp_guard, memory_order_relaxed);

	return g != NULL ? g(fn, arg) : ENOSYS;
}

struct tp_copy {
	void *dst;
	const void *src;
	size_t len;
};

static void tp_copy_run(void *arg)
{
	struct tp_copy *c = arg;

	memcpy(c->dst, c->src, c->len);
}

int odma_tp_safe_copy(void *dst, const void *src, size_t len)
{
	struct tp_copy c = { dst, src, len };
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)src, len };
	int err = tp_guarded(tp_copy_run, &c);

	if (err != ENOSYS)
		return err;
	return odma_cma_xfer(getpid(), false, &l, 1, &r, 1);
}

struct tp_atomic {
	uint64_t *p;
	int op;
	uint64_t operand, compare, *old;
};

static void tp_atomic_run(void *arg)
{
	struct tp_atomic *a = arg;

	reg_apply_atomic(a->p, a->op, a->operand, a->compare, a->old);
}

int odma_tp_safe_atomic(uint64_t *p, int op, uint64_t operand, uint64_t compare, uint64_t *old)
{
	struct tp_atomic a = { p, op, operand, compare, old };
	uint64_t probe;
	int err = tp_guarded(tp_atomic_run, &a);

	if (err != ENOSYS)
		return err;
	err = odma_tp_safe_copy(&probe, p, sizeof(probe));
	/*
	 * A read probe says nothing of a write: a page the program made read-only would fault
	 * in the atomic below. The kernel adds 0 to the word atomically (FUTEX_WAKE_OP): EFAULT
	 * when it is not writable, and no concurrent update of it is lost.
	 */
	if (err == 0 && op != ODMA_TP_AT_READ &&
	    syscall(SYS_futex, (uint32_t *)(void *)p, FUTEX_WAKE_OP, 0, NULL, (uint32_t *)(void *)p,
	            FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0)) < 0)
		err = EFAULT;
	if (err == 0)
		tp_atomic_run(&a);
	return err;
}

/* ---- the address of this side on the emulated device's network (transport.h) ---- */

bool odma_tp_iface_for(const char *ip, char *name, size_t cap, char *addr, size_t acap)
{
	struct ifaddrs *ifs, *i;
	struct in_addr a;
	bool found = false;

	if (inet_pton(AF_INET, ip, &a) != 1 || getifaddrs(&ifs) != 0)
		return false;
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		uint32_t mine, mask;

		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    i->ifa_addr->sa_family != AF_INET)
			continue;
		mine = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
		mask = ((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr.s_addr;
		if ((mine & mask) == (a.s_addr & mask)) {
			snprintf(name, cap, "%s", i->ifa_name);
			if (addr != NULL &&
			    inet_ntop(AF_INET,
			              &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, addr,
			              (socklen_t)acap) == NULL)
				continue;
			found = true;
		}
	}
	freeifaddrs(ifs);
	return found;
}

const char *odma_tp_fabric_ip(char *ip, size_t cap)
{
	uint16_t port;

	/* a bad value: logged once by the table's parser, and refused at each export/import */
	if (odma_config_fabric(ip, cap, &port) != DOCA_SUCCESS || port == 0)
		return NULL;
	return odma_config_string("ODMA_FABRIC");
}

bool odma_tp_bind_addr(char *out, size_t cap)
{
	char ip[64], dev[IF_NAMESIZE + 8];
	const char *fabric = odma_tp_fabric_ip(ip, sizeof(ip));

	if (fabric == NULL) {
		snprintf(out, cap, "127.0.0.1");
		return true;
	}
	if (odma_tp_iface_for(ip, dev, sizeof(dev), out, cap))
		return true;
	ODMA_ERR("ODMA_FABRIC=%s: no local interface is on the network of %s, so a listener of "
	         "this side has no address to bind; give this side an address on that network "
	         "(ip addr add ...), or fix ODMA_FABRIC",
	         fabric, ip);
	return false;
}
