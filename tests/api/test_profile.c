/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * System selection through the environment: built-in profiles, ODMA_SIDE filtering,
 * profile files good and bad. The system loads once per process, so every case runs in
 * a forked child that sets ODMA_SYSTEM/ODMA_SIDE first; the child's stderr (the SDK log)
 * is captured so a test can check the log line names the file and line.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>

#include "test_util.h"

/* In a child: exits with the failing line number so the parent can say which check failed. */
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stdout, "child check failed: %s (line %d)\n", #c, __LINE__);       \
			fflush(stdout);                                                            \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

static char g_log[8192];

/* Runs @fn in a child with the given environment; asserts it exited 0; keeps its stderr. */
static void run_child(const char *system, const char *side, void (*fn)(void))
{
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		system ? setenv("ODMA_SYSTEM", system, 1) : unsetenv("ODMA_SYSTEM");
		side ? setenv("ODMA_SIDE", side, 1) : unsetenv("ODMA_SIDE");
		fn();
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], g_log + got, sizeof(g_log) - 1 - (size_t)got)) > 0)
		got += n;
	g_log[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child (ODMA_SYSTEM=%s ODMA_SIDE=%s) failed; its log:\n%s",
		         system ? system : "-", side ? side : "-", g_log);
}

static char *data_path(const char *file)
{
	static char path[1024];
	const char *root = getenv("ODMA_TEST_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/tests/data/profiles/%s", root ? root : ".", file);
	return path;
}

/* Whether the visible device list is exactly @pcis (in profile order). */
static bool list_is(const char *const *pcis, uint32_t count)
{
	struct doca_devinfo **l;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n;
	bool ok;

	if (doca_devinfo_create_list(&l, &n) != DOCA_SUCCESS)
		return false;
	ok = n == count;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = doca_devinfo_get_pci_addr_str(l[i], pci) == DOCA_SUCCESS &&
		     strcmp(pci, pcis[i]) == 0;
	doca_devinfo_destroy_list(l);
	return ok;
}

static const char *const bf3_all[] = { "0000:b1:00.0", "0000:b1:00.1", "0000:03:00.0",
	                               "0000:03:00.1" };
static const char *const bf2_all[] = { "0000:3b:00.0", "0000:3b:00.1", "0000:03:00.0",
	                               "0000:03:00.1" };
static const char *const nic_all[] = { "0000:08:00.0", "0000:08:00.1" };
static const char *const cx7_all[] = { "0000:41:00.0", "0000:41:00.1" };

static void c_bf3_both(void)
{
	CHECK(list_is(bf3_all, 4));
}
static void c_bf3_host(void)
{
	CHECK(list_is(bf3_all, 2));
}
static void c_bf3_dpu(void)
{
	CHECK(list_is(bf3_all + 2, 2));
}
static void c_bf2_both(void)
{
	CHECK(list_is(bf2_all, 4));
}
static void c_bf2_dpu(void)
{
	CHECK(list_is(bf2_all + 2, 2));
}
static void c_nic_host(void)
{
	CHECK(list_is(nic_all, 2));
}
static void c_nic_dpu(void)
{
	CHECK(list_is(nic_all, 0));
}

static void c_cx7_host(void)
{
	CHECK(list_is(cx7_all, 2));
}
static void c_cx7_dpu(void)
{
	CHECK(list_is(cx7_all, 0));
}

static void builtin_profiles(void **state)
{
	(void)state;
	run_child(NULL, NULL, c_bf3_both);
	run_child("", "", c_bf3_both);
	run_child("bf3", NULL, c_bf3_both);
	run_child("bf3", "host", c_bf3_host);
	run_child("bf3", "dpu", c_bf3_dpu);
	run_child("bf2", NULL, c_bf2_both);
	run_child("bf2", "dpu", c_bf2_dpu);
	run_child("nic", NULL, c_nic_host);
	run_child("nic", "host", c_nic_host);
	run_child("nic", "dpu", c_nic_dpu);
	/* the profiles named after devices: cx6dx is what nic always was */
	run_child("cx6dx", NULL, c_nic_host);
	run_child("cx6dx", "dpu", c_nic_dpu);
	run_child("cx7", NULL, c_cx7_host);
	run_child("cx7", "host", c_cx7_host);
	run_child("cx7", "dpu", c_cx7_dpu);
}

