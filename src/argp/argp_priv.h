/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/*
 * odma's own additions to doca_argp, for odma's tools (odma errors, doca_caps, odma bench, ...)
 * and doca_dma_copy; DOCA programs never need them. Call them between doca_argp_init and the
 * first doca_argp_register_param.
 */
#ifndef ODMA_ARGP_PRIV_H_
#define ODMA_ARGP_PRIV_H_

#include <doca_compat.h>
#include <doca_error.h>

/*
 * The usage text: "Usage: PROGRAM @synopsis" (NULL: "[DOCA flags] [program flags]"),
 * @description under it and @epilogue after the flags (NULL: none; sections such as
 * "EXIT STATUS" headed at column 0). One source for --help and the program's man page
 * (tools/common/odma_help.h turns the usage text into roff).
 */
DOCA_STABLE doca_error_t doca_priv_argp_set_doc(const char *synopsis, const char *description,
                                                const char *epilogue);

/*
 * -j and --json become the program's own names (DOCA's general -j/--json PATH, flags read
 * from a JSON file, is then neither parsed nor listed): for tools whose --json prints JSON.
 */
DOCA_STABLE void doca_priv_argp_own_json(void);

/*
 * The program's param callbacks say why they refuse a value, on a line of their own:
 * doca_argp_start then adds no line when a callback fails (it still fails, with the
 * callback's code), so a bad flag value costs the user one line.
 */
DOCA_STABLE void doca_priv_argp_callbacks_explain(void);

#endif /* ODMA_ARGP_PRIV_H_ */
