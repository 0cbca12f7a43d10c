/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The access-flag table of docs/differences-from-hardware.md ("Access flags"), row by row:
 * every combination meets doca_mmap_start (on writable and on read-only pages) and a DMA
 * submit (as destination and as source), and the log says what the table says.
 */
#include <string.h>
#include <sys/mman.h>

#include <doca_log.h>

#include "fixture.h"
#include "test_util.h"

enum local_write { W_NO, W_YES, W_WARN };

struct row {
	uint32_t perms;
	const char *names;   /* what the log lines call the flags */
	enum local_write lw; /* local DMA write */
	bool needs_writable; /* doca_mmap_start wants writable pages */
};

static const struct row rows[] = {
	{ DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, "LOCAL_READ_ONLY", W_NO, false },
	{ DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, "LOCAL_READ_WRITE", W_YES, true },
	{ DOCA_ACCESS_FLAG_PCI_READ_ONLY, "LOCAL_READ_ONLY|PCI_READ_ONLY", W_NO, false },
	{ DOCA_ACCESS_FLAG_PCI_READ_WRITE, "LOCAL_READ_ONLY|PCI_READ_WRITE", W_WARN, true },
	{ DOCA_ACCESS_FLAG_RDMA_READ, "LOCAL_READ_ONLY|RDMA_READ", W_NO, false },
	{ DOCA_ACCESS_FLAG_RDMA_WRITE, "LOCAL_READ_ONLY|RDMA_WRITE", W_WARN, true },
	{ DOCA_ACCESS_FLAG_RDMA_ATOMIC, "LOCAL_READ_ONLY|RDMA_ATOMIC", W_WARN, true },
	{ DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING, "LOCAL_READ_ONLY|PCI_RELAXED_ORDERING", W_NO,
	  false },
	{ DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_ONLY,
	  "LOCAL_READ_WRITE|PCI_READ_ONLY", W_YES, true },
	{ DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE,
	  "LOCAL_READ_WRITE|PCI_READ_WRITE", W_YES, true },
	{ DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	          DOCA_ACCESS_FLAG_RDMA_WRITE,
	  "LOCAL_READ_WRITE|RDMA_READ|RDMA_WRITE", W_YES, true },
	{ DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_RDMA_WRITE,
	  "LOCAL_READ_ONLY|RDMA_WRITE|PCI_READ_ONLY", W_WARN, true },
	{ DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_PCI_READ_ONLY,
	  "LOCAL_READ_ONLY|RDMA_READ|PCI_READ_ONLY", W_NO, false },
};

static FILE *log_file;

