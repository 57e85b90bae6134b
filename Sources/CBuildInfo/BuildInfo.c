#include "CBuildInfo.h"

#ifndef CDHIST_COMMIT
#define CDHIST_COMMIT ""
#endif

const char *cdhist_build_commit(void) { return CDHIST_COMMIT; }
