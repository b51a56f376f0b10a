#pragma once
// Random JSON documents for the tests that compare util's JSON writer and
// reader with nlohmann: every type (signed and unsigned integers, floats),
// strings from the caller's list, nested a few levels.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace togmal::util {

inline nlohmann::json RandomJson(std::mt19937& random, const std::vector<std::string>& strings,
                                 int depth = 0) {
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  switch (depth > 3 ? pick(6) : pick(8)) {
    case 0:
      return nullptr;
    case 1:
      return pick(2) == 0;
    case 2:
      return static_cast<std::int64_t>(random()) - (1LL << 31);
    case 3:
      return static_cast<std::uint64_t>(random()) << 32 | random();
    case 4:
      return std::uniform_real_distribution<double>(-1e6, 1e6)(random);
    case 5:
      return strings[pick(strings.size())];
    case 6: {
      nlohmann::json array = nlohmann::json::array();
      for (std::size_t i = pick(4); i > 0; --i)
        array.push_back(RandomJson(random, strings, depth + 1));
      return array;
    }
    default: {
      nlohmann::json object = nlohmann::json::object();
      for (std::size_t i = pick(4); i > 0; --i) {
        object[strings[pick(strings.size())] + std::to_string(i)] =
            RandomJson(random, strings, depth + 1);
      }
      return object;
    }
  }
}

}  // namespace togmal::util
