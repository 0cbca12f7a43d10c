/* Fixture project a: only the shared code's 3.1 call. */
#include <doca_pe.h>

doca_error_t fixture_a(struct doca_pe **pe)
{
	return doca_pe_create(pe);
}
