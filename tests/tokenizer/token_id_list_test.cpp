// parse_token_ids: the one reader of ids given as text (tokenize --decode, generate
// --prompt-ids).
#include "tokenizer/token_id_list.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace tinylm {
namespace {

using Ids = std::vector<int32_t>;

TEST(TokenIdList, ReadsCommasSpacesAndBrackets) {
  EXPECT_EQ(parse_token_ids("15496,11,995", "ids"), (Ids{15496, 11, 995}));
  EXPECT_EQ(parse_token_ids("15496, 11 995\n", "ids"), (Ids{15496, 11, 995}));
  EXPECT_EQ(parse_token_ids("[15496, 11]", "ids"), (Ids{15496, 11}));
  EXPECT_EQ(parse_token_ids(" 0\t2147483647 ", "ids"), (Ids{0, 2147483647}));
  EXPECT_EQ(parse_token_ids("007,,8", "ids"), (Ids{7, 8}));  // decimal, never octal
  EXPECT_EQ(parse_token_ids("", "ids"), Ids{});
  EXPECT_EQ(parse_token_ids(" , [ ]\n", "ids"), Ids{});
}

TEST(TokenIdList, NamesTheFirstItemThatIsNoId) {
  using testing::input_error;
  EXPECT_EQ(input_error([] { parse_token_ids("1,x,3", "--prompt-ids"); }),
            "--prompt-ids: 'x' is not a token id");
  for (const char* bad :
       {"-1", "+5", "12abc", "0x10", "1.5", "2147483648", "99999999999999999999999"}) {
    EXPECT_EQ(input_error([&] { parse_token_ids(std::string("4 ") + bad + " 5", "--decode"); }),
              std::string("--decode: '") + bad + "' is not a token id")
        << bad;
  }
}

}  // namespace
}  // namespace tinylm
