/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White box of the syslog backends: openlog(3) and syslog(3) are the test's (-Wl,--wrap), so
 * the identity each message goes out under is seen without a syslog daemon. openlog's
 * identity is the process's: each backend's lines must still carry its own name.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <doca_log.h>

#include "test_util.h"

DOCA_LOG_REGISTER(TEST_LOG_SYSLOG);

#define MAX_SENT 16

static const char *ident; /* as openlog(3) keeps it: the pointer */
static int openlogs;
static char sent[MAX_SENT][256]; /* "IDENT: TEXT" */
static int nsent;

void __wrap_openlog(const char *id, int option, int facility);
void __wrap_syslog(int priority, const char *format, ...);

void __wrap_openlog(const char *id, int option, int facility)
{
	(void)option;
	(void)facility;
	ident = id;
	openlogs++;
}

void __wrap_syslog(int priority, const char *format, ...)
{
	char text[200];
	va_list ap;

	(void)priority;
	va_start(ap, format);
	vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	if (nsent < MAX_SENT)
		snprintf(sent[nsent], sizeof(sent[0]), "%s: %s", ident ? ident : "(none)", text);
	nsent++;
}

/* Whether a line sent to syslog is "@id: ..." and holds @text. */
static bool was_sent(const char *id, const char *text)
{
	size_t n = strlen(id);

	for (int i = 0; i < nsent && i < MAX_SENT; i++)
		if (strncmp(sent[i], id, n) == 0 && sent[i][n] == ':' && strstr(sent[i], text))
			return true;
	return false;
}

/*
 * Two syslog backends: one message reaches both, each under its own identity (it went out
 * twice under the name of the backend created last, openlog being called at creation).
 */
static void test_two_identities(void **state)
{
	struct doca_log_backend *a, *b;

	(void)state;
	assert_ok(doca_log_backend_create_with_syslog("odma-ident-a", &a));
	assert_ok(doca_log_backend_create_with_syslog("odma-ident-b", &b));
	DOCA_LOG_ERR("to both syslog backends");
	assert_int_equal(nsent, 2);
	assert_true(was_sent("odma-ident-a", "to both syslog backends"));
	assert_true(was_sent("odma-ident-b", "to both syslog backends"));
}

static void drop(char *buf)
{
	(void)buf;
}

/*
 * A syslog backend refused at the 64-backend limit frees its copy of the name: it must not
 * have handed that copy to openlog first (the next message would have gone out under freed
 * memory's name).
 */
static void test_refused_backend_leaves_identity(void **state)
{
	static char line[256];
	struct doca_log_backend *be;
	doca_error_t rc;
	int before;

	(void)state;
	while ((rc = doca_log_backend_create_with_buf(line, sizeof(line), drop, &be)) ==
	       DOCA_SUCCESS)
		;
	assert_int_equal(rc, DOCA_ERROR_NO_MEMORY);
	before = openlogs;
	assert_doca(DOCA_ERROR_NO_MEMORY,
	            doca_log_backend_create_with_syslog("odma-ident-refused", &be));
	assert_int_equal(openlogs, before);
	nsent = 0;
	DOCA_LOG_ERR("after the refusal");
	assert_true(was_sent("odma-ident-a", "after the refusal"));
	assert_true(was_sent("odma-ident-b", "after the refusal"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_identities),
		cmocka_unit_test(test_refused_backend_leaves_identity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
