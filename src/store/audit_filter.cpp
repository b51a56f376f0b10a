// Time bounds for audit filters as people write them (the SQL that applies
// an AuditFilter is in audit_log.cpp, beside the other queries).
#include "togmal/store/audit_filter.h"

#include <cctype>
#include <ctime>

#include "togmal/store/audit_log.h"

namespace togmal::store {
namespace {

bool Digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

// YYYY-MM-DD[(T| )HH:MM[:SS]] with each part in its range.
bool IsDateTime(std::string_view text) {
  if (text.size() < 10 || !Digits(text.substr(0, 4)) || text[4] != '-' ||
      !Digits(text.substr(5, 2)) || text[7] != '-' || !Digits(text.substr(8, 2))) {
    return false;
  }
  const int month = std::stoi(std::string(text.substr(5, 2)));
  const int day = std::stoi(std::string(text.substr(8, 2)));
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (text.size() == 10) return true;
  if ((text[10] != 'T' && text[10] != ' ') || (text.size() != 16 && text.size() != 19)) {
    return false;
  }
  if (!Digits(text.substr(11, 2)) || text[13] != ':' || !Digits(text.substr(14, 2))) return false;
  if (std::stoi(std::string(text.substr(11, 2))) > 23 ||
      std::stoi(std::string(text.substr(14, 2))) > 59) {
    return false;
  }
  return text.size() == 16 || (text[16] == ':' && Digits(text.substr(17, 2)) &&
                               std::stoi(std::string(text.substr(17, 2))) <= 59);
}

}  // namespace

Result<std::string> ParseTimeBound(std::string_view text,
                                   std::chrono::system_clock::time_point now) {
  if (IsDateTime(text)) {
    std::string bound(text);
    if (bound.size() > 10) bound[10] = 'T';
    return bound;
  }
  if (text.size() >= 2 && text.size() <= 8 && Digits(text.substr(0, text.size() - 1))) {
    const long amount = std::stol(std::string(text.substr(0, text.size() - 1)));
    std::chrono::seconds unit{0};
    switch (text.back()) {
      case 's':
        unit = std::chrono::seconds(1);
        break;
      case 'm':
        unit = std::chrono::minutes(1);
        break;
      case 'h':
        unit = std::chrono::hours(1);
        break;
      case 'd':
        unit = std::chrono::hours(24);
        break;
      case 'w':
        unit = std::chrono::hours(24 * 7);
        break;
      default:
        break;
    }
    if (unit.count() > 0) return FormatAuditTime(now - amount * unit);
  }
  return Fail("'" + std::string(text) +
              "' is not a time: write a duration back from now (30m, 12h, 7d, 2w) or a UTC date "
              "(2026-11-27, 2026-11-27T14:00)");
}

std::string StartOfLocalDay(std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  ::localtime_r(&seconds, &local);
  local.tm_hour = 0;
  local.tm_min = 0;
  local.tm_sec = 0;
  local.tm_isdst = -1;
  return FormatAuditTime(std::chrono::system_clock::from_time_t(std::mktime(&local)));
}

}  // namespace togmal::store
