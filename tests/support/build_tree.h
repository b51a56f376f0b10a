#pragma once
// What the build tree the tests run in made: its togmal binary, and whether
// togmal's code in it is compiled with the sanitizers. The test programs
// themselves are compiled the same in every tree (CMakeLists.txt: the
// compiler cache shares them), so a test asks here rather than testing
// __SANITIZE_ADDRESS__, which says how the test was compiled.

#include <string>

namespace togmal::testing {

/// Path of the togmal binary under test ($TOGMAL_TEST_BINARY overrides the
/// one this build made).
std::string TogmalBinary();

/// True in a tree built with TOGMAL_SANITIZE (the asan preset): the binary and
/// the test programs run with the sanitizers' run-time, whose allocator keeps
/// freed memory in quarantine and whose shadow memory inflates every size.
bool SanitizedBuild();

}  // namespace togmal::testing
