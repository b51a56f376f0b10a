// The thin executable: everything lives in the core library.
#include <string_view>

#include "togmal/util/logging.h"
#include "togmal/util/process_start.h"

namespace togmal::cli {
int Main(int argc, char** argv);
}

int main(int argc, char** argv) {
  // Claude Code starts `togmal hook` once per tool call: map its heap in one
  // go rather than fault it in page by page (util/process_start.h).
  if (argc > 1 && std::string_view(argv[1]) == "hook") togmal::util::WarmHeap();
  togmal::util::InitLogging();  // first: nothing may log to stdout
  return togmal::cli::Main(argc, argv);
}
