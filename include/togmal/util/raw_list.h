#pragma once
/// A list in the constant data that the build-time config compilers write
/// (compiled classifier tables, compiled built-in rules): a static array and
/// its length. std::span would need the element type complete, and the
/// compiled structs nest lists of themselves.

#include <cstddef>

namespace togmal::util {

template <typename T>
struct RawList {
  const T* data = nullptr;
  std::size_t size = 0;
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
};

using RawStrings = RawList<const char*>;

}  // namespace togmal::util
