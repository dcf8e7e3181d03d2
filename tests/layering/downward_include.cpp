// Must compile: harness/run/ sees its own headers and those of every layer below it.
#include "generators/data.h"
#include "harness/backends/torch/torch_backend.h"
#include "harness/run/runner.h"
#include "ir/program.h"
#include "oracles/compare.h"
