#include "command.h"

namespace togmal::cli {

std::span<const CommandSpec> Commands() {
  static constexpr CommandSpec kCommands[] = {
      {"version", "Print togmal's version and the protocol versions it speaks", DefineVersion},
  };
  return kCommands;
}

}  // namespace togmal::cli
