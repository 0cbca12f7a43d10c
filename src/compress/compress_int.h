/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Compress inside libdoca_compress: the task, what its buffers allow, and the table of
 * task types that compress.c (the context) and engine.c (zlib, liblz4, xxHash-32) share.
 */
#ifndef ODMA_COMPRESS_INT_H_
#define ODMA_COMPRESS_INT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include <doca_error.h>

#include "core/exec/exec.h"

struct cp_task;
struct cp_io;
struct cp_run;

enum cp_type {
	CP_COMPRESS_DEFLATE = 0,
	CP_DECOMPRESS_DEFLATE,
	CP_DECOMPRESS_LZ4_STREAM,
	CP_DECOMPRESS_LZ4_BLOCK,
	CP_TYPES,
};

/*
 * One row per task type (indexed by enum cp_type): its name, the device capability that
 * enables it, its engine, and which bytes its checksums cover.
 */
struct cp_type_row {
	const char *name;
	size_t cap; /* offsetof(struct odma_dev_caps, the bool of the task type) */
	doca_error_t (*run)(struct cp_run *run); /* fills run->produced */
	bool of_source; /* checksums of the source (compress), else of the output */
	bool adler;     /* Adler-32 (deflate), else xxHash-32 (LZ4) */
};
extern const struct cp_type_row odma_cp_types[CP_TYPES];

/* Every task type of the API is this struct. */
struct cp_task {
	struct doca_task base;
	uint8_t type; /* enum cp_type */
	uint8_t has_block_checksum;
	uint8_t are_blocks_independent;
	const struct doca_buf *src;
	struct doca_buf *dst;
	uint32_t crc;
	uint32_t adler; /* deflate tasks */
	uint32_t xxh;   /* LZ4 tasks (byte-swapped, see doca_compress.h) */
};

/* What the task's buffers allow; filled by cp_check. */
struct cp_io {
	const uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t room;     /* free bytes after the destination's data, at most the max buf size */
	bool remote_in;  /* the source is memory of another process (a bounce buffer is read) */
	bool remote_out; /* the destination is, likewise */
};

/* inflate's window (1 << 15 bytes for raw deflate), reserved before the fault guard */
#define CP_ZLIB_RESERVE ((size_t)1 << 15)

/* One run of the engine (engine.c): what the guarded part reads and writes. */
struct cp_run {
	struct cp_task *t;
	const struct cp_io *io;
	z_stream z;
	uint8_t *reserve;   /* inflate's window, allocated before the guard */
	bool reserve_given; /* zlib has it */
	bool in_guard;      /* zlib may not allocate */
	size_t produced;    /* output bytes so far */
	doca_error_t r;
};

/* Runs the task's engine on @io and fills its checksums; *out_len: the output bytes. */
doca_error_t odma_cp_run(struct cp_task *t, const struct cp_io *io, size_t *out_len);

#endif /* ODMA_COMPRESS_INT_H_ */
