#include "togmal/util/yaml.h"

#include <utility>
#include <vector>

namespace togmal::util {
namespace {

// The first node that breaks `limits`, as an error message; "" if none.
std::string CheckLimits(const YAML::Node& root, const YamlLimits& limits) {
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
      return std::to_string(node.Mark().line + 1) + ": nested deeper than " +
             std::to_string(limits.max_depth) + " levels";
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

Result<YAML::Node> ParseYaml(std::string_view text, std::string_view source, YamlLimits limits) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Fail(std::string(source) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (std::string problem = CheckLimits(root, limits); !problem.empty()) {
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
