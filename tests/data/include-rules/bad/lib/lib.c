/* reaches into core/b's private header */
#include "core/b/b_int.h"
