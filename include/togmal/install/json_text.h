#pragma once
/// A JSON settings file edited as text: members and elements are added,
/// replaced and removed where they stand, and every other byte (spacing,
/// line breaks, the way numbers and strings are written) stays as the person
/// left it. What is added imitates the layout around it: the indentation of
/// its siblings, one line when the file is one line.
///
/// The text must already be valid JSON (LoadJsonFile checked it); paths are
/// object keys and array indices as in OrderedJson.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/install/json_file.h"
#include "togmal/util/result.h"

namespace togmal::install {

/// A path into the document: object keys and, for arrays, decimal indices.
using JsonPath = std::vector<std::string>;

class JsonText {
 public:
  /// `text` is the file as read; `style` its layout (JsonStyle of
  /// LoadJsonFile), used where nothing nearby shows how to lay out an addition.
  JsonText(std::string text, JsonStyle style);

  /// Where a value lies in the text (defined in json_text.cpp).
  struct Node;

  const std::string& text() const { return text_; }
  /// The document as parsed now.
  OrderedJson Value() const;

  /// Adds `key: value` at the end of the object at `object`.
  Result<void> AddMember(const JsonPath& object, const std::string& key, const OrderedJson& value);
  /// Adds `value` at the end of the array at `array`.
  Result<void> AppendElement(const JsonPath& array, const OrderedJson& value);
  /// Replaces the value at `at` (a member's value or an element).
  Result<void> Replace(const JsonPath& at, const OrderedJson& value);
  /// Removes the member or element at `at`, with the comma that joined it.
  Result<void> Remove(const JsonPath& at);

 private:
  Result<Node> Find(const JsonPath& at) const;
  Result<void> Insert(const JsonPath& container, const std::string* key, const OrderedJson& value);
  std::string Render(const OrderedJson& value, const std::string& indent) const;

  std::string text_;
  JsonStyle style_;
  bool spaced_ = true;      ///< one-line layout: ", " and ": " rather than "," and ":"
  std::string eol_ = "\n";  ///< "\r\n" in a file written with Windows line ends
};

}  // namespace togmal::install
