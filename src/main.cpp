// The thin executable: everything lives in the core library.
#include "togmal/store/redaction.h"
#include "togmal/util/logging.h"

namespace togmal::cli {
int Main(int argc, char** argv);
}

int main(int argc, char** argv) {
  // First: nothing may log to stdout, and no log line may show a secret.
  togmal::util::InitLogging(&togmal::store::RedactSecrets);
  return togmal::cli::Main(argc, argv);
}
