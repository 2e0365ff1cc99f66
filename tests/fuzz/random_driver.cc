// SPDX-License-Identifier: Apache-2.0
// A seeded random-mutation driver for the fuzz targets where libFuzzer (clang) is absent, and for the
// short run `make test` does: every corpus file as it is, then random mutations of them (bit flips,
// byte changes, inserted and removed runs, duplicated and spliced chunks, interesting numbers) until the
// time is up. A crash ends the process (as with libFuzzer); an input that runs longer than the per-input
// limit aborts it as a hang. The failing input is kept in a file named on stderr.
//
//   driver [-seconds S] [-seed N] [-timeout S] CORPUS_DIR...
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::string;

void on_alarm(int) {
  const char msg[] = "fuzz driver: an input ran past the per-input time limit (a hang)\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(70);
}

std::vector<Bytes> read_corpus(int argc, char** argv, int first) {
  std::vector<Bytes> corpus;
  for (int i = first; i < argc; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      corpus.push_back(ss.str());
    }
  }
  if (corpus.empty()) corpus.push_back("");
  return corpus;
}

Bytes mutate(const Bytes& seed, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
  static const char* kInteresting[] = {"0",
                                       "-1",
                                       "2147483647",
                                       "2147483648",
                                       "-2147483649",
                                       "9223372036854775807",
                                       "18446744073709551616",
                                       "1e308",
                                       "-1e18",
                                       "nan",
                                       "inf",
                                       "1e-300",
                                       "0x",
                                       "\"",
                                       "<",
                                       ">",
                                       "]",
                                       "}",
                                       "<!--",
                                       "&amp;",
                                       "\xff\xfe"};
  Bytes s = seed;
  const auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  const int rounds = 1 + static_cast<int>(rng() % 8);
  for (int r = 0; r < rounds; ++r) {
    switch (rng() % 7) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2:
        s.insert(pick(s.size() + 1), std::string(1 + pick(8), static_cast<char>(rng())));
        break;
      case 3:
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          s.erase(at, 1 + pick(std::min<std::size_t>(64, s.size() - at)));
        }
        break;
      case 4:
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          s.insert(pick(s.size() + 1), s.substr(at, 1 + pick(std::min<std::size_t>(256, s.size() - at))));
        }
        break;
      case 5: {
        const Bytes& other = corpus[pick(corpus.size())];
        if (!other.empty()) s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size()));
        break;
      }
      default:
        s.insert(pick(s.size() + 1), kInteresting[pick(sizeof kInteresting / sizeof *kInteresting)]);
    }
  }
  if (s.size() > (1u << 20)) s.resize(1u << 20);
  return s;
}

// The input is written to keep_path before it runs, so that a crash or hang leaves it behind.
void run_one(const std::string& keep_path, const Bytes& input, unsigned timeout_s) {
  {
    std::ofstream out(keep_path, std::ios::binary | std::ios::trunc);
    out << input;
  }
  alarm(timeout_s);
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  alarm(0);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  unsigned long long seed = 1;
  unsigned timeout_s = 10;
  int first = 1;
  for (; first + 1 < argc && argv[first][0] == '-'; first += 2) {
    if (std::strcmp(argv[first], "-seconds") == 0)
      seconds = std::atof(argv[first + 1]);
    else if (std::strcmp(argv[first], "-seed") == 0)
      seed = std::strtoull(argv[first + 1], nullptr, 10);
    else if (std::strcmp(argv[first], "-timeout") == 0)
      timeout_s = static_cast<unsigned>(std::atoi(argv[first + 1]));
    else
      break;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: %s [-seconds S] [-seed N] [-timeout S] CORPUS_DIR...\n", argv[0]);
    return 2;
  }
  const std::string keep = "/tmp/pipebench_fuzz_input_" + std::to_string(getpid());
  std::fprintf(stderr, "fuzz driver: the input under test is kept in %s while it runs\n", keep.c_str());
  signal(SIGALRM, on_alarm);
  const std::vector<Bytes> corpus = read_corpus(argc, argv, first);
  std::mt19937_64 rng(seed);
  long long runs = 0;
  for (const Bytes& c : corpus) run_one(keep, c, timeout_s), ++runs;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    run_one(keep, mutate(corpus[rng() % corpus.size()], corpus, rng), timeout_s);
    ++runs;
  }
  std::remove(keep.c_str());
  std::printf("fuzz driver: %lld inputs (%zu corpus files, seed %llu), 0 crashes, 0 hangs\n", runs, corpus.size(),
              seed);
  return 0;
}
