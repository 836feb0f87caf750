// Token ids written as text, the one way every verb reads them (`tinylm tokenize
// --decode`, `tinylm generate --prompt-ids`): decimal ids separated by commas and/or white
// space, brackets allowed around them ("15496,11,995", "15496, 11 995", "[15496, 11]");
// a run of separators counts as one. Each id is plain digits (no sign, no "0x") with a
// value in [0, 2^31 - 1].
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// The ids in text, in order (none for a text of separators only). InputError
// "<what>: '<item>' is not a token id" for the first item that is not one.
std::vector<int32_t> parse_token_ids(std::string_view text, const std::string& what);

}  // namespace tinylm
