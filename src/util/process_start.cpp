#include "togmal/util/process_start.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older headers lack the name
#endif

namespace togmal::util {

void WarmHeap(std::size_t bytes) {
  // Allocations up to 4 MiB come from the heap, and freeing never shrinks it:
  // otherwise the block freed below would go straight back to the kernel.
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  void* block = std::malloc(bytes);
  if (block == nullptr) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(block) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(block) + bytes;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  std::free(block);  // joins the top of the heap; later allocations reuse it
}

}  // namespace togmal::util
