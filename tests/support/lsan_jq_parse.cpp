// Linked into the binaries that load arbitrary definitions or policies (fuzz_definitions, fuzz_policy and their
// replays; a policy's jq is a profile override's `when`): libjq 1.6's parser leaks strings of a program it refuses to
// compile, once per load of a broken definition or policy. The project allocates nothing under jq's parser, so that
// is the one frame suppressed here.
// libjq has no frame pointers: ASan's fast unwinder stops at jv_mem_alloc, before any frame a suppression could
// name, so these binaries unwind allocations the slow way, 8 frames deep.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0:malloc_context_size=8"; }
extern "C" const char* __lsan_default_suppressions() { return "leak:jq_parse\n"; }
