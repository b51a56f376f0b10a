#pragma once
// Start-up work that makes a short-lived togmal process cheaper.

#include <cstddef>

namespace togmal::util {

/// Heap a hook process needs, rounded up: with 256 KB no call in bench/hook
/// faults in more heap pages than with 512 KB, even with 46 frames in the WAL
/// (SQLite's WAL index and page cache grow with it; a call sees at most 64).
inline constexpr std::size_t kWarmHeapBytes = std::size_t{256} << 10;

/// Grows the malloc heap by `bytes` and maps all of it with one
/// madvise(MADV_POPULATE_WRITE) instead of one page fault per 4 KiB page as
/// the process first touches it. On the virtual machines agents run on a page
/// fault costs several times what populating the page does (on the project's
/// 2-core machines ~10 us against ~1.7 us; docs/performance.md), and the hook
/// is a new process per tool call. Also keeps large allocations on that heap
/// (no mmap per allocation, no trimming), so it is for short-lived processes
/// only. Best effort: before Linux 5.14 (no MADV_POPULATE_WRITE) the pages
/// fault in as usual.
void WarmHeap(std::size_t bytes = kWarmHeapBytes);

}  // namespace togmal::util
