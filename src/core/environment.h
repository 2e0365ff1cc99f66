// SPDX-License-Identifier: Apache-2.0
// The part of the environment a report may record: NCCL_*, CUDA_*, OMPI_*, PMIX_* only, and never the
// value of a variable whose name looks like a credential (nccl-tests' -J dumps everything). Redacted,
// whatever the case: a name holding PASS (PASSWD, PASSWORD, passphrase), CRED (credential), AUTH, KEY,
// SECRET or PRECONDITION (Open MPI's orte_precondition_transports is a per-job key), the word PW or PWD
// between underscores (CUDA_LICENSE_PW), or TOKEN as the name's last word (HF_TOKEN, --hf-token,
// AWS_SESSION_TOKEN, ?token=). TOKEN elsewhere is a piece of text, not a credential: Megatron's tokenizer
// arguments (--tokenizer-type, --tiktoken-pattern, --tiktoken-num-special-tokens) and its per-token ones
// (--moe-token-dispatcher-type, --max-tokens-to-oom) stay readable, and so do the names of a special
// token's text (--fim-eod-token, --fim-pad-token: kSpecialTokenWords before TOKEN). Kept despite the
// pattern: NCCL_IB_PKEY, the index of an InfiniBand partition key (a network setting that explains a run,
// not a credential).
// Values are inspected too (redacted_value): the password of a URL (`https://user:pass@host`) and the value
// of `name=value` whose name matches the rule above (`?token=x`, `;password=x`) are redacted wherever they are.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pipebench {

inline constexpr const char* kRedacted = "<redacted>";
inline constexpr const char* kSecretNameParts[] = {"PASS", "CRED", "AUTH", "KEY", "SECRET", "PRECONDITION"};
inline constexpr const char* kSecretNameWords[] = {"PW", "PWD"};
inline constexpr const char* kSecretLastWord = "TOKEN";
// Special tokens of tokenizers (Megatron's --fim-*-token, Hugging Face's bos/eos/pad/... tokens): the word
// before a last TOKEN that makes the name a token's text.
inline constexpr const char* kSpecialTokenWords[] = {"EOD", "EOS",  "BOS", "PAD",    "UNK",    "SEP",
                                                     "CLS", "MASK", "FIM", "PREFIX", "MIDDLE", "SUFFIX"};
inline constexpr const char* kHarmlessNames[] = {"NCCL_IB_PKEY"};

// True when a variable or flag name looks like a credential (the rules above), whatever its case.
[[nodiscard]] bool is_sensitive_name(std::string name);

// The text with URL credentials (`scheme://USERINFO@`) and the values of sensitive `name=value` pairs
// (up to the next `&`, `;`, `,`, space or quote) replaced by kRedacted; other text unchanged.
[[nodiscard]] std::string redacted_value(const std::string& text);

// From "NAME=value" entries (as in environ). Allowed names keep their value, sensitive ones are
// recorded as kRedacted, the rest are left out; kept values pass through redacted_value. OMPI_ARGV (the command line
// mpirun started) is kept with the values of sensitive flags redacted (core/command_line.h).
[[nodiscard]] std::map<std::string, std::string> allowed_environment(const std::vector<std::string>& entries);

// The same over this process's environ.
[[nodiscard]] std::map<std::string, std::string> allowed_environment();

}  // namespace pipebench
