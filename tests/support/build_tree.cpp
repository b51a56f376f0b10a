#include "build_tree.h"

#include <stdlib.h>

namespace togmal::testing {

std::string TogmalBinary() {
  if (const char* override_path = getenv("TOGMAL_TEST_BINARY"); override_path && *override_path) {
    return override_path;
  }
  return TOGMAL_BINARY;
}

bool SanitizedBuild() { return TOGMAL_SANITIZED_BUILD != 0; }

}  // namespace togmal::testing
