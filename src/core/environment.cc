// SPDX-License-Identifier: Apache-2.0
// Allow-listed environment capture for reports.
#include "core/environment.h"

#include <cctype>
#include <string>

#include "core/command_line.h"

extern char** environ;

namespace pipebench {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

bool is_sensitive_name(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* harmless : kHarmlessNames) {
    if (name == harmless) return false;
  }
  for (const char* part : kSecretNameParts) {
    if (name.find(part) != std::string::npos) return true;
  }
  // Short abbreviations only as a whole word between underscores: "PW" inside another word is no secret.
  const std::string words = "_" + name + "_";
  for (const char* word : kSecretNameWords) {
    if (words.find("_" + std::string(word) + "_") != std::string::npos) return true;
  }
  return false;
}

std::map<std::string, std::string> allowed_environment(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = e.substr(0, eq);
    if (!(starts_with(name, "NCCL_") || starts_with(name, "CUDA_") || starts_with(name, "OMPI_") ||
          starts_with(name, "PMIX_"))) {
      continue;
    }
    std::string value = e.substr(eq + 1);
    if (name == "OMPI_ARGV") value = redacted_arguments(split_words(value));
    out[name] = is_sensitive_name(name) ? kRedacted : value;
  }
  return out;
}

std::map<std::string, std::string> allowed_environment() {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  return allowed_environment(entries);
}

}  // namespace pipebench
