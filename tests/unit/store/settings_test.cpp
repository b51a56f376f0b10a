#include "togmal/store/settings.h"

#include <gtest/gtest.h>

#include "togmal/util/embedded.h"

namespace togmal::store {
namespace {

TEST(StoreSettings, DefaultsComeFromTheEmbeddedFile) {
  ASSERT_TRUE(util::FindEmbeddedFile("settings.yaml").has_value());
  auto parsed = ParseStoreSettings(*util::FindEmbeddedFile("settings.yaml"), "settings.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->taxonomy_capacity, 1000);
  EXPECT_EQ(parsed->audit_retention_days, 90);
  EXPECT_FALSE(parsed->audit_store_raw_input);
  EXPECT_FALSE(parsed->audit_sync_full) << "audit.sync: normal";
}

TEST(StoreSettings, AuditSyncIsNormalOrFull) {
  auto full = ParseStoreSettings("audit:\n  sync: full\n", "user.yaml");
  ASSERT_TRUE(full.ok()) << full.error();
  EXPECT_TRUE(full->audit_sync_full);
  auto normal = ParseStoreSettings("audit:\n  sync: normal\n", "user.yaml", *full);
  ASSERT_TRUE(normal.ok()) << normal.error();
  EXPECT_FALSE(normal->audit_sync_full);
  for (const char* bad :
       {"audit:\n  sync: always\n", "audit:\n  sync: [full]\n", "audit:\n  sync: FULL\n"}) {
    auto parsed = ParseStoreSettings(bad, "user.yaml");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error(), "user.yaml:2: audit.sync must be normal or full") << bad;
  }
}

TEST(StoreSettings, OverridesApplyOnTopOfTheBase) {
  StoreSettings base;
  base.taxonomy_capacity = 7;
  auto parsed = ParseStoreSettings("audit:\n  retention_days: 3\n  store_raw_input: true\n",
                                   "user.yaml", base);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->audit_retention_days, 3);
  EXPECT_TRUE(parsed->audit_store_raw_input);
  EXPECT_EQ(parsed->taxonomy_capacity, 7);
}

TEST(StoreSettings, ErrorsNameFileAndLine) {
  auto bad = ParseStoreSettings("server: {}\ntaxonomy:\n  capacity: lots\n", "user.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "user.yaml:3: taxonomy.capacity must be a number");
  auto range = ParseStoreSettings("audit:\n  retention_days: -1\n", "user.yaml");
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.error().find("user.yaml:2: audit.retention_days must be 0 to"), std::string::npos)
      << range.error();
  auto syntax = ParseStoreSettings("audit: [\n", "user.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().rfind("user.yaml:", 0), 0u) << syntax.error();
}

}  // namespace
}  // namespace togmal::store