static int capture_log(void **state)
{
	struct doca_log_backend *be;

	(void)state;
	log_file = tmpfile();
	if (log_file == NULL ||
	    doca_log_backend_create_with_file_sdk(log_file, &be) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return -1;
	return 0;
}

/* Lines logged since the last call that contain @a (and @b unless NULL). */
static unsigned int log_count(const char *a, const char *b)
{
	static long seen;
	char line[4096];
	unsigned int n = 0;

	fflush(log_file);
	fseek(log_file, seen, SEEK_SET);
	while (fgets(line, sizeof(line), log_file) != NULL)
		if (strstr(line, a) != NULL && (b == NULL || strstr(line, b) != NULL))
			n++;
	seen = ftell(log_file);
	return n;
}

/* A started mmap over @mem with @perms, registered with the fixture's device. */
static doca_error_t make_mmap(struct fx *fx, void *mem, size_t len, uint32_t perms,
                              struct doca_mmap **out)
{
	doca_error_t r;

	assert_ok(doca_mmap_create(out));
	assert_ok(doca_mmap_add_dev(*out, fx->dev));
	assert_ok(doca_mmap_set_memrange(*out, mem, len));
	assert_ok(doca_mmap_set_permissions(*out, perms));
	r = doca_mmap_start(*out);
	if (r != DOCA_SUCCESS)
		assert_ok(doca_mmap_destroy(*out));
	return r;
}

/* Submits one copy src -> dst; returns the submit's result, and on success runs it. */
static doca_error_t copy_once(struct fx *fx, struct doca_buf *s, struct doca_buf *d)
{
	struct doca_task *t = fx_task(fx, s, d, 0);
	unsigned int done = fx->ok + fx->err;
	doca_error_t r = doca_task_submit(t);

	if (r == DOCA_SUCCESS) {
		assert_true(fx_progress_until(fx, done + 1, 1000000));
		assert_int_equal(fx->last_status, DOCA_SUCCESS);
	} else {
		doca_task_free(t);
	}
	return r;
}

static void check_row(struct fx *fx, const struct row *row)
{
	const size_t len = 4096;
	uint8_t *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *ro = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;
	struct doca_buf *s, *d;
	doca_error_t r;

	assert_true(mem != MAP_FAILED && ro != MAP_FAILED);
	print_message("row %s\n", row->names);
	log_count("", NULL);

	/* doca_mmap_start on read-only pages: refused exactly when a device may write */
	r = make_mmap(fx, ro, len, row->perms, &m);
	if (row->needs_writable) {
		assert_doca(DOCA_ERROR_NOT_PERMITTED, r);
		assert_int_equal(log_count("is read-only", row->names), 1);
	} else {
		assert_ok(r);
		assert_ok(doca_mmap_destroy(m));
	}

	/* on writable pages it starts; then a local DMA write into it, twice */
	assert_ok(make_mmap(fx, mem, len, row->perms, &m));
	for (int i = 0; i < 2; i++) {
		s = fx_src_buf(fx, 0, 64);
		fx_pattern(fx->src, 64, (unsigned int)(i + 1));
		assert_ok(doca_buf_inventory_buf_get_by_addr(fx->inv, m, mem, len, &d));
		r = copy_once(fx, s, d);
		if (row->lw == W_NO) {
			assert_doca(DOCA_ERROR_NOT_PERMITTED, r);
			assert_int_equal(mem[0], 0);
			/* the refusal names the flags the mmap has, not flags it lacks */
			assert_int_equal(log_count("do not allow a local DMA write", row->names),
			                 1);
		} else {
			assert_ok(r);
			assert_memory_equal(mem, fx->src, 64);
		}
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
	}
	/* a tolerated write says so once per mmap; a documented one says nothing */
	assert_int_equal(log_count("DOCA documents DOCA_ACCESS_FLAG_LOCAL_READ_WRITE", row->names),
	                 row->lw == W_WARN ? 1 : 0);

	/* every combination may be read by the local device (a DMA source) */
	memset(mem, 0x5a, 64);
	assert_ok(doca_buf_inventory_buf_get_by_data(fx->inv, m, mem, 64, &s));
	d = fx_dst_buf(fx, 0, 64);
	assert_ok(copy_once(fx, s, d));
	assert_int_equal(fx->dst[0], 0x5a);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(m));
	munmap(mem, len);
	munmap(ro, len);
}

static void access_table(void **state)
{
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&fx, &rows[i]);
	fx_fini(&fx);
}

/* New flags on a stopped mmap get their own WARNING; the same flags on another mmap too. */
static void warning_once_per_object(void **state)
{
	static uint8_t a[4096], b[4096];
	struct doca_mmap *ma, *mb;
	struct doca_buf *s, *d;
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	log_count("", NULL);
	assert_ok(make_mmap(&fx, a, sizeof(a), DOCA_ACCESS_FLAG_PCI_READ_WRITE, &ma));
	assert_ok(make_mmap(&fx, b, sizeof(b), DOCA_ACCESS_FLAG_PCI_READ_WRITE, &mb));
	for (int i = 0; i < 3; i++) {
		struct doca_mmap *m = i == 1 ? mb : ma;

		s = fx_src_buf(&fx, 0, 64);
		assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, m, i == 1 ? b : a, 4096, &d));
		assert_ok(copy_once(&fx, s, d));
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
	}
	assert_int_equal(log_count("DOCA documents DOCA_ACCESS_FLAG_LOCAL_READ_WRITE", NULL), 2);
	/* stop, set other tolerated flags, start: one more line */
	assert_ok(doca_mmap_stop(ma));
	assert_ok(doca_mmap_set_permissions(ma, DOCA_ACCESS_FLAG_RDMA_WRITE));
	assert_ok(doca_mmap_start(ma));
	s = fx_src_buf(&fx, 0, 64);
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, ma, a, 4096, &d));
	assert_ok(copy_once(&fx, s, d));
	assert_int_equal(log_count("LOCAL_READ_ONLY|RDMA_WRITE", NULL), 1);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(ma));
	assert_ok(doca_mmap_destroy(mb));
	fx_fini(&fx);
}

