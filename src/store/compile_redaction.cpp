// Build-time tool: compiles config/redaction.yaml into constant C++ tables
// (redaction_tables.h), so that the redactor knows its options, names and
// token prefixes without a YAML parser in the hook. A malformed file fails the
// build with file:line.
//
//   togmal_compile_redaction <redaction.yaml> <output.cpp>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "togmal/util/build_tool.h"
#include "togmal/util/yaml.h"

namespace {

namespace tool = togmal::util::build_tool;

struct Failure {
  std::string message;
};

std::string At(const std::string& source, const YAML::Node& node) {
  return source + ":" + std::to_string(node.Mark().line + 1) + ": ";
}

std::vector<std::string> Strings(const YAML::Node& node, const std::string& source,
                                 const std::string& what) {
  if (!node || !node.IsSequence()) throw Failure{At(source, node) + what + " is not a list"};
  std::vector<std::string> out;
  for (const auto& item : node) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      throw Failure{At(source, item) + what + ": not a non-empty string"};
    }
    out.push_back(item.Scalar());
  }
  return out;
}

std::string StringArray(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : ", ") + tool::CppString(items[i]);
  }
  return out + "}";
}

// Emits `constexpr std::string_view NAME[] = {...};` and returns the span
// expression for it ("{}" when there is nothing: C++ has no empty arrays).
std::string EmitStrings(std::ostream& out, const std::string& name,
                        const std::vector<std::string>& items) {
  if (items.empty()) return "{}";
  out << "constexpr std::string_view " << name << "[] = " << StringArray(items) << ";\n";
  return name;
}

// `commands: [[gh, secret, set], …]` as arrays of words and one array of spans;
// each command's first word is added to `first_words`.
std::string EmitCommands(std::ostream& out, const YAML::Node& node, const std::string& source,
                         const std::string& name, std::set<std::string>& first_words) {
  if (!node) return "{}";
  if (!node.IsSequence()) throw Failure{At(source, node) + "commands is not a list of lists"};
  std::vector<std::string> spans;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const auto words = Strings(node[i], source, "a command");
    if (words.empty()) throw Failure{At(source, node[i]) + "an empty command"};
    first_words.insert(words[0]);
    const std::string words_name = name + "_" + std::to_string(i);
    EmitStrings(out, words_name, words);
    spans.push_back("CommandWords(" + words_name + ")");
  }
  if (spans.empty()) return "{}";
  out << "constexpr CommandWords " << name << "[] = {";
  for (std::size_t i = 0; i < spans.size(); ++i) out << (i == 0 ? "" : ", ") << spans[i];
  out << "};\n";
  return name;
}

void CheckKeys(const YAML::Node& node, const std::string& source,
               const std::vector<std::string>& known) {
  if (!node.IsMap()) throw Failure{At(source, node) + "not a map"};
  for (const auto& entry : node) {
    bool found = false;
    for (const auto& key : known) found = found || entry.first.Scalar() == key;
    if (!found) throw Failure{At(source, entry.first) + "unknown key " + entry.first.Scalar()};
  }
}

