#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/// The commit cdhist was built from, as scripts/install and scripts/package pass it
/// (-Xcc -DCDHIST_COMMIT="..."); an empty string for any other build.
const char *cdhist_build_commit(void);

#endif
