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

// The escape nlohmann writes for an ASCII byte that is not plain, with its
// length: two-character escapes where JSON has one, `\u00xx` (lower case)
// for the other control characters. Looked up, not spelled by a switch and
// appended as C strings: escapes are frequent (every `"` and newline of a
// tool's pretty-printed text), and each append measured its string first.
struct Escape {
  char text[7];
  std::size_t size;
};

constexpr std::array<Escape, 0x80> kEscapes = [] {
  std::array<Escape, 0x80> escapes{};
  constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t c = 0; c < 0x20; ++c) {
    escapes[c] = {{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF], 0}, 6};
  }
  escapes['"'] = {"\\\"", 2};
  escapes['\\'] = {"\\\\", 2};
  escapes['\b'] = {"\\b", 2};
  escapes['\t'] = {"\\t", 2};
  escapes['\n'] = {"\\n", 2};
  escapes['\f'] = {"\\f", 2};
  escapes['\r'] = {"\\r", 2};
  return escapes;
}();

// Appends `text` quoted and escaped and says true when it is all ASCII; for
// text with any other byte, leaves `out` as it was and says false: nlohmann
// decides what its UTF-8 becomes.
bool AppendAsciiQuoted(std::string& out, std::string_view text) {
  const std::size_t mark = out.size();
  // Room for the text, its quotes and a few escapes, so runs and escapes
  // are copied without growing the string between them.
  out.reserve(mark + text.size() + 16);
  out += '"';
  const char* const end = text.data() + text.size();
  const char* run = text.data();
  for (const char* at = run; at != end; ++at) {
    const auto c = static_cast<unsigned char>(*at);
    if (kPlain[c]) continue;
    if (c >= 0x80) {
      out.resize(mark);
      return false;
    }
    out.append(run, static_cast<std::size_t>(at - run));
    out.append(kEscapes[c].text, kEscapes[c].size);
    run = at + 1;
  }
  out.append(run, static_cast<std::size_t>(end - run));
  out += '"';
  return true;
}

// A string value or member name, quoted; `value`, when given, is the json
// that holds it (handed to nlohmann as it is, without a copy).
void AppendQuoted(std::string& out, std::string_view text, const json* value) {
  if (AppendAsciiQuoted(out, text)) return;
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
        out.append("{}", 2);
        return;
      }
      out.append("{\n", pretty ? 2 : 1);
      bool first = true;
      for (const auto& [key, member] : object) {
        if (!first) out.append(",\n", pretty ? 2 : 1);
        first = false;
        if (pretty) AppendIndent(out, inner);
        AppendQuoted(out, key, nullptr);
        out.append(": ", pretty ? 2 : 1);
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
        out.append("[]", 2);
        return;
      }
      out.append("[\n", pretty ? 2 : 1);
      bool first = true;
      for (const json& item : array) {
        if (!first) out.append(",\n", pretty ? 2 : 1);
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
      out.append(value.get<bool>() ? std::string_view("true") : std::string_view("false"));
      return;
    case json::value_t::number_integer:
      AppendInteger(out, value.get<json::number_integer_t>());
      return;
    case json::value_t::number_unsigned:
      AppendInteger(out, value.get<json::number_unsigned_t>());
      return;
    case json::value_t::null:
      out.append("null", 4);
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