/* bf2 names differ from bf3; its DPU device lists representors. */
static void c_bf2_names(void)
{
	struct doca_devinfo **l;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	uint32_t n, nr;

	CHECK(doca_devinfo_create_list(&l, &n) == DOCA_SUCCESS && n == 4);
	CHECK(doca_devinfo_get_ibdev_name(l[0], ib, sizeof(ib)) == DOCA_SUCCESS &&
	      strcmp(ib, "mlx5_2") == 0);
	CHECK(doca_dev_open(l[2], &dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nr) ==
	      DOCA_SUCCESS);
	CHECK(nr == 3);
	CHECK(doca_devinfo_rep_destroy_list(reps) == DOCA_SUCCESS);
	CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_destroy_list(l) == DOCA_SUCCESS);
}

/* nic: host-side devices only, so no representor lists at all. */
static void c_nic_no_reps(void)
{
	struct doca_devinfo **l;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	uint32_t n, nr;
	uint8_t sup = 1;

	CHECK(doca_devinfo_create_list(&l, &n) == DOCA_SUCCESS && n == 2);
	CHECK(doca_dev_open(l[0], &dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_rep_create_list(dev, 0, &reps, &nr) == DOCA_ERROR_NOT_SUPPORTED);
	CHECK(doca_devinfo_rep_cap_is_filter_all_supported(l[0], &sup) == DOCA_SUCCESS && sup == 0);
	/* the profile's capabilities reach the DMA and mmap capability calls */
	CHECK(doca_dma_cap_task_memcpy_is_supported(l[0]) == DOCA_ERROR_NOT_SUPPORTED);
	CHECK(doca_mmap_cap_is_export_pci_supported(l[0], &sup) == DOCA_SUCCESS && sup == 0);
	CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_destroy_list(l) == DOCA_SUCCESS);
}

static void builtin_details(void **state)
{
	(void)state;
	run_child("bf2", NULL, c_bf2_names);
	run_child("nic", NULL, c_nic_no_reps);
}

static void c_not_found(void)
{
	struct doca_devinfo **l = NULL;
	uint32_t n = 42;

	CHECK(doca_devinfo_create_list(&l, &n) == DOCA_ERROR_NOT_FOUND);
	CHECK(l == NULL && n == 42);
	/* every later call fails the same way, and still does not crash */
	CHECK(doca_devinfo_create_list(&l, &n) == DOCA_ERROR_NOT_FOUND);
	CHECK(doca_dev_open((struct doca_devinfo *)&n, (struct doca_dev **)&l) ==
	      DOCA_ERROR_INVALID_VALUE);
}

static void bad_environment(void **state)
{
	(void)state;
	run_child("bf4", NULL, c_not_found);
	assert_non_null(strstr(g_log, "ODMA_SYSTEM=\"bf4\" is not a built-in profile name"));
	/* the line lists every valid name, the alias with what it stands for */
	assert_non_null(strstr(g_log, "(built-in: bf3, bf2, cx7, cx6dx, nic = cx6dx;"));
	run_child("bf3", "both", c_not_found);
	assert_non_null(strstr(g_log, "ODMA_SIDE=\"both\" is not host or dpu"));
	run_child("/nonexistent/odma.profile", NULL, c_not_found);
	assert_non_null(strstr(g_log, "/nonexistent/odma.profile"));
	run_child("/", NULL, c_not_found); /* a directory: read fails */
}

