// The course's commands end to end: `attention --example journey` and its errors.
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

TEST(CourseCli, AttentionJourneyPrintsTheBooksNumbers) {
  const RunResult r = run_tinylm("attention --example journey");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* part :
       {"[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]",
        "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]", "[0.4419, 0.6515, 0.5683]",
        "[0.3061, 0.8210]", "[ 0.5517  0.4483  0.0000  0.0000  0.0000  0.0000 ]"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
}

TEST(CourseCli, AttentionExampleWithoutNameIsTheHandout) {
  const RunResult r = run_tinylm("attention --example");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Q = [[1,0],[0,1],[1,1]]"), std::string::npos) << r.output;
  const RunResult bad = run_tinylm("attention --example nowhere");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("unknown example 'nowhere'"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace tinylm::testing
