/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * `odma compat --dpu-arch arm64`: the DPU side of every pair as the Arm program it is on a
 * BlueField. Each DPU build is a meson cross build (a cross file written into the work
 * directory: Debian's aarch64-linux-gnu toolchain, the aarch64 odma's doca-*.pc first, then
 * Debian's arm64 libraries), as DOCA developers cross-build their DPU programs; --split-netns's
 * launcher starts an aarch64 program under qemu-user with the aarch64 odma's libraries, in the
 * DPU side's namespace, while the host side runs natively. The two reach each other over UCX
 * (ODMA_FABRIC), as across two machines: qemu-user has no process_vm_readv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

static struct {
	bool on;
	char pc_path[PATH_MAX];
	char libdir[PATH_MAX];
	char cross_file[PATH_MAX];
	char emulator[PATH_MAX];
	char path[8192]; /* $PATH without a CUDA toolkit, for the DPU builds */
} da;

/* @prog's path in $PATH (X_OK) into @out; false if none. */
static bool in_path(const char *prog, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");

		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			if (snprintf(out, size, "%s/%s", dir, prog) < (int)size &&
			    access(out, X_OK) == 0)
				return true;
		}
		path += n + (path[n] == ':');
	}
	return false;
}

/*
 * $PATH without the directories that hold nvlink: a BlueField's DPU build has no CUDA, and
 * NVIDIA's applications turn GPU support on (a CUDA compiler for the DPU) when they find one.
 */
static void path_without_cuda(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], probe[PATH_MAX + 16];
	size_t used = 0;

	da.path[0] = '\0';
	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");

		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			snprintf(probe, sizeof(probe), "%s/nvlink", dir);
			if (access(probe, X_OK) != 0 && used + n + 2 < sizeof(da.path))
				used += (size_t)snprintf(da.path + used, sizeof(da.path) - used,
				                         "%s%s", used ? ":" : "", dir);
		}
		path += n + (path[n] == ':');
	}
}

/* "pkg-config FLAG doca-common" against the aarch64 odma only; its first line in @out. */
static int dpu_pkg_config(const char *flag, char *out, size_t size)
{
	const struct compat_env env[] = { { "PKG_CONFIG_LIBDIR", da.pc_path },
		                          { "PKG_CONFIG_PATH", NULL } };
	char *argv[] = { "pkg-config", (char *)flag, "doca-common", NULL };

	return compat_capture(argv, env, 2, out, size);
}

static int write_cross_file(const struct compat_ctx *c, const char *cc)
{
	FILE *f;

	snprintf(da.cross_file, sizeof(da.cross_file), "%s/dpu-aarch64.ini", c->work);
	f = fopen(da.cross_file, "w");
	if (f == NULL)
		return -1;
	fprintf(f,
	        "# written by odma compat --dpu-arch arm64: the DPU side's meson cross file\n"
	        "[binaries]\nc = '%s'\ncpp = 'aarch64-linux-gnu-g++'\n"
	        "ar = 'aarch64-linux-gnu-ar'\nstrip = 'aarch64-linux-gnu-strip'\n"
	        "pkgconfig = 'pkg-config'\nexe_wrapper = ['%s']\n"
	        "\n"
	        "[properties]\npkg_config_libdir = ['%s', '/usr/lib/aarch64-linux-gnu/pkgconfig', "
	        "'/usr/share/pkgconfig']\n\n"
	        "[host_machine]\nsystem = 'linux'\ncpu_family = 'aarch64'\ncpu = 'aarch64'\n"
	        "endian = 'little'\n",
	        cc, da.emulator, da.pc_path);
	return fclose(f);
}

int compat_dpu_arch_setup(struct compat_ctx *c, const char *arch, const char *pc_path, char *err,
                          size_t size)
{
	char cc[PATH_MAX], out[PATH_MAX * 2], *tok, *save = NULL;

	if (strcmp(arch, "arm64") != 0 && strcmp(arch, "aarch64") != 0) {
		snprintf(err, size, "--dpu-arch '%s' is not supported; arm64 (aarch64) is", arch);
		return -1;
	}
	if (!c->split_netns) {
		snprintf(err, size,
		         "--dpu-arch arm64 needs --split-netns: the DPU side runs under qemu-user "
		         "in a namespace of its own and reaches the host side over UCX");
		return -1;
	}
	if (pc_path == NULL) {
		snprintf(err, size,
		         "--dpu-arch arm64 needs the aarch64 odma: --dpu-pkg-config-path DIR, the "
		         "directory of its doca-*.pc (make cross ARCH=arm64 builds it; "
		         "build-arm64/meson-uninstalled works as it is)");
		return -1;
	}
	if (!in_path("aarch64-linux-gnu-gcc", cc, sizeof(cc)) ||
	    !in_path("qemu-aarch64", da.emulator, sizeof(da.emulator))) {
		snprintf(
		        err, size,
		        "--dpu-arch arm64 needs aarch64-linux-gnu-gcc and qemu-aarch64 in PATH "
		        "(Debian: crossbuild-essential-arm64 qemu-user; sh scripts/install-deps.sh "
		        "arm64 installs them)");
		return -1;
	}
	snprintf(da.pc_path, sizeof(da.pc_path), "%s", pc_path);
	if (dpu_pkg_config("--libs-only-L", out, sizeof(out)) != 0) {
		snprintf(err, size, "no aarch64 odma at %s (pkg-config doca-common failed)",
		         pc_path);
		return -1;
	}
	for (tok = strtok_r(out, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
		if (strncmp(tok, "-L", 2) == 0 && da.libdir[0] == '\0')
			snprintf(da.libdir, sizeof(da.libdir), "%s", tok + 2);
	if (da.libdir[0] == '\0' || write_cross_file(c, cc) != 0) {
		snprintf(err, size, "cannot set up the aarch64 build of the DPU side (%s)",
		         da.libdir[0] == '\0' ? "doca-common names no library directory"
		                              : "cannot write the cross file");
		return -1;
	}
	path_without_cuda();
	da.on = true;
	fprintf(stderr,
	        "odma compat: DPU sides built for aarch64 (%s, odma of %s) and run under %s\n",
	        da.cross_file, da.pc_path, da.emulator);
	return 0;
}

const char *compat_dpu_cross_file(unsigned arch)
{
	return da.on && arch == COMPAT_DPU ? da.cross_file : NULL;
}

const char *compat_dpu_pkg_config_path(void)
{
	return da.pc_path;
}

const char *compat_dpu_build_path(void)
{
	return da.path;
}

/* Whether @exe is an aarch64 ELF program (e_machine 183). */
static bool is_aarch64(const char *exe)
{
	unsigned char h[20];
	FILE *f = fopen(exe, "rb");
	bool yes = false;

	if (f != NULL) {
		yes = fread(h, 1, sizeof(h), f) == sizeof(h) && memcmp(h, "\177ELF", 4) == 0 &&
		      h[18] == 183 && h[19] == 0;
		fclose(f);
	}
	return yes;
}

bool compat_dpu_wrap(const char *exe, char **argv, size_t *n, struct compat_env *env, size_t *ne)
{
	if (!da.on || exe == NULL || !is_aarch64(exe))
		return false;
	argv[(*n)++] = da.emulator;
	env[(*ne)++] = (struct compat_env){ "LD_LIBRARY_PATH", da.libdir };
	return true;
}
