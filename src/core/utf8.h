// SPDX-License-Identifier: Apache-2.0
// UTF-8 checks for text read from input files: JSON output may only hold valid UTF-8 (RFC 8259 section
// 8.1), so a byte that is not part of well-formed UTF-8 (RFC 3629 section 4: no overlong form, no
// surrogate, nothing above U+10FFFF) is either refused with the file and field or replaced by U+FFFD.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pipebench {

[[nodiscard]] bool valid_utf8(std::string_view text);

// The text with each ill-formed byte replaced by U+FFFD; `replaced` (when given) gets how many.
[[nodiscard]] std::string utf8_replaced(std::string_view text, std::size_t* replaced = nullptr);

}  // namespace pipebench
