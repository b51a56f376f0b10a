#include "togmal/version.h"

#include <iostream>
#include <memory>

#include "command.h"

namespace togmal::cli {

Action DefineVersion(CLI::App& command) {
  // Option storage lives as long as the action that reads it.
  auto json_output = std::make_shared<bool>(false);
  command.add_flag("--json", *json_output, "Print as JSON");
  return [json_output] {
    if (*json_output) {
      std::cout << R"({"name":"togmal","version":")" << kVersion << R"(","protocols":[)";
      for (std::size_t i = 0; i < kProtocolVersions.size(); ++i) {
        std::cout << (i ? "," : "") << '"' << kProtocolVersions[i] << '"';
      }
      std::cout << "]}\n";
    } else {
      std::cout << "togmal " << kVersion << "\nMCP protocol versions:";
      for (auto version : kProtocolVersions) std::cout << ' ' << version;
      std::cout << '\n';
    }
    return kExitOk;
  };
}

}  // namespace togmal::cli
