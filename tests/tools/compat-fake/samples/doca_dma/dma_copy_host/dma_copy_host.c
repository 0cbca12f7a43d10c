/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fake host side: exports a buffer holding its -t text for PCI access (doca_mmap_export_pci),
 * writes the export descriptor to the -d file and "address\nlength\n" to the -b file, and
 * waits for Enter while the DPU side copies the text out with DMA.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>

/* Which network namespace this runs in, and the fabric it was given (odma compat --split-netns
 * puts the two sides into two namespaces; its test compares these lines). */
static void print_where(const char *side)
{
	struct stat st;
	const char *fabric = getenv("ODMA_FABRIC");

	if (stat("/proc/self/ns/net", &st) != 0)
		st.st_ino = 0;
	printf("fake %s: netns %lu, pid %ld, ODMA_FABRIC %s\n", side, (unsigned long)st.st_ino,
	       (long)getpid(), fabric != NULL ? fabric : "-");
	fflush(stdout);
}

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n = 0, i;
	uint8_t eq;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	return dev;
}

int main(int argc, char **argv)
{
	const char *text = NULL, *desc_path = NULL, *buf_path = NULL, *pci = NULL;
	struct doca_dev *dev;
	struct doca_mmap *mmap = NULL;
	const void *desc = NULL;
	size_t desc_len = 0, len;
	char *buf;
	FILE *f;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-t") == 0)
			text = argv[i + 1];
		else if (strcmp(argv[i], "-d") == 0)
			desc_path = argv[i + 1];
		else if (strcmp(argv[i], "-b") == 0)
			buf_path = argv[i + 1];
		else if (strcmp(argv[i], "-p") == 0)
			pci = argv[i + 1];
	}
	if (text == NULL || desc_path == NULL || buf_path == NULL || pci == NULL)
		return 2;
	print_where("host");
	len = strlen(text);
	buf = strdup(text);
	dev = open_dev(pci);
	if (buf == NULL || dev == NULL) {
		puts("[ERROR] fake host: no device");
		return 3;
	}
	if (doca_mmap_create(&mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(mmap, buf, len) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(mmap, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_start(mmap) != DOCA_SUCCESS ||
	    doca_mmap_export_pci(mmap, dev, &desc, &desc_len) != DOCA_SUCCESS) {
		puts("[ERROR] fake host: cannot export the buffer");
		return 4;
	}
	f = fopen(desc_path, "wb");
	if (f == NULL || fwrite(desc, 1, desc_len, f) != desc_len || fclose(f) != 0)
		return 5;
	f = fopen(buf_path, "w");
	if (f == NULL || fprintf(f, "%ju\n%zu\n", (uintmax_t)(uintptr_t)buf, len) < 0 ||
	    fclose(f) != 0)
		return 6;
	puts("Wait till the DPU has finished and press enter");
	fflush(stdout);
	if (getchar() != '\n')
		return 7;
	doca_mmap_destroy(mmap);
	doca_dev_close(dev);
	free(buf);
	puts("Sample finished successfully");
	return 0;
}
