#include "togmal/install/profile_setting.h"

namespace togmal::install {

std::string WithProfile(std::string_view text, std::string_view profile) {
  std::string out;
  bool replaced = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    // Only a top-level key: an indented `profile:` belongs to another map.
    if (!replaced && line.starts_with("profile:")) {
      // The comment keeps its place: from the blanks before its '#'.
      std::size_t comment = line.find(" #");
      if (comment != std::string_view::npos) {
        while (comment > 0 && line[comment - 1] == ' ') --comment;
      }
      out += "profile: " + std::string(profile);
      if (comment != std::string_view::npos) out += line.substr(comment);
      replaced = true;
    } else {
      out += line;
    }
    if (!last) out += '\n';
    start = end + 1;
  }
  if (!replaced) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += "profile: " + std::string(profile) + "\n";
  }
  return out;
}

}  // namespace togmal::install
