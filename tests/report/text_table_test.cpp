// Number formats and table layout (report/text_table.h).
#include "report/text_table.h"

#include <gtest/gtest.h>

using namespace tinylm::report;

TEST(TextTable, NumberFormats) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1000), "1,000");
  EXPECT_EQ(with_commas(124439808), "124,439,808");
  EXPECT_EQ(with_commas(-17760), "-17,760");
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.50 KiB");
  EXPECT_EQ(human_bytes(3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(human_flops(1162094837760.0), "1.16 TFLOP");
  EXPECT_EQ(human_flops(884736), "884.7 kFLOP");
  EXPECT_EQ(percent(1, 8), "12.50%");
  EXPECT_EQ(percent(1, 0), "-");
}

TEST(TextTable, AlignsColumns) {
  TextTable t({"name", "count"}, {false, true});
  t.add_row({"a", "1"});
  t.add_heading("section");
  t.add_row({"longer name", "1,000"});
  t.add_rule();
  EXPECT_EQ(t.render(0),
            "name         count\n"
            "------------------\n"
            "a                1\n"
            "section\n"
            "longer name  1,000\n"
            "------------------\n");
}
