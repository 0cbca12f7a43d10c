#include "core/a/a.h"
