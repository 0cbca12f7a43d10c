/* face of core/a: includes core/b's face, which includes back (a module circle) */
#include "core/b/b.h"
