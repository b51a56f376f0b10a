// A small scanner that finds where each value of a (valid) JSON text starts
// and ends, and edits that touch only those bytes. nlohmann::json keeps no
// positions, and re-serialising would lay the whole file out anew.
#include "togmal/install/json_text.h"

#include <charconv>

namespace togmal::install {

struct JsonText::Node {
  std::size_t begin = 0;  ///< the value's first byte
  std::size_t end = 0;    ///< one past its last byte
  char kind = 0;          ///< '{', '[', '"', or 0 for a number or literal
  std::vector<std::string> keys;
  std::vector<std::size_t> key_begins;  ///< where each member's key starts
  std::vector<std::size_t> key_ends;    ///< one past each key's closing quote
  std::vector<Node> children;

  std::size_t ChildBegin(std::size_t i) const {
    return kind == '{' ? key_begins[i] : children[i].begin;
  }
};

namespace {

using Node = JsonText::Node;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  Node Value() {
    Skip();
    Node node;
    node.begin = at_;
    if (at_ >= text_.size()) return node;
    const char c = text_[at_];
    node.kind = c == '{' || c == '[' || c == '"' ? c : 0;
    if (c == '"') {
      String();
    } else if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++at_;
      Skip();
      while (at_ < text_.size() && text_[at_] != close) {
        if (c == '{') {
          const std::size_t key_begin = at_;
          String();
          node.key_begins.push_back(key_begin);
          node.key_ends.push_back(at_);
          node.keys.push_back(
              OrderedJson::parse(text_.substr(key_begin, at_ - key_begin)).get<std::string>());
          Skip();
          if (at_ < text_.size() && text_[at_] == ':') ++at_;
        }
        node.children.push_back(Value());
        Skip();
        if (at_ < text_.size() && text_[at_] == ',') ++at_;
        Skip();
      }
      ++at_;
    } else {
      while (at_ < text_.size() && !IsSpace(text_[at_]) && text_[at_] != ',' && text_[at_] != '}' &&
             text_[at_] != ']') {
        ++at_;
      }
    }
    node.end = std::min(at_, text_.size());
    return node;
  }

 private:
  void Skip() {
    while (at_ < text_.size() && IsSpace(text_[at_])) ++at_;
  }
  void String() {
    ++at_;
    while (at_ < text_.size() && text_[at_] != '"') at_ += text_[at_] == '\\' ? 2U : 1U;
    ++at_;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

// The whitespace that starts the line `at` is on.
std::string LineIndent(std::string_view text, std::size_t at) {
  const std::size_t newline = text.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  std::size_t end = start;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return std::string(text.substr(start, end - start));
}

std::string PathText(const JsonPath& path) {
  std::string text;
  for (const std::string& part : path) text += "/" + part;
  return text.empty() ? "/" : text;
}

// On one line, in the file's spacing.
void RenderLine(const OrderedJson& value, bool spaced, std::string& out) {
  const char* item = spaced ? ", " : ",";
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, child] : value.items()) {
      if (!first) out += item;
      first = false;
      out += OrderedJson(key).dump() + (spaced ? ": " : ":");
      RenderLine(child, spaced, out);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += item;
      RenderLine(value[i], spaced, out);
    }
    out += ']';
  } else {
    out += value.dump();
  }
}

}  // namespace

JsonText::JsonText(std::string text, JsonStyle style) : text_(std::move(text)), style_(style) {
  if (text_.find("\r\n") != std::string::npos) eol_ = "\r\n";
  // A one-line file's spacing: what follows its first ':' outside a string.
  bool in_string = false;
  for (std::size_t i = 0; i < text_.size(); ++i) {
    const char c = text_[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ':') {
      spaced_ = i + 1 < text_.size() && IsSpace(text_[i + 1]);
      break;
    }
  }
}

OrderedJson JsonText::Value() const { return OrderedJson::parse(text_); }

Result<JsonText::Node> JsonText::Find(const JsonPath& at) const {
  Node node = Scanner(text_).Value();
  for (std::size_t depth = 0; depth < at.size(); ++depth) {
    const std::string& part = at[depth];
    std::size_t index = node.children.size();
    if (node.kind == '{') {
      // nlohmann keeps the last of two equal keys: so does this.
      for (std::size_t i = 0; i < node.keys.size(); ++i) {
        if (node.keys[i] == part) index = i;
      }
    } else if (node.kind == '[') {
      std::from_chars(part.data(), part.data() + part.size(), index);
    }
    if (index >= node.children.size()) {
      return Fail(PathText({at.begin(), at.begin() + static_cast<std::ptrdiff_t>(depth) + 1}) +
                  " is not there");
    }
    Node child = std::move(node.children[index]);
    node = std::move(child);
  }
  return node;
}

