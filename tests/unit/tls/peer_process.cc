#include "peer_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>

namespace qeli::tls::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(in[1]);
    close(out[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  in_ = in[1];
  out_fd_ = out[0];
  fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  pid_ = pid;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (in_ >= 0) close(in_);
  if (out_fd_ >= 0) close(out_fd_);
}

void ChildProcess::write_stdin(const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(in_, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void ChildProcess::drain() {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n <= 0) return;
    out_.append(buf, static_cast<std::size_t>(n));
  }
}

bool ChildProcess::wait_for_output(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    drain();
    if (out_.find(needle) != std::string::npos) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{out_fd_, POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
  }
}

std::optional<int> accept_port(const std::string& text) {
  static const std::regex re("ACCEPT [^\\s]*:([0-9]+)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return std::stoi(m[1]);
}

TcpClient::TcpClient(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd_);
    fd_ = -1;
    return;
  }
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

TcpClient::~TcpClient() {
  if (fd_ >= 0) close(fd_);
}

bool TcpClient::send_all(ByteSpan b) {
  std::size_t done = 0;
  while (done < b.size()) {
    const ssize_t n = send(fd_, b.data() + done, b.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<Bytes> TcpClient::recv_some(std::chrono::milliseconds timeout, std::size_t max) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return Bytes{};
  Bytes b(max);
  const ssize_t n = recv(fd_, b.data(), b.size(), 0);
  if (n <= 0) return std::nullopt;
  b.resize(static_cast<std::size_t>(n));
  return b;
}

void TcpClient::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

TcpListener::TcpListener() {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  listen(fd_, 8);
  socklen_t len = sizeof a;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) close(fd_);
}

int TcpListener::accept_one(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return -1;
  return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "qeli-tls-XXXXXX").string();
  if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

int run_shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace qeli::tls::test
