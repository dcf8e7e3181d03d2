// Must NOT compile: harness/run/ is below harness/campaign/, so it cannot see its headers.
// tests/CMakeLists.txt builds this as a probe of vf_run and expects the compiler to reject it.
#include "harness/campaign/campaign.h"
