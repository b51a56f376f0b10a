// The thin executable: everything lives in the core library.
#include "togmal/util/logging.h"

namespace togmal::cli {
int Main(int argc, char** argv);
}

int main(int argc, char** argv) {
  togmal::util::InitLogging();  // first: nothing may log to stdout
  return togmal::cli::Main(argc, argv);
}
