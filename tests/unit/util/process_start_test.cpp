// WarmHeap: the heap a hook process then uses is already mapped, so touching
// it costs no page faults. mincore() tells which pages are mapped.

#include "togmal/util/process_start.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "build_tree.h"

namespace togmal::util {
namespace {

// Fraction of the whole pages inside [data, data + size) that are mapped.
double ResidentShare(const void* data, std::size_t size) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(page - 1);
  if (end <= begin) return 0;
  std::vector<unsigned char> resident((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) != 0) return -1;
  std::size_t mapped = 0;
  for (unsigned char flag : resident) mapped += flag & 1u;
  return static_cast<double>(mapped) / static_cast<double>(resident.size());
}

bool KernelCanPopulate() {
  const std::size_t size = 4 * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* probe = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool ok = madvise(probe, size, 23 /* MADV_POPULATE_WRITE */) == 0;
  munmap(probe, size);
  return ok;
}

TEST(WarmHeap, LaterAllocationsAreMappedBeforeTheyAreTouched) {
  if (togmal::testing::SanitizedBuild()) GTEST_SKIP() << "AddressSanitizer replaces malloc";
  if (!KernelCanPopulate()) GTEST_SKIP() << "no MADV_POPULATE_WRITE (Linux < 5.14)";
  // mincore tells untouched from touched anonymous pages here.
  const std::size_t size = std::size_t{256} << 10;
  void* fresh = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(fresh, MAP_FAILED);
  EXPECT_EQ(ResidentShare(fresh, size), 0.0);
  munmap(fresh, size);

  WarmHeap(std::size_t{1} << 20);
  void* block = std::malloc(size);  // above glibc's usual mmap threshold
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(ResidentShare(block, size), 1.0);
  std::memset(block, 0x5a, size);  // and it is ordinary, usable memory
  std::free(block);
}

}  // namespace
}  // namespace togmal::util
