/* A fixture of odma's own for odma compat --min-release: calls a 3.1 function. */
#include <doca_dev.h>
#include <doca_dma.h>

/* doca_clock_create( in a comment is not a call */
static const char *text = "doca_clock_create(";
static const char quote = '"';

int main(void)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	enum doca_pci_func_type type;

	(void)text;
	(void)quote;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return 1;
	// doca_clock_destroy(x) in a line comment
	if (n > 0)
		doca_devinfo_get_pci_func_type (list[0], &type);
	doca_devinfo_destroy_list(list);
	return 0;
}
