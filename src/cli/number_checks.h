// SPDX-License-Identifier: Apache-2.0
// CLI11 validators for numeric flags: every number the user gives is finite and inside a stated range.
// CLI11's own PositiveNumber/NonNegativeNumber let NaN through (every comparison with NaN is false) and
// print DBL_MAX in full (a 309-digit number); these say "-T: nan is not a finite number" or
// "--link-gbps: 1e-300 is outside [0.001, 1e+06]" instead.
#pragma once

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace pipebench::checks {

// Ranges shared by several commands' flags (README "Limits").
inline constexpr double kMaxTimeoutSeconds = 1e6;                 // -T: about 11 days
inline constexpr double kMinTflops = 1e-3, kMaxTflops = 1e6;      // --tflops: achieved TFLOP/s per GPU
inline constexpr double kMinLinkGbps = 1e-3, kMaxLinkGbps = 1e6;  // --link-gbps: 1 MB/s to 1 PB/s
inline constexpr double kMaxLatencyUs = 1e6;                      // --link-latency-us: one second
inline constexpr double kMaxLayerMs = 1e6;                        // --fwd/--bwd-ms-per-layer, --optimizer-ms
inline constexpr double kMaxInt32 = 2147483647.0, kMaxInt64 = 9.2e18;

// A finite number in [lo, hi].
[[nodiscard]] CLI::Validator in_range(double lo, double hi);
// A finite number in (0, hi].
[[nodiscard]] CLI::Validator positive(double hi);
// A finite number in [0, hi].
[[nodiscard]] CLI::Validator non_negative(double hi);

// Adds a "finite number" check to every numeric option of `app` (CLI11 type INT, UINT, FLOAT or NUMBER),
// so that a flag without its own range still refuses nan, inf and overflowing literals such as 1e400.
void require_finite_numbers(CLI::App& app);

// Adds to every integer option of `app` (CLI11 type INT or UINT) the rule of Python's int(): decimal
// digits with an optional sign, leading zeros read as decimal. CLI11 alone reads "0x10" as 16, "1e3" as
// 1000 and "0016" as 14 (octal), which Megatron-LM's argparse (type=int) refuses or reads as 16: a plan
// must not take what the job would not, nor read it differently. (Python's digit-group underscores, "1_000",
// are refused: no launch script writes them.)
void require_decimal_integers(CLI::App& app);

// Adds to every integer option of `app` the rule of pipebench's own commands: decimal digits with an
// optional sign, and no leading 0. CLI11 alone reads "0x10" as 16 and "010" as 8, like nccl-tests' strtol
// (base 0), while Python and most people read 010 as 10: a count that one tool reads in octal and another
// in decimal is refused, as are hexadecimal ("0x10"), binary ("0b11") and exponents ("1e3"), each with one
// line naming the flag and the word, rather than read one way.
void require_plain_integers(CLI::App& app);

}  // namespace pipebench::checks
