// Shell scripts: the whole file is shell text, line for line.
#include "togmal/scan/extractors.h"

namespace togmal::scan {

Extraction ExtractShellScript(std::string_view text, std::string_view origin) {
  Extraction out;
  ScriptSource source;
  source.line = 1;
  source.text = std::string(text);
  source.origin = std::string(origin);
  out.scripts.push_back(std::move(source));
  return out;
}

}  // namespace togmal::scan
