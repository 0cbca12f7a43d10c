/* A fixture of odma's own: a Comch server, a function of a later release than the rest. */
#include <doca_comch.h>

doca_error_t make_server(struct doca_dev *dev, struct doca_dev_rep *rep,
                         struct doca_comch_server **server)
{
	return doca_comch_server_create(dev, rep, "fixture", server);
}

doca_error_t doca_fixture_own_helper(void)
{
	return DOCA_SUCCESS;
}
