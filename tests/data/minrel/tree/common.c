/* Shared code of the fixture tree: every project below uses it. */
#include <doca_dev.h>

doca_error_t fixture_sf(struct doca_devinfo *d, uint32_t *sf)
{
	return doca_devinfo_get_sf_index(d, sf);
}
