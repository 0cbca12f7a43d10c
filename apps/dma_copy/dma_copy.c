/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy: copies a file between the host side and the DPU side of the emulated
 * system. The DPU side (ODMA_SIDE=dpu, or a -DDOCA_ARCH_DPU build) is the DOCA Comch server
 * and starts first; the host side connects to it. Whichever side has the file sends it.
 * Either side also works with the other side of NVIDIA's DMA Copy application (same server
 * name, same messages; files up to the DPU's max_buf_size then).
 * Exit status: 0 only when the copy completed (the receiver has the whole, verified file
 * under its name); 1 otherwise, on both sides; killed by SIGINT/SIGTERM/SIGHUP after
 * removing what it created.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "argp/argp_priv.h"
#include "dma_copy.h"
#include "odma_help.h"

DOCA_LOG_REGISTER(DMA_COPY);

static doca_error_t copy_str(char *dst, size_t cap, const char *src, const char *what)
{
	if (src[0] == '\0') {
		DOCA_LOG_ERR("%s must not be empty", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (strlen(src) >= cap) {
		DOCA_LOG_ERR("%s is longer than %zu characters", what, cap - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(dst, src);
	return DOCA_SUCCESS;
}

static doca_error_t file_cb(void *p, void *c)
{
	return copy_str(((struct dma_copy_cfg *)c)->file, DMA_COPY_MAX_PATH, p, "--file");
}

static doca_error_t pci_cb(void *p, void *c)
{
	return copy_str(((struct dma_copy_cfg *)c)->pci, 32, p, "--pci-addr");
}

static doca_error_t rep_cb(void *p, void *c)
{
	return copy_str(((struct dma_copy_cfg *)c)->rep_pci, 32, p, "--rep-pci");
}

static doca_error_t name_cb(void *p, void *c)
{
	return copy_str(((struct dma_copy_cfg *)c)->server_name, DMA_COPY_NAME_MAX, p,
	                "--server-name");
}

static doca_error_t timeout_cb(void *p, void *c)
{
	int v = *(int *)p;

	if (v < 0 || v > 86400) {
		DOCA_LOG_ERR("--timeout %d is outside 0..86400 seconds (0: wait forever)", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct dma_copy_cfg *)c)->timeout_s = v;
	return DOCA_SUCCESS;
}

static doca_error_t quiet_cb(void *p, void *c)
{
	((struct dma_copy_cfg *)c)->quiet = *(bool *)p;
	return DOCA_SUCCESS;
}

static doca_error_t window_cb(void *p, void *c)
{
	int v = *(int *)p;

	if (v < 1 || v > DMA_COPY_MAX_WINDOW_TASKS) {
		DOCA_LOG_ERR("--window-tasks %d is outside 1..%d", v, DMA_COPY_MAX_WINDOW_TASKS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct dma_copy_cfg *)c)->window_tasks = v;
	return DOCA_SUCCESS;
}

/* The file decides the role: present here means this side sends. */
static doca_error_t validate(void *c)
{
	struct dma_copy_cfg *cfg = c;
	struct stat st;

	if (cfg->file[0] == '\0') {
		DOCA_LOG_ERR("--file is required");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (stat(cfg->file, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			DOCA_LOG_ERR("%s is not a regular file", cfg->file);
			return DOCA_ERROR_INVALID_VALUE;
		}
		cfg->have_file = true;
		cfg->file_size = (uint64_t)st.st_size;
	}
	return DOCA_SUCCESS;
}

static doca_error_t add_param(const char *s, const char *l, const char *desc,
                              doca_argp_param_cb_t cb, enum doca_argp_type type, bool mandatory)
{
	struct doca_argp_param *p;
	doca_error_t r = doca_argp_param_create(&p);

	if (r != DOCA_SUCCESS)
		return r;
	if (s != NULL)
		doca_argp_param_set_short_name(p, s);
	doca_argp_param_set_long_name(p, l);
	doca_argp_param_set_description(p, desc);
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	if (mandatory)
		doca_argp_param_set_mandatory(p);
	return doca_argp_register_param(p);
}

static doca_error_t register_params(void)
{
	doca_error_t r;

	if ((r = add_param("f", "file", "file to send (if it exists here) or to create", file_cb,
	                   DOCA_ARGP_TYPE_STRING, true)) ||
	    (r = add_param("p", "pci-addr",
	                   "DMA and Comch device PCI address (default: host b1:00.0, DPU 03:00.0)",
	                   pci_cb, DOCA_ARGP_TYPE_STRING, false)) ||
	    (r = add_param("r", "rep-pci",
	                   "DPU side: PCI address of the representor of the host function served "
	                   "(default: the device's first network representor)",
	                   rep_cb, DOCA_ARGP_TYPE_STRING, false)) ||
	    (r = add_param(NULL, "server-name",
	                   "Comch server name, the same on both sides (default \"" DC_SERVER_NAME
	                   "\", as NVIDIA's application)",
	                   name_cb, DOCA_ARGP_TYPE_STRING, false)) ||
	    (r = add_param(NULL, "timeout",
	                   "seconds to wait for the peer's next message before giving up "
	                   "(default 60, 0: forever)",
	                   timeout_cb, DOCA_ARGP_TYPE_INT, false)) ||
	    (r = add_param(NULL, "window-tasks",
	                   "DPU side: max_buf_size tasks per window; memory used on each side is "
	                   "about this times max_buf_size (default 16)",
	                   window_cb, DOCA_ARGP_TYPE_INT, false)) ||
	    (r = add_param("q", "quiet",
	                   "no progress line (on a terminal, a transfer of 16 MiB or more shows "
	                   "its bytes and rate about once a second)",
	                   quiet_cb, DOCA_ARGP_TYPE_BOOLEAN, false)))
		return r;
	return doca_argp_register_validation_callback(validate);
}

static bool side_is_dpu(void)
{
	const char *side = getenv("ODMA_SIDE");

#ifdef DOCA_ARCH_DPU
	return side == NULL || strcmp(side, "host") != 0;
#else
	return side != NULL && strcmp(side, "dpu") == 0;
#endif
}

/* The help text around the flags: --help prints it, --man makes the man page of it. */
static const char dc_description[] =
        "Copies a file between a host process and a DPU process, as NVIDIA's DMA Copy\n"
        "application does: the side that has FILE sends it, the other side writes it. Start\n"
        "the DPU side first (ODMA_SIDE=dpu, a DOCA Comch server named \"" DC_SERVER_NAME "\"),\n"
        "then the host side (ODMA_SIDE=host, a Comch client). The host exports a window of its\n"
        "memory; the DPU moves the file through it with DMA tasks, window by window, so any\n"
        "size streams in bounded memory. Each side also works with the other side of NVIDIA's\n"
        "application (its protocol: one file of at most max_buf_size in one task). Both sides\n"
        "exit 0 only when the copy completed; a received file appears\n"
        "under its name only then.";

static const char dc_epilogue[] =
        "PROGRESS\n"
        "  On a terminal, a transfer of 16 MiB or more shows its bytes, share and rate on\n"
        "  stderr about once a second, rewritten in place, and its final figures; --quiet\n"
        "  turns that off. Redirected to a file or a pipe, stderr gets no progress.\n"
        "\n"
        "ENVIRONMENT\n"
        "  ODMA_SIDE     host or dpu: the side this process plays (and the devices it sees)\n"
        "  ODMA_SYSTEM   the emulated system; the same on both sides\n"
        "  ODMA_RUNDIR   where the Comch server's socket is; the same on both sides\n"
        "  ODMA_FABRIC   ADDRESS:PORT when the two sides are in two namespaces or machines\n"
        "\n"
        "EXIT STATUS\n"
        "  0 when the copy completed; 1 when it failed (the reason is logged); 2 for a bad\n"
        "  command line.\n"
        "\n"
        "EXAMPLES\n"
        "  ODMA_SIDE=dpu doca_dma_copy -f /tmp/received &\n"
        "  ODMA_SIDE=host doca_dma_copy -f /tmp/file_to_send\n"
        "\n"
        "SEE ALSO\n"
        "  odma(1), doca_caps(1), docs/host-dpu.md";

static void usage_stdout(void *arg)
{
	(void)arg;
	doca_argp_usage();
}

/* `doca_dma_copy --man`: the man page of the --help text (the build installs it). */
static int dc_man(void)
{
	char *text = odma_help_capture(usage_stdout, NULL);

	if (text == NULL)
		return EXIT_FAILURE;
	odma_help_man(stdout, "doca_dma_copy", 1,
	              "copy a file between a host and a DPU process with DOCA DMA", text, NULL);
	free(text);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static struct dma_copy_cfg cfg = { .server_name = DC_SERVER_NAME,
		                           .timeout_s = DMA_COPY_DEFAULT_TIMEOUT_S,
		                           .window_tasks = DMA_COPY_DEFAULT_WINDOW_TASKS };
	struct doca_log_backend *sdk;
	doca_error_t r;

	dc_signals_install();
	if (doca_log_backend_create_standard() != DOCA_SUCCESS ||
	    doca_log_backend_create_with_file_sdk(stderr, &sdk) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
	cfg.is_dpu = side_is_dpu();
	strcpy(cfg.pci, cfg.is_dpu ? "03:00.0" : "b1:00.0");
	if ((r = doca_argp_init("doca_dma_copy", &cfg)) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	if ((r = doca_priv_argp_set_doc("-f FILE [FLAGS]", dc_description, dc_epilogue)) ==
	            DOCA_SUCCESS &&
	    (r = register_params()) == DOCA_SUCCESS && odma_help_man_wanted(argc, argv)) {
		int rc = dc_man();

		doca_argp_destroy();
		return rc;
	}
	if (r == DOCA_SUCCESS && (r = doca_argp_start(argc, argv)) != DOCA_SUCCESS) {
		doca_argp_destroy(); /* a bad command line: argp said why, in one line */
		return 2;
	}
	if (r == DOCA_SUCCESS)
		r = cfg.is_dpu ? dma_copy_dpu(&cfg) : dma_copy_host(&cfg);
	doca_argp_destroy();
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_dma_copy (%s side) failed: %s", cfg.is_dpu ? "DPU" : "host",
		             doca_error_get_descr(r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
