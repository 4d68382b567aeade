// Linked into the binaries that compare the native evaluator with libjq (tests/corpus/native_vs_jq_test.cpp,
// fuzz_native_vs_jq): they run the catalog's native expressions through libjq on purpose, which production never
// does, and libjq 1.6 leaks an object key of the input when path() refuses an expression partway through `[]`
// over an object. The key belongs to the jv copy of the object, whose frame is suppressed here: by the struct's bare
// name, since the sanitized build keeps line tables only, where an inlined constructor is named unqualified.
// libjq's exec stack (exec_stack.h) is held only by a pointer one past its end (mem_end), which LeakSanitizer does not
// count as a reference: a leak check while a jq_state sits idle between runs (libFuzzer's, after an input that compiled
// a program) reports the stack as lost, though jq_teardown frees it; its frame is jq_start, which grows it.
// libjq has no frame pointers: ASan's fast unwinder stops at jv_mem_alloc, before any frame a suppression could
// name, so these binaries unwind allocations the slow way, 8 frames deep.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0:malloc_context_size=8"; }
extern "C" const char* __lsan_default_suppressions() { return "leak:JqInput\nleak:jq_start\n"; }