static void c_good_file(void)
{
	static const char *const all[] = { "0000:5e:00.0", "0000:03:00.0", "0000:03:00.1" };
	struct doca_devinfo **l;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	enum doca_pci_func_type ft;
	uint32_t n, nr, sf = 0;
	uint16_t lid = 0;
	uint64_t size = 0;

	CHECK(list_is(all, 3));
	CHECK(doca_devinfo_create_list(&l, &n) == DOCA_SUCCESS);
	CHECK(doca_devinfo_get_lid(l[0], &lid) == DOCA_SUCCESS && lid == 7);
	CHECK(doca_dma_cap_task_memcpy_is_supported(l[0]) == DOCA_SUCCESS);
	CHECK(doca_dma_cap_task_memcpy_get_max_buf_size(l[0], &size) == DOCA_SUCCESS &&
	      size == 1u << 20);
	CHECK(doca_dma_cap_task_memcpy_is_supported(l[2]) == DOCA_ERROR_NOT_SUPPORTED);
	CHECK(doca_devinfo_get_pci_func_type(l[2], &ft) == DOCA_SUCCESS &&
	      ft == DOCA_PCI_FUNC_TYPE_SF);
	CHECK(doca_devinfo_get_sf_index(l[2], &sf) == DOCA_SUCCESS && sf == 3);
	CHECK(doca_dev_open(l[1], &dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &nr) ==
	      DOCA_SUCCESS);
	CHECK(nr == 1);
	CHECK(doca_devinfo_rep_destroy_list(reps) == DOCA_SUCCESS);
	CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr) ==
	      DOCA_SUCCESS);
	CHECK(nr == 2);
	CHECK(doca_devinfo_rep_destroy_list(reps) == DOCA_SUCCESS);
	CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_destroy_list(l) == DOCA_SUCCESS);
}

static void c_good_file_dpu(void)
{
	static const char *const dpu[] = { "0000:03:00.0", "0000:03:00.1" };

	CHECK(list_is(dpu, 2));
}

static void file_profiles(void **state)
{
	(void)state;
	run_child(data_path("good.profile"), NULL, c_good_file);
	run_child(data_path("good.profile"), "dpu", c_good_file_dpu);
}

/* Each bad file fails with NOT_FOUND and one log line naming the file, the line and the rule. */
static void bad_files(void **state)
{
	static const struct {
		const char *file, *line, *what;
	} cases[] = {
		{ "bad_unknown_key.profile", "line 3:", "colour" },
		{ "bad_duplicate_pci.profile", "line 3:", "first declared on line 2" },
		{ "bad_missing_field.profile", "line 3:", "required key ibdev" },
		{ "bad_number.profile", "line 2:", "max_buf_list_len" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_child(data_path(cases[i].file), NULL, c_not_found);
		if (!strstr(g_log, cases[i].file) || !strstr(g_log, cases[i].line) ||
		    !strstr(g_log, cases[i].what))
			fail_msg("%s: log lacks '%s' / '%s':\n%s", cases[i].file, cases[i].line,
			         cases[i].what, g_log);
	}
}

/* In a child that a hang would leave blocked for ever: SIGALRM ends it after 10 s. */
static void c_not_found_soon(void)
{
	alarm(10);
	c_not_found();
}

/*
 * A FIFO that no process writes: one line, no devices, at once (the open blocked for ever);
 * /dev/zero: read up to the size limit, not without end.
 */
static void special_files(void **state)
{
	char dir[] = "/tmp/odma-profile-XXXXXX", fifo[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	run_child(fifo, NULL, c_not_found_soon);
	unlink(fifo);
	rmdir(dir);
	assert_non_null(strstr(g_log, "nothing to read (a FIFO without a writer?)"));
	run_child("/dev/zero", NULL, c_not_found_soon);
	assert_non_null(strstr(g_log, "profile larger than"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_profiles), cmocka_unit_test(builtin_details),
		cmocka_unit_test(bad_environment),  cmocka_unit_test(file_profiles),
		cmocka_unit_test(bad_files),        cmocka_unit_test(special_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
