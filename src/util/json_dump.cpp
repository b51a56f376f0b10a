#include "togmal/util/json_dump.h"

#include <array>
#include <charconv>

#include "json_plain_bytes.h"

namespace togmal::util {
namespace {

using json = nlohmann::json;

// What nlohmann's dump_escaped copies unchanged from an ASCII string
// (ensure_ascii off).
constexpr const std::array<bool, 256>& kPlain = kJsonPlainBytes;

// nlohmann's own serializer for what this writer does not spell itself; it
// is told the indentation it starts at, so its bytes fit in between ours.
void AppendWithNlohmann(std::string& out, const json& value, int indent, unsigned current_indent) {
  nlohmann::detail::serializer<json> serializer(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ',
      json::error_handler_t::replace);
  serializer.dump(value, indent >= 0, false, indent >= 0 ? static_cast<unsigned>(indent) : 0u,
                  current_indent);
}

// Appends the escaped body of an all-ASCII `text` (without quotes) and says
// true; for text with any other byte, leaves `out` as it was and says false:
// nlohmann decides what its UTF-8 becomes.
bool AppendAsciiEscaped(std::string& out, std::string_view text) {
  const std::size_t mark = out.size();
  const char* const end = text.data() + text.size();
  const char* run = text.data();
  for (const char* at = run; at != end; ++at) {
    const auto c = static_cast<unsigned char>(*at);
    if (kPlain[c]) continue;
    out.append(run, static_cast<std::size_t>(at - run));
    run = at + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c >= 0x80) {
          out.resize(mark);
          return false;
        }
        {
          // Other control characters as nlohmann writes them: \u00xx, lower case.
          constexpr char kHex[] = "0123456789abcdef";
          const char escape[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
          out.append(escape, sizeof escape);
        }
    }
  }
  out.append(run, static_cast<std::size_t>(end - run));
  return true;
}

// A string value or member name, quoted; `value`, when given, is the json
// that holds it (handed to nlohmann as it is, without a copy).
void AppendQuoted(std::string& out, std::string_view text, const json* value) {
  const std::size_t mark = out.size();
  out += '"';
  if (AppendAsciiEscaped(out, text)) {
    out += '"';
    return;
  }
  out.resize(mark);
  if (value != nullptr) {
    AppendWithNlohmann(out, *value, -1, 0);
  } else {
    AppendWithNlohmann(out, json(text), -1, 0);
  }
}

template <typename Integer>
void AppendInteger(std::string& out, Integer number) {
  char digits[24];
  const auto written = std::to_chars(digits, digits + sizeof digits, number);
  out.append(digits, written.ptr);
}

void AppendIndent(std::string& out, unsigned spaces) { out.append(spaces, ' '); }

void Append(std::string& out, const json& value, int indent, unsigned current) {
  const bool pretty = indent >= 0;
  const unsigned inner = current + (pretty ? static_cast<unsigned>(indent) : 0u);
  switch (value.type()) {
    case json::value_t::object: {
      const auto& object = value.get_ref<const json::object_t&>();
      if (object.empty()) {
        out += "{}";
        return;
      }
      out += pretty ? "{\n" : "{";
      bool first = true;
      for (const auto& [key, member] : object) {
        if (!first) out += pretty ? ",\n" : ",";
        first = false;
        if (pretty) AppendIndent(out, inner);
        AppendQuoted(out, key, nullptr);
        out += pretty ? ": " : ":";
        Append(out, member, indent, inner);
      }
      if (pretty) {
        out += '\n';
        AppendIndent(out, current);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      const auto& array = value.get_ref<const json::array_t&>();
      if (array.empty()) {
        out += "[]";
        return;
      }
      out += pretty ? "[\n" : "[";
      bool first = true;
      for (const json& item : array) {
        if (!first) out += pretty ? ",\n" : ",";
        first = false;
        if (pretty) AppendIndent(out, inner);
        Append(out, item, indent, inner);
      }
      if (pretty) {
        out += '\n';
        AppendIndent(out, current);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      AppendQuoted(out, value.get_ref<const std::string&>(), &value);
      return;
    case json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      AppendInteger(out, value.get<json::number_integer_t>());
      return;
    case json::value_t::number_unsigned:
      AppendInteger(out, value.get<json::number_unsigned_t>());
      return;
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::number_float:  // nlohmann's shortest round trip
    case json::value_t::binary:
    case json::value_t::discarded:
      AppendWithNlohmann(out, value, indent, current);
      return;
  }
}

}  // namespace

std::string DumpJson(const json& value, int indent) {
  std::string text;
  Append(text, value, indent, 0);
  return text;
}

void AppendJson(std::string& out, const json& value, int indent) { Append(out, value, indent, 0); }

void AppendJsonString(std::string& out, std::string_view text) { AppendQuoted(out, text, nullptr); }

}  // namespace togmal::util
