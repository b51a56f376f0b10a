#include "togmal/util/yaml.h"

#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace togmal::util {
namespace {

// "LINE: " for messages (1-based, as editors count).
std::string LinePrefix(const YAML::Node& node) {
  return std::to_string(node.Mark().line + 1) + ": ";
}

// The second occurrence of a key in `map`, as "LINE: duplicate key …"; "" if
// every key is new. Keys are compared as the text togmal reads (`a`, "a" and
// 'a' are one key); a key that is not a scalar (`? [x, y]`) is never a
// setting's name, so it is not compared.
std::string FindDuplicateKey(const YAML::Node& map, std::string_view source) {
  std::map<std::string, int, std::less<>> first_line;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) continue;
    const int line = key.Mark().line + 1;
    auto [seen, inserted] = first_line.emplace(key.Scalar(), line);
    if (!inserted) {
      return LinePrefix(key) + "duplicate key \"" + key.Scalar() + "\" (also at " +
             std::string(source) + ":" + std::to_string(seen->second) +
             "; YAML readers disagree on which one counts)";
    }
  }
  return {};
}

// The first node that breaks `limits` or repeats a key of its map (unless
// `duplicates` allows it), as an error message; "" if none.
std::string CheckNodes(const YAML::Node& root, const YamlLimits& limits, DuplicateKeys duplicates,
                       std::string_view source) {
  std::size_t visited = 0;
  std::vector<std::pair<YAML::Node, std::size_t>> pending{{root, 0}};
  while (!pending.empty()) {
    auto [node, depth] = std::move(pending.back());
    pending.pop_back();
    if (++visited > limits.max_nodes) {
      return "more than " + std::to_string(limits.max_nodes) +
             " nodes once its aliases are expanded";
    }
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (depth + 1 > limits.max_depth) {
      return LinePrefix(node) + "nested deeper than " + std::to_string(limits.max_depth) +
             " levels";
    }
    if (node.IsMap() && duplicates == DuplicateKeys::kError) {
      if (std::string duplicate = FindDuplicateKey(node, source); !duplicate.empty()) {
        return duplicate;
      }
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (node.IsMap()) {
        pending.emplace_back(it->first, depth + 1);
        pending.emplace_back(it->second, depth + 1);
      } else {
        pending.emplace_back(*it, depth + 1);
      }
    }
  }
  return {};
}

nlohmann::json TypedScalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted or explicitly tagged: a string
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  const char first = text.front();
  if ((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.') {
    nlohmann::json number = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (number.is_number()) return number;
  }
  return text;
}

}  // namespace

Result<YAML::Node> ParseYaml(std::string_view text, std::string_view source, YamlLimits limits,
                             DuplicateKeys duplicates) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Fail(std::string(source) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (std::string problem = CheckNodes(root, limits, duplicates, source); !problem.empty()) {
    const bool has_line = problem.front() >= '0' && problem.front() <= '9';
    return Fail(std::string(source) + (has_line ? ":" : ": ") + problem);
  }
  return root;
}

nlohmann::json YamlToJson(const YAML::Node& node, YamlScalars scalars) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& entry : node) {
        object[entry.first.Scalar()] = YamlToJson(entry.second, scalars);
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const YAML::Node& item : node) array.push_back(YamlToJson(item, scalars));
      return array;
    }
    case YAML::NodeType::Scalar:
      return scalars == YamlScalars::kText ? nlohmann::json(node.Scalar()) : TypedScalar(node);
    default:
      return nullptr;
  }
}

}  // namespace togmal::util
