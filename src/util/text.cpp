#include "togmal/util/text.h"

#include <algorithm>
#include <iterator>

namespace togmal::util {

std::string Shorten(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

std::string AsciiLower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = AsciiLower(c);
  return lower;
}

bool IsStopword(std::string_view word) {
  static constexpr std::string_view kStopwords[] = {
      "the",   "and",   "for",    "are",   "but",   "not",   "you",  "your",  "with",  "this",
      "that",  "have",  "from",   "was",   "were",  "what",  "when", "which", "will",  "would",
      "can",   "could", "should", "there", "their", "they",  "them", "then",  "than",  "its",
      "has",   "had",   "how",    "all",   "any",   "our",   "out",  "who",   "why",   "into",
      "about", "just",  "also",   "some",  "been",  "being", "does", "did",   "these", "those"};
  return std::find(std::begin(kStopwords), std::end(kStopwords), word) != std::end(kStopwords);
}

std::string OneLine(std::string_view text, std::size_t max_bytes) {
  std::string line = Shorten(text, max_bytes);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return line;
}

std::string ShellQuote(std::string_view word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

}  // namespace togmal::util
