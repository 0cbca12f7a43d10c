/* Calls an experimental entry point; must only compile with DOCA_ALLOW_EXPERIMENTAL_API. */
#include <stdio.h>

#include <doca_version.h>

int main(void)
{
	puts(doca_version_runtime());
	return 0;
}