std::string JsonText::Render(const OrderedJson& value, const std::string& indent) const {
  std::string text = value.dump(style_.indent < 0 ? 2 : style_.indent, style_.indent_char);
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += eol_ + indent;
    } else {
      out += c;
    }
  }
  return out;
}

Result<void> JsonText::Insert(const JsonPath& container, const std::string* key,
                              const OrderedJson& value) {
  auto found = Find(container);
  if (!found) return Fail(found.error());
  const Node& node = *found;
  if (node.kind != (key != nullptr ? '{' : '[')) {
    return Fail(PathText(container) + " is not " + (key != nullptr ? "an object" : "an array"));
  }
  const std::size_t open = node.begin;
  const std::size_t close = node.end - 1;
  std::string key_text;
  if (key != nullptr) {
    std::string separator = spaced_ || style_.indent >= 0 ? ": " : ":";
    if (!node.children.empty()) {
      // As the siblings write it ("key": value, "key" : value, …).
      separator =
          text_.substr(node.key_ends.back(), node.children.back().begin - node.key_ends.back());
    }
    key_text = OrderedJson(*key).dump() + separator;
  }
  if (node.children.empty()) {
    // Nothing to imitate inside: a file laid out on lines gets lines, a
    // one-line file (or container written on one line) stays on one line.
    const bool one_line = style_.indent < 0;
    std::string inside;
    if (one_line) {
      RenderLine(value, spaced_, inside);
      inside = key_text + inside;
    } else {
      const std::string outer = LineIndent(text_, open);
      const std::string unit(static_cast<std::size_t>(style_.indent), style_.indent_char);
      inside = eol_ + outer + unit + key_text + Render(value, outer + unit) + eol_ + outer;
    }
    text_.replace(open + 1, close - (open + 1), inside);
    return {};
  }
  const std::size_t first = node.ChildBegin(0);
  const std::string lead = text_.substr(open + 1, first - (open + 1));
  const std::size_t newline = lead.rfind('\n');
  std::string addition;
  if (newline != std::string::npos) {
    const std::string indent = lead.substr(newline + 1);
    addition = "," + eol_ + indent + key_text + Render(value, indent);
  } else {
    std::string separator = spaced_ ? ", " : ",";
    if (node.children.size() >= 2) {
      const std::size_t n = node.children.size();
      separator =
          text_.substr(node.children[n - 2].end, node.ChildBegin(n - 1) - node.children[n - 2].end);
    }
    std::string line;
    RenderLine(value, spaced_, line);
    addition = separator + key_text + line;
  }
  text_.insert(node.children.back().end, addition);
  return {};
}

Result<void> JsonText::AddMember(const JsonPath& object, const std::string& key,
                                 const OrderedJson& value) {
  return Insert(object, &key, value);
}

Result<void> JsonText::AppendElement(const JsonPath& array, const OrderedJson& value) {
  return Insert(array, nullptr, value);
}

Result<void> JsonText::Replace(const JsonPath& at, const OrderedJson& value) {
  auto found = Find(at);
  if (!found) return Fail(found.error());
  const std::string old = text_.substr(found->begin, found->end - found->begin);
  std::string now;
  if (old.find('\n') == std::string::npos) {
    RenderLine(value, spaced_, now);
  } else {
    now = Render(value, LineIndent(text_, found->begin));
  }
  text_.replace(found->begin, found->end - found->begin, now);
  return {};
}

Result<void> JsonText::Remove(const JsonPath& at) {
  if (at.empty()) return Fail("the top level cannot be removed");
  auto parent = Find({at.begin(), at.end() - 1});
  if (!parent) return Fail(parent.error());
  const Node& node = *parent;
  std::size_t index = node.children.size();
  if (node.kind == '{') {
    for (std::size_t i = 0; i < node.keys.size(); ++i) {
      if (node.keys[i] == at.back()) index = i;
    }
  } else if (node.kind == '[') {
    std::from_chars(at.back().data(), at.back().data() + at.back().size(), index);
  }
  if (index >= node.children.size()) return Fail(PathText(at) + " is not there");
  const std::size_t n = node.children.size();
  if (n == 1) {
    // The container is left empty, written `{}` / `[]`.
    text_.erase(node.begin + 1, node.end - 1 - (node.begin + 1));
  } else if (index > 0) {
    // From the end of the one before: its comma, the line break, this one.
    const std::size_t from = node.children[index - 1].end;
    text_.erase(from, node.children[index].end - from);
  } else {
    const std::size_t from = node.ChildBegin(0);
    text_.erase(from, node.ChildBegin(1) - from);
  }
  return {};
}

}  // namespace togmal::install
