/* Fixture project b: a 3.1 call of its own besides the shared one. */
#include <doca_dev.h>

doca_error_t fixture_b(struct doca_devinfo *d, enum doca_pci_func_type *t)
{
	return doca_devinfo_get_pci_func_type(d, t);
}
