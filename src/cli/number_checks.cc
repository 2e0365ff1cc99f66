// SPDX-License-Identifier: Apache-2.0
// Numeric flag validators (see number_checks.h).
#include "cli/number_checks.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace pipebench::checks {
namespace {

// The value of a whole numeric word (1e400: infinite), or nullopt when the word is not one (CLI11 then
// reports the type).
std::optional<double> number_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

// strtod reads "0x1p3" as 8; Python's float(), Megatron's argparse and people do not: a hexadecimal number is
// refused with one line rather than read one way here and another there.
std::string hexadecimal(const std::string& text) {
  const std::size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  const bool hex = text.size() > sign + 1 && text[sign] == '0' && (text[sign + 1] == 'x' || text[sign + 1] == 'X');
  if (!hex) return {};
  return (text.size() > 24 ? text.substr(0, 24) + "..." : text) + " is not a decimal number (hexadecimal is not read)";
}

std::string bounds(bool open_low, double lo, double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%.4g, %.4g]", open_low ? "(" : "[", lo, hi);
  return buf;
}

// Refuses a word that is not a finite number (the word is echoed shortened: it may be a long literal).
std::string not_finite(const std::string& text) {
  return (text.size() > 24 ? text.substr(0, 24) + "..." : text) + " is not a finite number";
}

CLI::Validator range_check(double lo, double hi, bool open_low) {
  const std::string desc = "FINITE in " + bounds(open_low, lo, hi);
  return CLI::Validator(
      [lo, hi, open_low](std::string& text) -> std::string {
        if (std::string hex = hexadecimal(text); !hex.empty()) return hex;
        const std::optional<double> v = number_of(text);
        if (!v) return "'" + text + "' is not a number";
        if (!std::isfinite(*v)) return not_finite(text);
        if (*v < lo || *v > hi || (open_low && *v == lo)) return text + " is outside " + bounds(open_low, lo, hi);
        return {};
      },
      desc);
}

bool is_numeric_type(const std::string& full_type) {
  const std::string type = full_type.substr(0, full_type.find(':'));  // CLI11 appends validator descriptions
  return type == "INT" || type == "UINT" || type == "FLOAT" || type == "NUMBER" || type == "POSITIVE" ||
         type == "NONNEGATIVE";
}

}  // namespace

CLI::Validator in_range(double lo, double hi) { return range_check(lo, hi, false); }
CLI::Validator positive(double hi) { return range_check(0, hi, true); }
CLI::Validator non_negative(double hi) { return range_check(0, hi, false); }

void require_finite_numbers(CLI::App& app) {
  const CLI::Validator finite(
      [](std::string& text) -> std::string {
        const std::optional<double> v = number_of(text);
        return v && !std::isfinite(*v) ? not_finite(text) : std::string();
      },
      "");
  const CLI::Validator decimal([](std::string& text) { return hexadecimal(text); }, "");
  for (CLI::Option* opt : app.get_options([](const CLI::Option* o) { return o->get_type_size() != 0; })) {
    if (!is_numeric_type(opt->get_type_name())) continue;
    const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
    // Integers get their own decimal rule (require_plain_integers, require_decimal_integers), worded for them.
    if (type != "INT" && type != "UINT") opt->check(decimal);
    opt->check(finite);
  }
}

void require_decimal_integers(CLI::App& app) {
  const CLI::Validator decimal(
      [](std::string& text) -> std::string {
        const std::size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
        bool ok = text.size() > sign;
        for (std::size_t i = sign; ok && i < text.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(text[i]));
        if (!ok) return (text.size() > 24 ? text.substr(0, 24) + "..." : text) + " is not a decimal integer";
        // CLI11 reads a leading 0 as octal ("0016" as 14); Python's int() reads it as decimal.
        const std::size_t first = text.find_first_not_of('0', sign);
        text = text.substr(0, sign) + (first == std::string::npos ? "0" : text.substr(first));
        return {};
      },
      "");
  for (CLI::Option* opt : app.get_options([](const CLI::Option* o) { return o->get_type_size() != 0; })) {
    const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
    if (type == "INT" || type == "UINT") opt->transform(decimal);  // transform: the text it normalises is kept
  }
}

void require_plain_integers(CLI::App& app) {
  const CLI::Validator plain(
      [](std::string& text) -> std::string {
        const std::size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
        bool digits = text.size() > sign;
        for (std::size_t i = sign; digits && i < text.size(); ++i)
          digits = std::isdigit(static_cast<unsigned char>(text[i]));
        const std::string shown = text.size() > 24 ? text.substr(0, 24) + "..." : text;
        if (!digits) {
          const bool radix =
              text.size() > sign + 1 && text[sign] == '0' && std::isalpha(static_cast<unsigned char>(text[sign + 1]));
          return shown + " is not a decimal integer" +
                 (radix ? " (hexadecimal, octal and binary are not read: write the number in decimal)" : "");
        }
        if (text.size() > sign + 1 && text[sign] == '0') {
          return shown + ": a leading 0 (nccl-tests would read it as octal, Python as decimal): write it without";
        }
        return {};
      },
      "");
  for (CLI::Option* opt : app.get_options([](const CLI::Option* o) { return o->get_type_size() != 0; })) {
    const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
    if (type == "INT" || type == "UINT") opt->transform(plain);  // transform: runs before the option's own range
  }
}

}  // namespace pipebench::checks
