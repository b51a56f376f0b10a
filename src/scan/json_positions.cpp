#include "json_positions.h"

#include <cstddef>
#include <cstdint>

namespace togmal::scan {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void AppendUtf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// A cursor over valid JSON that counts lines and columns.
class Locator {
 public:
  Locator(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

  void Value(const std::string& pointer, int depth, std::map<std::string, TextPosition>& out) {
    SkipSpace();
    if (at_ >= text_.size()) return;
    out.emplace(pointer, TextPosition{line_, column_});
    const char c = text_[at_];
    if (c == '"') {
      String();
    } else if ((c == '{' || c == '[') && depth >= max_depth_) {
      SkipNested();
    } else if (c == '{') {
      Advance();
      for (;;) {
        SkipSpace();
        if (at_ >= text_.size()) return;
        if (text_[at_] == '}') {
          Advance();
          return;
        }
        if (text_[at_] == ',') {
          Advance();
          continue;
        }
        const std::string key = String();
        SkipSpace();
        if (at_ < text_.size() && text_[at_] == ':') Advance();
        Value(PointerAppend(pointer, key), depth + 1, out);
      }
    } else if (c == '[') {
      Advance();
      std::size_t index = 0;
      for (;;) {
        SkipSpace();
        if (at_ >= text_.size()) return;
        if (text_[at_] == ']') {
          Advance();
          return;
        }
        if (text_[at_] == ',') {
          Advance();
          continue;
        }
        Value(pointer + "/" + std::to_string(index++), depth + 1, out);
      }
    } else {
      while (at_ < text_.size() && !IsSpace(text_[at_]) && text_[at_] != ',' && text_[at_] != ']' &&
             text_[at_] != '}') {
        Advance();
      }
    }
  }

 private:
  void Advance() {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }
  void SkipSpace() {
    while (at_ < text_.size() && IsSpace(text_[at_])) Advance();
  }
  // A string at the cursor, decoded (enough to match keys).
  std::string String() {
    std::string out;
    if (at_ >= text_.size() || text_[at_] != '"') return out;
    Advance();
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_];
      Advance();
      if (c != '\\' || at_ >= text_.size()) {
        out.push_back(c);
        continue;
      }
      c = text_[at_];
      Advance();
      switch (c) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          std::uint32_t code = 0;
          for (int i = 0; i < 4 && at_ < text_.size(); ++i) {
            const char h = text_[at_];
            Advance();
            code =
                code * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          out.push_back(c);
      }
    }
    if (at_ < text_.size()) Advance();
    return out;
  }
  // Past a nested value too deep to record (strings may hold brackets).
  void SkipNested() {
    int open = 0;
    do {
      const char c = text_[at_];
      if (c == '"') {
        String();
        continue;
      }
      if (c == '{' || c == '[') ++open;
      if (c == '}' || c == ']') --open;
      Advance();
    } while (open > 0 && at_ < text_.size());
  }

  std::string_view text_;
  int max_depth_;
  std::size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::string BlankJsoncExtras(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  std::size_t last_comma = std::string::npos;  // a comma with only blanks since
  while (i < out.size()) {
    const char c = out[i];
    if (c == '"') {
      last_comma = std::string::npos;
      for (++i; i < out.size() && out[i] != '"'; ++i) {
        if (out[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      out[i++] = ' ';
      out[i++] = ' ';
      while (i < out.size() && !(out[i] == '*' && i + 1 < out.size() && out[i + 1] == '/')) {
        if (out[i] != '\n') out[i] = ' ';
        ++i;
      }
      for (int k = 0; k < 2 && i < out.size(); ++k) out[i++] = ' ';
      continue;
    }
    if (c == ',') {
      last_comma = i;
    } else if ((c == '}' || c == ']') && last_comma != std::string::npos) {
      out[last_comma] = ' ';
      last_comma = std::string::npos;
    } else if (!IsSpace(c)) {
      last_comma = std::string::npos;
    }
    ++i;
  }
  return out;
}

std::map<std::string, TextPosition> ValuePositions(std::string_view json, int max_depth) {
  std::map<std::string, TextPosition> out;
  Locator(json, max_depth).Value("", 0, out);
  return out;
}

int LineOfParseError(std::string_view message) {
  const std::size_t at = message.find("at line ");
  if (at == std::string_view::npos) return 0;
  int line = 0;
  for (std::size_t i = at + 8; i < message.size() && i < at + 17; ++i) {
    if (message[i] < '0' || message[i] > '9') break;
    line = line * 10 + (message[i] - '0');
  }
  return line;
}

std::string PointerAppend(std::string_view pointer, std::string_view key) {
  std::string out(pointer);
  out.push_back('/');
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace togmal::scan
