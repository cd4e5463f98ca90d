# Sourced by scripts/fuzz.sh and scripts/fuzz-long.sh: the libFuzzer targets
# (name, binary under build/fuzz, seed directories) and the build of them.
fuzz_targets=(
  "run_document_fuzzer tests/report/fuzz/run_document_fuzzer tests/report/testdata"
  "handshake_fuzzer tests/core/fuzz/handshake_fuzzer tests/core/fuzz/corpus"
  "tcp_frame_fuzzer tests/transport/tcp/fuzz/tcp_frame_fuzzer tests/transport/tcp/fuzz/corpus"
  "shm_fuzzer tests/transport/shm/fuzz/shm_fuzzer tests/transport/shm/fuzz/corpus"
  "verbs_setup_fuzzer tests/transport/verbs/fuzz/verbs_setup_fuzzer tests/transport/verbs/fuzz/corpus"
  "perftest_wire_fuzzer tests/perftest/fuzz/perftest_wire_fuzzer tests/perftest/fuzz/corpus"
  "bench_messages_fuzzer tests/bench/fuzz/bench_messages_fuzzer tests/bench/fuzz/corpus"
)

# Configures the clang build in build/fuzz and builds every target this host
# can (the verbs ones need rdma-core). Its libraries compile eight sources
# per unit, as the sanitizer builds do (scripts/build.sh).
fuzz_build() {
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DXFER_FUZZ=ON -DXFER_BUILD_TESTS=OFF \
    -DXFER_BUILD_BENCHMARKS=OFF -DXFER_CUDA=OFF -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 >/dev/null
  local names=() entry name known
  known=$(cmake --build build/fuzz --target help)
  for entry in "${fuzz_targets[@]}"; do
    read -r name _ <<<"$entry"
    if grep -qx "\.\.\. $name" <<<"$known"; then names+=("$name"); fi
  done
  cmake --build build/fuzz -j "$(nproc)" --target "${names[@]}"
}

# The executions a libFuzzer log reports (-print_final_stats=1), summed over
# the jobs that wrote it; 0 when it reports none.
fuzz_execs() {
  awk '/stat::number_of_executed_units:/ { sum += $2 } END { print sum + 0 }' "$@"
}
