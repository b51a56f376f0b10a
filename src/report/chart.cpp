#include "chart.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "togmal/report/report.h"

namespace togmal::report {
namespace {

constexpr int kWidth = 760, kHeight = 240;
constexpr int kLeft = 44, kRight = 8, kTop = 12, kBottom = 36;
constexpr std::size_t kMaxDays = 400;

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// The smallest 1, 2 or 5 times a power of ten that is at least `value`:
// grid lines at round numbers.
int64_t RoundStep(int64_t value) {
  for (int64_t power = 1;; power *= 10) {
    for (int64_t factor : {1, 2, 5}) {
      if (factor * power >= value) return factor * power;
    }
  }
}

}  // namespace

std::string NextDay(const std::string& day) {
  using namespace std::chrono;
  int y = 0;
  unsigned m = 0, d = 0;
  if (std::sscanf(day.c_str(), "%d-%u-%u", &y, &m, &d) != 3) return "9999-12-31";
  const year_month_day next{sys_days{year{y} / month{m} / std::chrono::day{d}} + days{1}};
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u", int{next.year()}, unsigned{next.month()},
                unsigned{next.day()});
  return buffer;
}

std::string DecisionChartSvg(const std::map<std::string, store::DecisionCountMap>& by_day,
                             const std::string& first_day, const std::string& last_day) {
  std::vector<std::string> days;
  for (std::string day = first_day; day <= last_day && days.size() < 100 * kMaxDays;
       day = NextDay(day)) {
    days.push_back(day);
  }
  // The newest days when the period is longer than a chart can show.
  if (days.size() > kMaxDays) days.erase(days.begin(), days.end() - kMaxDays);
  int64_t highest = 0;
  for (const std::string& day : days) {
    int64_t total = 0;
    if (auto found = by_day.find(day); found != by_day.end()) {
      for (const auto& [decision, count] : found->second) total += count;
    }
    highest = std::max(highest, total);
  }
  std::string svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 " + std::to_string(kWidth) +
                    " " + std::to_string(kHeight) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\" aria-label=\"Decisions per day\">\n";
  const int plot_width = kWidth - kLeft - kRight, plot_height = kHeight - kTop - kBottom;
  const int base = kTop + plot_height;
  svg += "<line class=\"axis\" x1=\"" + std::to_string(kLeft) + "\" y1=\"" + std::to_string(base) +
         "\" x2=\"" + std::to_string(kWidth - kRight) + "\" y2=\"" + std::to_string(base) +
         "\"/>\n";
  if (days.empty() || highest == 0) {
    svg += "<text class=\"note\" x=\"" + std::to_string(kWidth / 2) + "\" y=\"" +
           std::to_string(kTop + plot_height / 2) +
           "\" text-anchor=\"middle\">no decisions in this period</text>\n</svg>";
    return svg;
  }
  // Four grid lines at round numbers; the top one is the scale.
  const int64_t grid_step = RoundStep((highest + 3) / 4);
  const int64_t top = grid_step * 4;
  for (int step = 1; step <= 4; ++step) {
    const double y = base - plot_height * step / 4.0;
    const int64_t value = grid_step * step;
    svg += "<line class=\"grid\" x1=\"" + std::to_string(kLeft) + "\" y1=\"" + Number(y) +
           "\" x2=\"" + std::to_string(kWidth - kRight) + "\" y2=\"" + Number(y) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + std::to_string(kLeft - 6) + "\" y=\"" + Number(y + 4) +
           "\" text-anchor=\"end\">" + std::to_string(value) + "</text>\n";
  }
  const double slot = static_cast<double>(plot_width) / static_cast<double>(days.size());
  const double bar = std::max(1.0, slot * 0.8);
  const std::size_t label_every = std::max<std::size_t>(1, days.size() / 8);
  for (std::size_t i = 0; i < days.size(); ++i) {
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar) / 2;
    const auto found = by_day.find(days[i]);
    std::string title = days[i];
    double y = base;
    svg += "<g class=\"day\">";
    for (const char* decision : kDecisionOrder) {
      int64_t count = 0;
      if (found != by_day.end()) {
        if (auto c = found->second.find(decision); c != found->second.end()) count = c->second;
      }
      title += std::string(" · ") + decision + " " + std::to_string(count);
      if (count == 0) continue;
      const double height = plot_height * static_cast<double>(count) / static_cast<double>(top);
      y -= height;
      svg += "<rect class=\"" + std::string(decision) + "\" x=\"" + Number(x) + "\" y=\"" +
             Number(y) + "\" width=\"" + Number(bar) + "\" height=\"" + Number(height) + "\"/>";
    }
    svg += "<title>" + EscapeHtml(title) + "</title></g>\n";
    if (i % label_every == 0 || i + 1 == days.size()) {
      svg += "<text class=\"tick\" x=\"" + Number(x + bar / 2) + "\" y=\"" +
             std::to_string(base + 16) + "\" text-anchor=\"middle\">" +
             EscapeHtml(days[i].substr(5)) + "</text>\n";
    }
  }
  svg += "</svg>";
  return svg;
}

}  // namespace togmal::report
