// The page as the binary renders it: escaped, self-contained, the counts
// that are in the database, and the template filled in one pass.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include "chart.h"
#include "report_rows.h"
#include "store_test_support.h"
#include "togmal/report/report.h"
#include "togmal/store/database.h"

namespace togmal::report {
namespace {

using testing::DecisionRow;
using testing::OutcomeRow;

TEST(EscapeHtml, EscapesMarkupAndQuotes) {
  EXPECT_EQ(EscapeHtml("<script>alert('x\")</script> & more"),
            "&lt;script&gt;alert(&#39;x&quot;)&lt;/script&gt; &amp; more");
  EXPECT_EQ(EscapeHtml("plain text"), "plain text");
}

TEST(Chart, EveryDayOfThePeriodHasASlot) {
  std::map<std::string, store::DecisionCountMap> by_day = {
      {"2026-02-27", {{"allow", 2}, {"deny", 1}}}, {"2026-03-02", {{"ask", 3}}}};
  const std::string svg = DecisionChartSvg(by_day, "2026-02-27", "2026-03-02");
  // 27, 28 Feb, 1, 2 Mar: four days, across a month end.
  int days = 0;
  re2::StringPiece input(svg);
  while (RE2::FindAndConsume(&input, "<g class=\"day\">")) ++days;
  EXPECT_EQ(days, 4);
  EXPECT_NE(svg.find("2026-02-27 · allow 2 · pass 0 · ask 0 · deny 1"), std::string::npos);
  EXPECT_NE(svg.find("class=\"deny\""), std::string::npos);
  // The highest day (3) under round grid lines: 1, 2, 3, 4.
  EXPECT_NE(svg.find("text-anchor=\"end\">4</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("text-anchor=\"end\">5</text>"), std::string::npos) << svg;
  EXPECT_EQ(NextDay("2028-02-28"), "2028-02-29");
  EXPECT_NE(DecisionChartSvg({}, "2026-01-01", "2026-01-02").find("no decisions"),
            std::string::npos);
}

class RenderTest : public ::testing::Test {
 protected:
  void Add(const store::AuditEntry& entry) {
    auto id = log_.Append(entry);
    ASSERT_TRUE(id.ok()) << id.error();
  }
  std::string Render(const store::AuditFilter& filter = {}) {
    auto data = CollectReport(db_, filter, 1000);
    EXPECT_TRUE(data.ok()) << data.error();
    return data.ok() ? RenderReport(*data) : std::string();
  }
  store::testing::TempDatabase temp_;
  store::Database db_ = temp_.Open();
  store::AuditLog log_{db_};
};

TEST_F(RenderTest, ACommandIsShownAsTextNeverAsMarkup) {
  const std::string hostile = "echo \"<script>alert(1)</script>\" {{chart}} <img src=x>";
  Add(DecisionRow("2026-11-21T10:00:00.000000Z", "deny", hostile, "/p/<b>", "t1"));
  const std::string page = Render();
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // Substituted text is not scanned again: the placeholder stays text.
  EXPECT_NE(page.find("{{chart}}"), std::string::npos);
  EXPECT_EQ(page.find("{{period}}"), std::string::npos);
}

TEST_F(RenderTest, SelfContained) {
  Add(DecisionRow("2026-11-21T10:00:00.000000Z", "ask", "curl https://example.com", "/p", "t1"));
  const std::string page = Render();
  // Nothing that loads from elsewhere: no script, style sheet link, font or remote image.
  for (const char* loader :
       {"<script", "<link", "@import", "@font-face", "src=\"http", "url(http", "<iframe"}) {
    EXPECT_EQ(page.find(loader), std::string::npos) << loader;
  }
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

TEST_F(RenderTest, ShowsTheCountsTheAllowLinesAndTheSuggestion) {
  for (int i = 0; i < 3; ++i) {
    const std::string id = "n" + std::to_string(i);
    Add(DecisionRow("2026-11-21T10:0" + std::to_string(i) + ":00.000000Z", "ask",
                    "npm install pkg" + std::to_string(i), "/p", id));
    Add(OutcomeRow("2026-11-21T10:0" + std::to_string(i) + ":10.000000Z", "ran", id));
  }
  Add(DecisionRow("2026-11-21T11:00:00.000000Z", "deny", "rm -rf ~", "/p", "d1"));
  Add(DecisionRow("2026-11-21T11:01:00.000000Z", "allow", "ls", "/p", "l1"));
  Add(DecisionRow("2026-11-21T11:02:00.000000Z", "allow", "ls", "/p", "l2"));
  const std::string page = Render();
  EXPECT_NE(page.find("id=\"count-total\">6<"), std::string::npos);
  EXPECT_NE(page.find("id=\"count-allow\">2<"), std::string::npos);
  EXPECT_NE(page.find("id=\"count-ask\">3<"), std::string::npos);
  EXPECT_NE(page.find("id=\"count-deny\">1<"), std::string::npos);
  EXPECT_NE(page.find("id=\"approved\">3<"), std::string::npos);
  EXPECT_NE(page.find("approved <code>npm install …</code> 3 of 3 times"), std::string::npos)
      << page;
  const std::string deny_code =
      DecisionRow("", "deny", "rm -rf ~", "/p", "").detail["allow_code"].get<std::string>();
  EXPECT_NE(page.find("togmal allow " + deny_code + "<"), std::string::npos);
  EXPECT_NE(page.find("audit trail OK: 9 entries verified"), std::string::npos);
}

TEST_F(RenderTest, TheTaxonomyHasItsOwnSection) {
  store::EvidenceSubmission submission;
  submission.category = "dangerous_file_operations";
  submission.prompt = "clean up";
  submission.response = "rm -rf /";
  submission.description = "Deleted everything <b>at once</b>";
  submission.severity = "critical";
  auto stored = store::Taxonomy(db_).Submit(submission, &log_);
  ASSERT_TRUE(stored.ok()) << stored.error();
  const std::string page = Render();
  const std::size_t section = page.find("<section id=\"taxonomy\">");
  ASSERT_NE(section, std::string::npos);
  const std::string taxonomy = page.substr(section);
  EXPECT_NE(taxonomy.find("1 of 1000 entries"), std::string::npos);
  EXPECT_NE(taxonomy.find("<td>dangerous_file_operations</td><td class=\"n\">1</td>"),
            std::string::npos);
  EXPECT_NE(taxonomy.find("<td>critical</td><td class=\"n\">1</td>"), std::string::npos);
  EXPECT_NE(taxonomy.find("Deleted everything &lt;b&gt;at once&lt;/b&gt;"), std::string::npos);
}

TEST_F(RenderTest, AnEditedTrailShowsAsBroken) {
  Add(DecisionRow("2026-11-21T10:00:00.000000Z", "deny", "rm -rf ~", "/p", "d1"));
  Add(DecisionRow("2026-11-21T10:01:00.000000Z", "deny", "rm -rf /", "/p", "d2"));
  temp_.Raw().exec("UPDATE audit SET decision = 'allow' WHERE id = 1");
  const std::string page = Render();
  EXPECT_NE(page.find("audit trail BROKEN at entry #1"), std::string::npos);
}

}  // namespace
}  // namespace togmal::report
