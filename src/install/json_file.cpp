#include "togmal/install/json_file.h"

#include <algorithm>
#include <string_view>

#include "togmal/util/config_file.h"

namespace togmal::install {
namespace {

// The indentation of the first indented line; one line means compact.
JsonStyle DetectStyle(std::string_view text) {
  JsonStyle style;
  std::string_view body = text;
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' ')) {
    body.remove_suffix(1);
  }
  style.final_newline = !text.empty() && text.back() == '\n';
  const std::size_t newline = body.find('\n');
  if (newline == std::string_view::npos) {
    style.indent = body.empty() ? 2 : -1;
    if (body.empty()) style.final_newline = true;
    return style;
  }
  for (std::size_t at = newline; at != std::string_view::npos; at = body.find('\n', at + 1)) {
    const std::size_t start = at + 1;
    const std::size_t end = body.find_first_not_of(" \t", start);
    if (end == std::string_view::npos || end == start) continue;
    style.indent_char = body[start];
    style.indent = static_cast<int>(end - start);
    return style;
  }
  return style;
}

// 1-based line and column of byte offset `byte` (nlohmann counts from 1).
std::pair<std::size_t, std::size_t> LineAndColumn(std::string_view text, std::size_t byte) {
  const std::size_t offset = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t last = before.rfind('\n');
  const std::size_t column = last == std::string_view::npos ? offset + 1 : offset - last;
  return {line, column};
}

}  // namespace

Result<JsonFile> LoadJsonFile(const std::filesystem::path& path) {
  JsonFile file;
  file.path = path;
  auto text = util::ReadConfigFile(path);
  if (!text) return Fail(text.error());
  if (!text->has_value()) return file;
  file.existed = true;
  file.text = std::move(**text);
  file.style = DetectStyle(file.text);
  if (file.text.find_first_not_of(" \t\r\n") == std::string::npos) return file;
  try {
    file.value = OrderedJson::parse(file.text, nullptr, true, /*ignore_comments=*/false);
  } catch (const OrderedJson::parse_error& e) {
    const auto [line, column] = LineAndColumn(file.text, e.byte);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error …"
    if (const std::size_t colon = what.find(": "); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
    return Fail(path.string() + ":" + std::to_string(line) + ":" + std::to_string(column) +
                ": not valid JSON (" + what + "); fix it first, togmal will not rewrite it");
  }
  if (!file.value.is_object()) {
    return Fail(path.string() +
                ":1: the top level is not a JSON object; togmal will not rewrite it");
  }
  return file;
}

std::string RenderJson(const OrderedJson& value, const JsonStyle& style) {
  std::string text = value.dump(style.indent, style.indent_char);
  if (style.final_newline) text.push_back('\n');
  return text;
}

}  // namespace togmal::install
