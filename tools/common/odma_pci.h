/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The PCI address a tool's flag takes (doca_caps --pci-addr, odma compat --host-pci ...). */
#ifndef ODMA_PCI_H_
#define ODMA_PCI_H_

#include <stdbool.h>

/*
 * Whether @t reads as a PCI address: BB:DD.F or DDDD:BB:DD.F, hexadecimal, with a device of at
 * most 1f and a function of at most 7 (the library refuses any other).
 */
bool odma_pci_text_ok(const char *t);

/* What a refusal of odma_pci_text_ok says the address must be. */
#define ODMA_PCI_SHAPES "BB:DD.F or DDDD:BB:DD.F, hexadecimal, device 00-1f, function 0-7"

/*
 * Whether @a and @b name the same function: "0000:03:00.0" and "03:00.0" do (a missing domain
 * matches any), and hexadecimal digits compare in either case. False if either is NULL.
 */
bool odma_pci_same(const char *a, const char *b);

#endif /* ODMA_PCI_H_ */
