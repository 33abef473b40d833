// The `qeli` executable: forwards argv and the standard streams to run_cli().
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "crypto/random.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  qeli::cli::Context ctx{std::cout, std::cerr, std::cin, qeli::crypto::system_rng()};
  return qeli::cli::run_cli(args, ctx);
}
