// Who may call what on the control socket, from peer credentials; and the real socket
// refusing a caller without the permission before the service runs.
#include "control/peer_access.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "control/control_socket.h"

namespace qeli::control {
namespace {

AccessPolicy policy() {
  AccessPolicy p;
  p.server_uid = 0;
  p.panel_uid = 990;
  p.operator_gid = 995;
  p.member_of = [](std::uint32_t uid, std::uint32_t gid, std::uint32_t group) {
    return gid == group || uid == 1001;  // 1001 has 995 as a supplementary group
  };
  return p;
}

TEST(PeerAccess, RootPanelOperatorsAndOthers) {
  const auto p = policy();
  EXPECT_EQ(permissions_for({0, 0, 1}, p), kAllPermissions);
  EXPECT_EQ(permissions_for({990, 990, 1}, p), kAllPermissions);
  const Permissions op = permissions_for({1000, 995, 1}, p);
  EXPECT_TRUE(allows(op, Permission::kRead));
  EXPECT_TRUE(allows(op, Permission::kOperate));
  EXPECT_FALSE(allows(op, Permission::kManage));
  EXPECT_EQ(permissions_for({1001, 1001, 1}, p), op);
  EXPECT_EQ(permissions_for({1002, 1002, 1}, p), 0);
  AccessPolicy none;
  none.server_uid = 0;
  EXPECT_EQ(permissions_for({1000, 995, 1}, none), 0);
  EXPECT_EQ(permission_names(op), (std::vector<std::string>{"read", "operate"}));
}

class CountingService : public ControlService {
 public:
  Result<Response, ControlError> handle(const Request& r, const Caller& c) override {
    ++calls;
    last = c;
    if (std::holds_alternative<Whoami>(r)) return Response{CallerInfo{c.uid, c.gid, c.pid, {}}};
    return Response{KickResult{1}};
  }
  std::atomic<int> calls{0};
  Caller last;
};

TEST(ControlSocket, ChecksThePermissionBeforeTheService) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("qeli-ctl-" + std::to_string(::getpid())))
          .string();
  CountingService svc;
  ControlServer server;
  // This process's own uid is the "server" uid in the first policy: everything allowed.
  AccessPolicy p;
  p.server_uid = ::geteuid();
  ASSERT_TRUE(server.start(path, svc, p).ok());
  SocketClient client(path);
  auto who = call(client, Whoami{});
  ASSERT_TRUE(who.ok()) << who.error().message;
  EXPECT_EQ(who->uid, ::geteuid());
  EXPECT_EQ(who->pid, ::getpid());
  EXPECT_EQ(svc.last.permissions, kAllPermissions);
  server.stop();

  // A caller that is only an operator (uid/gid 65534, the operator group 65534): kick
  // reaches the service, config-save and a stranger's kick do not. The socket file is
  // opened up so that SO_PEERCRED, not the file mode, is what refuses.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  AccessPolicy op;
  op.server_uid = 0;
  op.operator_gid = 65534;
  op.member_of = [](std::uint32_t, std::uint32_t gid, std::uint32_t group) { return gid == group; };
  ControlServer s2;
  ASSERT_TRUE(s2.start(path, svc, op).ok());
  ::chmod(path.c_str(), 0666);
  struct stat tmp {};
  ASSERT_EQ(::stat(std::filesystem::temp_directory_path().c_str(), &tmp), 0);
  EXPECT_EQ(tmp.st_mode & 07777, 01777U) << "a shared directory must never be re-moded";
  auto as = [&](std::uint32_t gid, auto req) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::setgid(gid) != 0 || ::setuid(65534) != 0) ::_exit(99);
      SocketClient c(path);
      auto r = call(c, req);
      ::_exit(r.ok() ? 0 : static_cast<int>(r.error().code) + 1);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WEXITSTATUS(st);
  };
  const int before = svc.calls;
  EXPECT_EQ(as(65534, Kick{"bob", std::nullopt}), 0);
  EXPECT_EQ(svc.calls, before + 1);
  EXPECT_EQ(as(65534, SaveConfig{"x", "y", ""}), static_cast<int>(ErrorCode::kForbidden) + 1);
  EXPECT_EQ(as(12345, Kick{"bob", std::nullopt}), static_cast<int>(ErrorCode::kForbidden) + 1);
  EXPECT_EQ(svc.calls, before + 1);
}

TEST(ControlSocket, AnswersGarbageWithAnError) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("qeli-ctl2-" + std::to_string(::getpid())))
          .string();
  CountingService svc;
  ControlServer server;
  AccessPolicy p;
  p.server_uid = ::geteuid();
  ASSERT_TRUE(server.start(path, svc, p).ok());
  auto r = call(path, nlohmann::json{{"cmd", "nope"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["code"], "unknown_command");
  EXPECT_EQ(svc.calls, 0);
}

}  // namespace
}  // namespace qeli::control
