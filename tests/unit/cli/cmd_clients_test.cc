// The control-socket commands (kick, enable-user, unblock) run in-process against a real
// ControlServer answering with the server's real handler (users and lockouts, no profile
// running): what the operator reads and the exit code for each refusal.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli.h"
#include "control/control_socket.h"
#include "crypto/random.h"
#include "server/control_handler.h"
#include "temp_dir.h"

namespace qeli::cli {
namespace {

struct Answer {
  int rc;
  std::string out;
  std::string err;
};

class ClientsCommandTest : public ::testing::Test {
 protected:
  ClientsCommandTest()
      : users_(make_users()),
        guard_({true, 1, std::chrono::seconds(300), std::chrono::seconds(900), 20, true}) {}

  void SetUp() override {
    socket_ = tmp_.file("control.sock");
    auto st = server_.start(socket_, handler_, control::host_access_policy(std::nullopt));
    ASSERT_TRUE(st.ok()) << st.error();
  }

  static server::UserSnapshot make_users() {
    server::UserSnapshot s;
    config::UserConfig alice;
    alice.name = "alice";
    s.users = {alice};
    return s;
  }

  Answer run(std::vector<std::string> args) {
    args.insert(args.end(), {"--socket", socket_});
    return run_raw(std::move(args));
  }
  static Answer run_raw(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    std::istringstream in;
    Context ctx{out, err, in, crypto::system_rng()};
    const int rc = run_cli(args, ctx);
    return {rc, out.str(), err.str()};
  }

  test::TempDir tmp_;
  std::string socket_;
  std::vector<std::unique_ptr<server::ProfileRuntime>> profiles_;
  server::UserDirectory users_;
  server::AuthGuard guard_;
  const Instant now_{std::chrono::seconds(1000)};
  server::ControlHandler handler_{
      server::ControlTargets{.profiles = &profiles_, .users = &users_, .guard = &guard_},
      [this] { return now_; }};
  control::ControlServer server_;  // last: stops serving before the parts it uses go
};

TEST_F(ClientsCommandTest, KickNeedsAKnownUser) {
  auto r = run({"kick", "nobody"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no user 'nobody'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = run({"kick", "alice"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "kicked 0 session(s)\n");
}

TEST_F(ClientsCommandTest, EnableUserNeedsAKnownUser) {
  auto r = run({"enable-user", "nobody"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no user 'nobody'"), std::string::npos) << r.err;
  r = run({"enable-user", "alice"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "'alice' was not disabled\n");
  ASSERT_EQ(run({"disable-user", "alice"}).rc, 0);
  r = run({"enable-user", "alice"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "enabled 'alice'\n");
}

TEST_F(ClientsCommandTest, UnblockNamesWhatIsWrong) {
  auto r = run({"unblock", "999.1.1.1"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("999.1.1.1 is not an IPv4 address"), std::string::npos) << r.err;
  r = run({"unblock", "--all", "1.2.3.4"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("give either an IP address or --all, not both"), std::string::npos) << r.err;
  r = run({"unblock"});
  EXPECT_EQ(r.rc, 2);
  guard_.record_failure(server::source_key(transport::SockAddr::ipv4(0x01020304, 0)), "bob", now_);
  ASSERT_TRUE(
      guard_.locked_out(server::source_key(transport::SockAddr::ipv4(0x01020304, 0)), now_));
  r = run({"unblock", "1.2.3.4"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(
      guard_.locked_out(server::source_key(transport::SockAddr::ipv4(0x01020304, 0)), now_));
}

TEST_F(ClientsCommandTest, AnEmptySocketPathIsAUsageError) {
  const auto r = run_raw({"kick", "alice", "--socket", ""});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no control socket given"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace qeli::cli
