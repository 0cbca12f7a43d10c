/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * The PCI addresses of the tools' device flags (tools/common/odma_pci.c), white box: which
 * texts read as an address, and which two name the same function.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "odma_pci.h"

static void test_text_ok(void **s)
{
	(void)s;
	assert_true(odma_pci_text_ok("03:00.0"));
	assert_true(odma_pci_text_ok("0000:B1:00.1"));
	assert_false(odma_pci_text_ok("03:20.0")); /* device past 1f */
	assert_false(odma_pci_text_ok("03:00.8")); /* function past 7 */
	assert_false(odma_pci_text_ok("03:00.0x"));
	assert_false(odma_pci_text_ok(""));
}

/*
 * Hexadecimal digits in either case, with or without the domain, name one function
 * (odma compat's --dpu-pci against doca_caps's pci_addr: "0A:00.0" missed "0000:0a:00.0", and
 * the application check fell back to the BlueField-3 limit). A missing address names none.
 */
static void test_same(void **s)
{
	(void)s;
	assert_true(odma_pci_same("0000:03:00.0", "03:00.0"));
	assert_true(odma_pci_same("03:00.0", "0000:03:00.0"));
	assert_true(odma_pci_same("0000:0a:00.0", "0A:00.0"));
	assert_true(odma_pci_same("B1:00.1", "b1:00.1"));
	assert_false(odma_pci_same("b1:00.0", "b1:00.1"));
	assert_false(odma_pci_same("13:00.0", "3:00.0")); /* a whole field, not its tail */
	assert_false(odma_pci_same(NULL, "03:00.0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_ok),
		cmocka_unit_test(test_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
