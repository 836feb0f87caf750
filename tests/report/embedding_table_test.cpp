// The course module's embedding-size table: vocabulary 32,100 at d = 128 ... 1,024.
#include "report/embedding_table.h"

#include <gtest/gtest.h>

namespace tinylm::report {
namespace {

TEST(EmbeddingTable, CourseModuleNumbers) {
  const auto rows = embedding_sizes(32100, {128, 256, 512, 1024});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].parameters, 4108800);
  EXPECT_EQ(rows[3].parameters, 32870400);
  const double mib[] = {15.67, 31.35, 62.70, 125.39};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(rows[i].mib, mib[i], 0.005) << i;
  const std::string text = render_embedding_table(32100, {128, 256, 512, 1024});
  for (const char* part :
       {"4,108,800", "4.1M", "8.2M", "16.4M", "32.9M", "15.67 MiB", "125.39 MiB"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

}  // namespace
}  // namespace tinylm::report
