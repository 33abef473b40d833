// qeli install-polkit on a temporary --root: the rule names exactly one account and one
// unit, is 0644, is not written by --dry-run or by a non-root caller, and refuses names
// that could break out of its JavaScript strings.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "host_command.h"
#include "temp_dir.h"

namespace qeli::cli {
namespace {

namespace fs = std::filesystem;

using test::Outcome;

class InstallPolkitTest : public ::testing::Test {
 protected:
  Outcome run(std::vector<std::string> args, std::optional<uid_t> euid = 0) {
    return test::run_under_root("install-polkit", std::move(args), tmp_.path(), euid);
  }
  std::string rule_path() const { return tmp_.path() + "/etc/polkit-1/rules.d/49-qeli.rules"; }
  std::string rule() const { return test::read_text(rule_path()); }

  test::TempDir tmp_;
};

TEST_F(InstallPolkitTest, WritesTheRuleForOneUserAndOneUnit) {
  const Outcome r = run({});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = rule();
  EXPECT_NE(text.find("polkit.addRule(function(action, subject) {"), std::string::npos) << text;
  EXPECT_NE(text.find("action.id == \"org.freedesktop.systemd1.manage-units\""), std::string::npos);
  EXPECT_NE(text.find("action.lookup(\"unit\") == \"qeli-server.service\""), std::string::npos);
  EXPECT_NE(text.find("subject.user == \"qeli\""), std::string::npos);
  EXPECT_NE(text.find("return polkit.Result.YES;"), std::string::npos);
  EXPECT_EQ(text.find("Result.AUTH"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(rule_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_NE(r.err.find("web panel does not need"), std::string::npos) << r.err;

  ASSERT_EQ(run({"--unit", "qeli@edge.service", "--user", "svc.vpn"}).rc, 0);
  EXPECT_NE(rule().find("action.lookup(\"unit\") == \"qeli@edge.service\""), std::string::npos);
  EXPECT_NE(rule().find("subject.user == \"svc.vpn\""), std::string::npos);
  EXPECT_EQ(rule().find("qeli-server.service"), std::string::npos);
}

TEST_F(InstallPolkitTest, DryRunPrintsAndWritesNothing) {
  const Outcome r = run({"--dry-run"}, 1000);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("would write /etc/polkit-1/rules.d/49-qeli.rules"), std::string::npos);
  EXPECT_NE(r.out.find("subject.user == \"qeli\""), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}

TEST_F(InstallPolkitTest, RefusedWhenNotRoot) {
  const Outcome r = run({}, 1000);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("must run as root"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}

TEST_F(InstallPolkitTest, RefusesNamesThatCouldLeaveTheJavaScriptString) {
  for (const char* user : {"qeli\" || true || \"", "qeli'", "a\\", "-qeli", "q eli", ""}) {
    const Outcome r = run({"--user", user});
    EXPECT_EQ(r.rc, 2) << user;
    EXPECT_NE(r.err.find("invalid user name"), std::string::npos) << r.err;
  }
  for (const char* unit : {"x\");polkit.log(\"", "qeli.timer", "../q.service"}) {
    const Outcome r = run({"--unit", unit});
    EXPECT_EQ(r.rc, 2) << unit;
    EXPECT_NE(r.err.find("invalid unit name"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}

}  // namespace
}  // namespace qeli::cli