/* try_submit applies the same rule as submit. */
static void try_submit_same_rule(void **state)
{
	static uint8_t a[4096];
	struct doca_mmap *m;
	struct doca_buf *s, *d;
	struct doca_task *t;
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	assert_ok(make_mmap(&fx, a, sizeof(a), DOCA_ACCESS_FLAG_PCI_READ_WRITE, &m));
	s = fx_src_buf(&fx, 0, 64);
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, m, a, 4096, &d));
	t = fx_task(&fx, s, d, 0);
	assert_ok(doca_task_try_submit(t));
	assert_true(fx_progress_until(&fx, 1, 1000000));
	assert_int_equal(fx.last_status, DOCA_SUCCESS);
	assert_memory_equal(a, fx.src, 64);
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, m, a, 4096, &d));
	t = fx_task(&fx, s, d, 0);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_try_submit(t));
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(m));
	fx_fini(&fx);
}

/* A device of the system other than @dev (the emulated systems have several). */
static struct doca_dev *other_dev(const struct doca_dev *dev)
{
	static const char *const pcis[] = { "b1:00.1", "03:00.0", "b1:00.0", "03:00.1" };

	for (size_t i = 0; i < sizeof(pcis) / sizeof(pcis[0]); i++) {
		struct doca_dev *o = tu_open_pci_or_null(pcis[i]);

		if (o != NULL && o != dev)
			return o;
		if (o != NULL)
			assert_ok(doca_dev_close(o));
	}
	fail_msg("no second device in the emulated system");
	return NULL;
}

/* A started mmap over @mem (LOCAL_READ_WRITE) with the devices @a and @b (either NULL). */
static struct doca_mmap *mmap_on(void *mem, size_t len, struct doca_dev *a, struct doca_dev *b)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	if (a != NULL)
		assert_ok(doca_mmap_add_dev(m, a));
	if (b != NULL)
		assert_ok(doca_mmap_add_dev(m, b));
	assert_ok(doca_mmap_set_memrange(m, mem, len));
	assert_ok(doca_mmap_start(m));
	return m;
}

/*
 * DOCA's add_dev rule (issue 29, item 1): a DMA context copies only through mmaps its device
 * was added to. An mmap never add_dev'd, or added to another device only, is refused at
 * submit and at try_submit with NOT_PERMITTED and one line naming the device and the fix;
 * the task stays the caller's (no callback) and no byte moves. An mmap on two devices, the
 * context's among them, copies.
 */
static void add_dev_rule(void **state)
{
	static uint8_t mem[4096];
	struct fx fx;
	struct doca_dev *other;
	struct doca_mmap *none, *elsewhere, *both;
	struct doca_buf *s, *d;
	struct doca_task *t;
	unsigned int done;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	other = other_dev(fx.dev);
	none = mmap_on(mem, sizeof(mem), NULL, NULL);
	elsewhere = mmap_on(mem, sizeof(mem), other, NULL);
	both = mmap_on(mem, sizeof(mem), other, fx.dev);
	log_count("", NULL);
	done = fx.ok + fx.err;
	for (int k = 0; k < 2; k++) {
		struct doca_mmap *m = k == 0 ? none : elsewhere;

		memset(mem, 0, sizeof(mem));
		/* as the destination, by submit and by try_submit */
		s = fx_src_buf(&fx, 0, 64);
		fx_pattern(fx.src, 64, 7);
		assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, m, mem, sizeof(mem), &d));
		t = fx_task(&fx, s, d, 0);
		assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(t));
		assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_try_submit(t));
		assert_int_equal(log_count("was never added to", "doca_mmap_add_dev"), 2);
		doca_task_free(t);
		assert_int_equal(mem[0], 0);
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
		/* as the source */
		assert_ok(doca_buf_inventory_buf_get_by_data(fx.inv, m, mem, 64, &s));
		d = fx_dst_buf(&fx, 0, 64);
		t = fx_task(&fx, s, d, 0);
		assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(t));
		assert_int_equal(log_count("was never added to", NULL), 1);
		doca_task_free(t);
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
	}
	for (int i = 0; i < 1000; i++)
		(void)doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok + fx.err, done); /* no callback for a refused task */
	/* two devices, the context's among them: copied */
	memset(mem, 0, sizeof(mem));
	s = fx_src_buf(&fx, 0, 64);
	fx_pattern(fx.src, 64, 9);
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, both, mem, sizeof(mem), &d));
	assert_ok(copy_once(&fx, s, d));
	assert_memory_equal(mem, fx.src, 64);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(none));
	assert_ok(doca_mmap_destroy(elsewhere));
	assert_ok(doca_mmap_destroy(both));
	assert_ok(doca_dev_close(other));
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_table),
		cmocka_unit_test(warning_once_per_object),
		cmocka_unit_test(try_submit_same_rule),
		cmocka_unit_test(add_dev_rule),
	};

	return cmocka_run_group_tests(tests, capture_log, NULL);
}
