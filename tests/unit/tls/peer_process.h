// Real peers for the TLS interop tests: a child process (openssl s_server, nginx) with its
// stdin and stdout on pipes, and a blocking loopback TCP client with timeouts. Test-only
// I/O; everything under test stays sans-I/O.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"

namespace qeli::tls::test {

class ChildProcess {
 public:
  /// Starts argv[0] (searched in PATH) with stdout+stderr merged into one pipe.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();  // SIGKILL + reap
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running() const { return pid_ > 0; }
  void write_stdin(const std::string& s);
  /// Reads output until it contains `needle` (true) or `timeout` passes (false).
  bool wait_for_output(const std::string& needle, std::chrono::milliseconds timeout);
  /// Everything the process printed so far.
  const std::string& output() const { return out_; }
  /// Reads whatever is available without blocking.
  void drain();

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_fd_ = -1;
  std::string out_;
};

/// A port number parsed from "ACCEPT host:PORT" in `text`, if present.
std::optional<int> accept_port(const std::string& text);

class TcpClient {
 public:
  /// Connects to 127.0.0.1:port; check ok().
  explicit TcpClient(int port);
  ~TcpClient();
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  bool send_all(ByteSpan b);
  /// Up to `max` bytes within `timeout`; empty on timeout; nullopt on EOF/error.
  std::optional<Bytes> recv_some(std::chrono::milliseconds timeout, std::size_t max = 65536);
  void shutdown_write();

 private:
  int fd_ = -1;
};

/// A listening loopback socket on an ephemeral port (for a peer that connects to us).
class TcpListener {
 public:
  TcpListener();
  ~TcpListener();
  int port() const { return port_; }
  /// Accepts one connection within `timeout`; -1 on timeout. The caller owns the fd.
  int accept_one(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  int port_ = 0;
};

/// A scratch directory removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs a shell command, returns its exit status (test setup: openssl req/x509).
int run_shell(const std::string& cmd);

}  // namespace qeli::tls::test
