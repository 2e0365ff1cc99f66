// SPDX-License-Identifier: Apache-2.0
// The command line an output file records: quoted for a shell, credentials redacted like the environment.
#include "core/command_line.h"

#include <gtest/gtest.h>

#include "core/environment.h"

namespace pipebench {
namespace {

TEST(CommandLine, KeepsTheProgramNameAndQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(redacted_command_line({"/opt/pb/bin/pipebench", "bench", "-b", "8", "--title", "run 1", "it's"}),
            "pipebench bench -b 8 --title 'run 1' 'it'\\''s'");
  EXPECT_EQ(redacted_command_line({}), "");
}

TEST(CommandLine, RedactsTheValuesOfSensitiveFlagsAndVariables) {
  EXPECT_EQ(redacted_command_line({"pipebench", "plan", "--", "--wandb-api-key", "abc", "--num-layers", "32"}),
            "pipebench plan -- --wandb-api-key <redacted> --num-layers 32");
  EXPECT_EQ(redacted_command_line({"pipebench", "run", "--hf-token=abc", "NCCL_SECRET=x", "NCCL_DEBUG=INFO"}),
            "pipebench run --hf-token=<redacted> NCCL_SECRET=<redacted> NCCL_DEBUG=INFO");
  // A sensitive switch followed by another flag has no value to hide.
  EXPECT_EQ(redacted_command_line({"pipebench", "plan", "--", "--use-auth", "--fp16"}),
            "pipebench plan -- --use-auth --fp16");
  // A tokenizer is not a token.
  EXPECT_EQ(redacted_command_line({"pipebench", "plan", "--", "--tokenizer-type", "GPT2BPETokenizer"}),
            "pipebench plan -- --tokenizer-type GPT2BPETokenizer");
  EXPECT_EQ(redacted_command_line({"pipebench", "--=x", "-", "--"}), "pipebench --=x - --");
}

// Megatron's tokenizer and per-token arguments hold text, sizes and kinds, not credentials: a name that
// merely contains "token" stays readable (`--tiktoken-pattern v2`).
TEST(CommandLine, KeepsTokenizerAndPerTokenArgumentsReadable) {
  const std::vector<std::string> megatron = {"--tiktoken-pattern",
                                             "v2",
                                             "--tiktoken-num-special-tokens",
                                             "1000",
                                             "--moe-token-dispatcher-type",
                                             "alltoall",
                                             "--fim-eod-token",
                                             "<eod>",
                                             "--max-tokens-to-oom",
                                             "12000",
                                             "--tokenizer-model=/m/tok.model"};
  EXPECT_EQ(redacted_arguments(megatron),
            "--tiktoken-pattern v2 --tiktoken-num-special-tokens 1000 --moe-token-dispatcher-type alltoall "
            "--fim-eod-token '<eod>' --max-tokens-to-oom 12000 --tokenizer-model=/m/tok.model");
  // Credentials stay redacted: a token flag, a token variable, a token in a URL's query and its password.
  EXPECT_EQ(redacted_arguments({"--hf-token", "hf_abc", "HF_TOKEN=hf_x", "AWS_SESSION_TOKEN=s", "--token", "t"}),
            "--hf-token <redacted> HF_TOKEN=<redacted> AWS_SESSION_TOKEN=<redacted> --token <redacted>");
  EXPECT_EQ(redacted_arguments({"--tiktoken-pattern", "https://u:PW@h/p?access_token=T"}),
            "--tiktoken-pattern 'https://<redacted>@h/p?access_token='<redacted>");
}

TEST(CommandLine, RedactsCredentialsInsideValues) {
  EXPECT_EQ(redacted_command_line({"pipebench", "run", "--", "--load", "s3://AKIA:SECRET@bucket/x"}),
            "pipebench run -- --load 's3://<redacted>@bucket/x'");
  EXPECT_EQ(redacted_arguments({"--data-path", "/d?a=1&key=K"}), "--data-path '/d?a=1&key=<redacted>'");
}

TEST(CommandLine, SplitsOpenMpisArgvAndTheEnvironmentRedactsIt) {
  EXPECT_EQ(split_words("  bench  -b 8 "), (std::vector<std::string>{"bench", "-b", "8"}));
  const auto env = allowed_environment({"OMPI_ARGV=--hf-token abc plan -- --num-layers 2"});
  EXPECT_EQ(env.at("OMPI_ARGV"), "--hf-token <redacted> plan -- --num-layers 2");
  EXPECT_EQ(redacted_arguments({"--key", "k", "x"}), "--key <redacted> x");
}

TEST(CommandLine, ThisProcessIsTheTestBinary) {
  const std::string line = this_command_line();
  EXPECT_EQ(line.rfind("unit_tests", 0), 0u) << line;
}

// A URL with a password and a token= query: the word looks like NAME=value (its "name" ends in token), and
// that name is a URL too: the password before the token is redacted as well as the token's value.
TEST(CommandLine, AUrlWithAPasswordAndATokenQueryKeepsNeither) {
  const std::string shown = redacted_arguments({"--load", "s3://AKIA:SECRETPW@bucket/x?token=SECRETTOKEN"});
  EXPECT_EQ(shown.find("SECRET"), std::string::npos) << shown;
  EXPECT_NE(shown.find("bucket/x?token="), std::string::npos) << shown;
}

}  // namespace
}  // namespace pipebench
