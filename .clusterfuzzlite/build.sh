#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: the builder sets CXX, CXXFLAGS (sanitizer and coverage
# flags), LIB_FUZZING_ENGINE and OUT. libtorch comes from the torch wheel installed in the image
# and stays uninstrumented.
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
cmake -S "$SRC/vmapfuzz" -B build -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DVMAPFUZZ_TESTS=OFF -DVMAPFUZZ_LIBFUZZER=ON -DVMAPFUZZ_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS"
cmake --build build --target fuzz_case fuzz_text
for t in fuzz_case fuzz_text; do cp "build/fuzz/$t" "$OUT/"; done
# Seed corpora, zipped as OSS-Fuzz expects (<target>_seed_corpus.zip).
(cd corpus/fuzz/case && zip -q -r "$OUT/fuzz_case_seed_corpus.zip" .)
(cd corpus && zip -q -r "$OUT/fuzz_text_seed_corpus.zip" seeds regressions)
# libtorch's shared libraries travel with the targets.
libdir=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
mkdir -p "$OUT/lib" && cp -a "$libdir"/*.so* "$OUT/lib/"
for t in fuzz_case fuzz_text; do patchelf --set-rpath '$ORIGIN/lib' "$OUT/$t" 2>/dev/null || true; done