std::string Compile(const YAML::Node& root, const std::string& source) {
  CheckKeys(root, source, {"token_prefixes", "secret_names", "secret_options", "setters"});
  std::ostringstream body;
  std::set<std::string> first_words;

  const std::map<std::string, std::string> kChars = {{"alnum", "kAlnum"},
                                                     {"word", "kWord"},
                                                     {"dashed", "kDashed"},
                                                     {"alnum_dash", "kAlnumDash"},
                                                     {"upper_digit", "kUpperDigit"},
                                                     {"dotted", "kDotted"}};
  const YAML::Node prefixes = root["token_prefixes"];
  if (!prefixes || !prefixes.IsSequence() || prefixes.size() == 0) {
    throw Failure{At(source, root) + "token_prefixes is not a non-empty list"};
  }
  body << "constexpr TokenPrefix kTokenPrefixes[] = {\n";
  for (const auto& entry : prefixes) {
    CheckKeys(entry, source, {"prefix", "chars", "min", "max"});
    const auto chars = kChars.find(entry["chars"] ? entry["chars"].Scalar() : "");
    if (!entry["prefix"] || entry["prefix"].Scalar().empty() || chars == kChars.end() ||
        !entry["min"]) {
      throw Failure{At(source, entry) + "a token prefix needs prefix, chars (" +
                    "alnum|word|dashed|alnum_dash|upper_digit|dotted) and min"};
    }
    const int min = entry["min"].as<int>();
    const int max = entry["max"] ? entry["max"].as<int>() : 0;
    if (min < 1 || min > 1000 || max < 0 || (max != 0 && max < min) || max > 1000) {
      throw Failure{At(source, entry) + "min must be 1-1000, max 0 or min-1000"};
    }
    body << "    {" << tool::CppString(entry["prefix"].Scalar())
         << ", TokenChars::" << chars->second << ", " << min << ", " << max << "},\n";
  }
  body << "};\n";

  const YAML::Node names = root["secret_names"];
  if (!names) throw Failure{At(source, root) + "secret_names is missing"};
  CheckKeys(names, source, {"contains", "parts", "key_suffix_except", "members"});
  const std::string contains =
      EmitStrings(body, "kContains", Strings(names["contains"], source, "contains"));
  const std::string parts = EmitStrings(body, "kParts", Strings(names["parts"], source, "parts"));
  const std::string except = EmitStrings(
      body, "kKeySuffixExcept", Strings(names["key_suffix_except"], source, "key_suffix_except"));
  const std::string members =
      EmitStrings(body, "kMembers", Strings(names["members"], source, "members"));

  const YAML::Node options = root["secret_options"];
  if (!options || !options.IsSequence()) throw Failure{At(source, root) + "secret_options: a list"};
  std::vector<std::string> option_entries;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const YAML::Node entry = options[i];
    CheckKeys(entry, source, {"commands", "options", "value"});
    const std::string index = std::to_string(i);
    const std::string commands =
        EmitCommands(body, entry["commands"], source, "kOptionCommands" + index, first_words);
    const auto spellings = Strings(entry["options"], source, "options");
    for (const auto& option : spellings) {
      if (option.size() < 2 || option[0] != '-') {
        throw Failure{At(source, entry["options"]) + option + ": an option starts with -"};
      }
    }
    const std::string option_names = EmitStrings(body, "kOptions" + index, spellings);
    const std::string value = entry["value"] ? entry["value"].Scalar() : "both";
    const std::map<std::string, std::string> kValues = {
        {"both", "kBoth"}, {"attached", "kAttached"}, {"separate", "kSeparate"}};
    if (!kValues.contains(value)) {
      throw Failure{At(source, entry["value"]) + "value is both, attached or separate"};
    }
    option_entries.push_back("{" + commands + ", " + option_names +
                             ", OptionValue::" + kValues.at(value) + "}");
  }
  body << "constexpr SecretOptions kSecretOptions[] = {\n";
  for (const auto& entry : option_entries) body << "    " << entry << ",\n";
  body << "};\n";

  const YAML::Node setters = root["setters"];
  if (!setters || !setters.IsSequence()) throw Failure{At(source, root) + "setters: a list"};
  std::vector<std::string> setter_entries;
  for (std::size_t i = 0; i < setters.size(); ++i) {
    const YAML::Node entry = setters[i];
    CheckKeys(entry, source, {"commands", "names"});
    if (!entry["commands"] || entry["commands"].size() == 0) {
      throw Failure{At(source, entry) + "a setter needs commands"};
    }
    const std::string commands = EmitCommands(body, entry["commands"], source,
                                              "kSetterCommands" + std::to_string(i), first_words);
    const std::string names_kind = entry["names"] ? entry["names"].Scalar() : "secret";
    if (names_kind != "secret" && names_kind != "any") {
      throw Failure{At(source, entry["names"]) + "names is secret or any"};
    }
    setter_entries.push_back("{" + commands + ", " + (names_kind == "any" ? "true" : "false") +
                             "}");
  }
  body << "constexpr Setters kSetters[] = {\n";
  for (const auto& entry : setter_entries) body << "    " << entry << ",\n";
  body << "};\n";

  const std::string command_names = EmitStrings(
      body, "kCommandNames", std::vector<std::string>(first_words.begin(), first_words.end()));

  std::ostringstream out;
  out << "// Generated from config/redaction.yaml by togmal_compile_redaction. Do not edit.\n"
      << "#include \"redaction_tables.h\"\n\nnamespace togmal::store::redaction {\nnamespace {\n\n"
      << body.str() << "\n}  // namespace\n\n"
      << "const Tables kTables = {kTokenPrefixes, {" << contains << ", " << parts << ", " << except
      << ", " << members << "}, kSecretOptions, kSetters, " << command_names << "};\n\n"
      << "}  // namespace togmal::store::redaction\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  const auto yaml = tool::ReadInput(argc, argv, "togmal_compile_redaction", exit_code);
  if (!yaml) return exit_code;
  auto root = togmal::util::ParseYaml(*yaml, argv[1]);
  if (!root) {
    std::cerr << root.error() << "\n";
    return tool::kDataErr;
  }
  std::string generated;
  try {
    generated = Compile(*root, argv[1]);
  } catch (const Failure& failure) {
    std::cerr << failure.message << "\n";
    return tool::kDataErr;
  } catch (const YAML::Exception& error) {
    std::cerr << argv[1] << ":" << error.mark.line + 1 << ": " << error.what() << "\n";
    return tool::kDataErr;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << generated;
  return out ? 0 : tool::kCantCreat;
}
