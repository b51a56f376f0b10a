#include "plain_json_reader.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "json_plain_bytes.h"

namespace togmal::util {
namespace {

using json = nlohmann::json;

// Bytes a string holds as they are; control characters are an error.
constexpr const std::array<bool, 256>& kPlain = kJsonPlainBytes;

// Deeper text is left to nlohmann (the callers refuse it before anyway):
// this reader recurses.
constexpr int kMaxDepth = 512;

class Reader {
 public:
  explicit Reader(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  bool Document(json& out) {
    SkipSpace();
    if (!Value(out, 0)) return false;
    SkipSpace();
    return at_ == end_;
  }

 private:
  // nlohmann's whitespace: space, tab, newline, carriage return.
  void SkipSpace() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) ++at_;
  }

  bool Value(json& out, int depth) {
    if (at_ == end_ || depth > kMaxDepth) return false;
    switch (*at_) {
      case '{':
        return Object(out, depth);
      case '[':
        return Array(out, depth);
      case '"': {
        std::string text;
        if (!String(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't':
        return Literal("true", true, out);
      case 'f':
        return Literal("false", false, out);
      case 'n':
        return Literal("null", nullptr, out);
      default:
        return Number(out);
    }
  }

  template <typename Value>
  bool Literal(std::string_view word, Value value, json& out) {
    if (static_cast<std::size_t>(end_ - at_) < word.size() ||
        std::string_view(at_, word.size()) != word) {
      return false;
    }
    at_ += word.size();
    out = value;
    return true;
  }

  bool Object(json& out, int depth) {
    ++at_;
    out = json(json::value_t::object);
    auto& object = out.get_ref<json::object_t&>();
    SkipSpace();
    if (at_ != end_ && *at_ == '}') {
      ++at_;
      return true;
    }
    for (;;) {
      SkipSpace();
      if (at_ == end_ || *at_ != '"') return false;
      std::string key;
      if (!String(key)) return false;
      SkipSpace();
      if (at_ == end_ || *at_ != ':') return false;
      ++at_;
      SkipSpace();
      json value;
      if (!Value(value, depth + 1)) return false;
      // A name given twice keeps its last value, as nlohmann's parser does.
      object.insert_or_assign(std::move(key), std::move(value));
      SkipSpace();
      if (at_ == end_) return false;
      if (*at_ == ',') {
        ++at_;
        continue;
      }
      if (*at_ != '}') return false;
      ++at_;
      return true;
    }
  }

  bool Array(json& out, int depth) {
    ++at_;
    out = json(json::value_t::array);
    auto& array = out.get_ref<json::array_t&>();
    SkipSpace();
    if (at_ != end_ && *at_ == ']') {
      ++at_;
      return true;
    }
    for (;;) {
      SkipSpace();
      json& item = array.emplace_back();
      if (!Value(item, depth + 1)) return false;
      SkipSpace();
      if (at_ == end_) return false;
      if (*at_ == ',') {
        ++at_;
        continue;
      }
      if (*at_ != ']') return false;
      ++at_;
      return true;
    }
  }

  // Four hex digits after \u.
  bool Hex4(unsigned& code) {
    if (end_ - at_ < 4) return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *at_++;
      code <<= 4;
      if (c >= '0' && c <= '9') {
        code |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        code |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        code |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  static void AppendUtf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // After a backslash.
  bool Escape(std::string& out) {
    if (at_ == end_) return false;
    switch (*at_++) {
      case '"':
        out += '"';
        return true;
      case '\\':
        out += '\\';
        return true;
      case '/':
        out += '/';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        break;
      default:
        return false;
    }
    unsigned code = 0;
    if (!Hex4(code)) return false;
    if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate alone
    if (code >= 0xD800 && code <= 0xDBFF) {
      // A high surrogate needs its low one right after.
      unsigned low = 0;
      if (end_ - at_ < 2 || at_[0] != '\\' || at_[1] != 'u') return false;
      at_ += 2;
      if (!Hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(out, code);
    return true;
  }

  // One UTF-8 sequence starting at a byte >= 0x80, checked as nlohmann's
  // lexer checks it (Unicode's well-formed sequences: no overlong forms, no
  // surrogates, nothing past U+10FFFF).
  bool Utf8(std::string& out) {
    const auto byte = [this](std::ptrdiff_t i) { return static_cast<unsigned char>(at_[i]); };
    const auto in = [](unsigned char c, unsigned char low, unsigned char high) {
      return c >= low && c <= high;
    };
    const unsigned char lead = byte(0);
    std::ptrdiff_t length = 0;
    unsigned char second_low = 0x80;
    unsigned char second_high = 0xBF;
    if (in(lead, 0xC2, 0xDF)) {
      length = 2;
    } else if (lead == 0xE0) {
      length = 3;
      second_low = 0xA0;
    } else if (in(lead, 0xE1, 0xEC) || in(lead, 0xEE, 0xEF)) {
      length = 3;
    } else if (lead == 0xED) {
      length = 3;
      second_high = 0x9F;
    } else if (lead == 0xF0) {
      length = 4;
      second_low = 0x90;
    } else if (in(lead, 0xF1, 0xF3)) {
      length = 4;
    } else if (lead == 0xF4) {
      length = 4;
      second_high = 0x8F;
    } else {
      return false;
    }
    if (end_ - at_ < length || !in(byte(1), second_low, second_high)) return false;
    for (std::ptrdiff_t i = 2; i < length; ++i) {
      if (!in(byte(i), 0x80, 0xBF)) return false;
    }
    out.append(at_, static_cast<std::size_t>(length));
    at_ += length;
    return true;
  }

  bool String(std::string& out) {
    ++at_;  // the opening quote
    for (;;) {
      const char* const run = at_;
      while (at_ != end_ && kPlain[static_cast<unsigned char>(*at_)]) ++at_;
      out.append(run, static_cast<std::size_t>(at_ - run));
      if (at_ == end_) return false;
      const auto c = static_cast<unsigned char>(*at_);
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c == '\\') {
        ++at_;
        if (!Escape(out)) return false;
      } else if (c < 0x20) {
        return false;  // a control character must be escaped
      } else if (!Utf8(out)) {
        return false;
      }
    }
  }

  // JSON's number grammar; integers as nlohmann types them (unsigned unless
  // negative), the rest through strtod as nlohmann's lexer calls it.
  bool Number(json& out) {
    const char* const start = at_;
    const auto digits = [this] {
      const char* const from = at_;
      while (at_ != end_ && *at_ >= '0' && *at_ <= '9') ++at_;
      return at_ != from;
    };
    const bool negative = at_ != end_ && *at_ == '-';
    if (negative) ++at_;
    if (at_ == end_) return false;
    if (*at_ == '0') {
      ++at_;
    } else if (*at_ >= '1' && *at_ <= '9') {
      digits();
    } else {
      return false;
    }
    bool integer = true;
    if (at_ != end_ && *at_ == '.') {
      ++at_;
      if (!digits()) return false;
      integer = false;
    }
    if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
      ++at_;
      if (at_ != end_ && (*at_ == '+' || *at_ == '-')) ++at_;
      if (!digits()) return false;
      integer = false;
    }
    const std::string token(start, at_);
    char* parsed_to = nullptr;
    errno = 0;
    if (integer && negative) {
      const long long value = std::strtoll(token.c_str(), &parsed_to, 10);
      if (errno != 0) return false;  // nlohmann reads it as a double: leave it to nlohmann
      out = static_cast<json::number_integer_t>(value);
    } else if (integer) {
      const unsigned long long value = std::strtoull(token.c_str(), &parsed_to, 10);
      if (errno != 0) return false;
      out = static_cast<json::number_unsigned_t>(value);
    } else {
      const double value = std::strtod(token.c_str(), &parsed_to);
      if (!std::isfinite(value)) return false;  // nlohmann's out-of-range error
      out = value;
    }
    return parsed_to == token.c_str() + token.size();
  }

  const char* at_;
  const char* const end_;
};

}  // namespace

std::optional<json> ReadPlainJson(std::string_view text) {
  json value;
  if (!Reader(text).Document(value)) return std::nullopt;
  return value;
}

}  // namespace togmal::util
