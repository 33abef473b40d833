// qeli set-service-user, run in-process on a temporary --root that holds the unit we
// ship (or a 0.7.16-style one): the drop-in's content, its removal, --dry-run, the
// refusals. ctx.euid stands in for who runs it, so the refusal is tested as root too.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "host_command.h"
#include "temp_dir.h"

namespace qeli::cli {
namespace {

namespace fs = std::filesystem;

using test::Outcome;
using test::read_text;

std::string shipped_unit() {
  const char* src = std::getenv("QELI_SOURCE_DIR");
  return src == nullptr ? ""
                        : read_text(std::string(src) + "/packaging/systemd/qeli-server.service");
}

// Every path below `root`, for "nothing was written".
std::vector<std::string> tree(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

class SetServiceUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path();
    fs::create_directories(root_ + "/lib/systemd/system");
    fs::create_directories(root_ + "/etc");
    fs::create_directories(root_ + "/var/lib/qeli/server");
    install_unit("/lib/systemd/system/qeli-server.service", shipped_unit());
    tmp_.write("etc/passwd", "root:x:0:0::/root:/bin/sh\nqeli:x:4242:4243::/x:/usr/sbin/nologin\n");
    tmp_.write("var/lib/qeli/server/usage.db", "");
  }
  void install_unit(const std::string& path, const std::string& text) {
    std::ofstream(root_ + path) << text;
  }
  Outcome run(std::vector<std::string> args, std::optional<uid_t> euid = 0) {
    return test::run_under_root("set-service-user", std::move(args), root_, euid);
  }
  std::string dropin(const std::string& unit = "qeli-server.service") const {
    return root_ + "/etc/systemd/system/" + unit + ".d/run-as.conf";
  }

  test::TempDir tmp_;
  std::string root_;
};

TEST_F(SetServiceUserTest, RootWritesADropInThatResetsExecStartWithoutUser) {
  ASSERT_FALSE(shipped_unit().empty());
  const Outcome r = run({"root"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string d = read_text(dropin());
  EXPECT_NE(d.find("[Service]\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\nUser=root\nGroup=root\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\nExecStart=\nExecStart=/usr/bin/qeli server -c /etc/qeli/server.conf\n"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("--user", d.find("[Service]")), std::string::npos) << d;
  EXPECT_NE(d.find("\nCapabilityBoundingSet=CAP_DAC_OVERRIDE\n"), std::string::npos) << d;
  struct stat st {};
  ASSERT_EQ(::stat(dropin().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  // Under --root, nothing is reloaded; the restart to run is named.
  EXPECT_NE(r.out.find("no daemon-reload"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("systemctl restart qeli-server.service"), std::string::npos) << r.out;
  // Again: the same file (idempotent, as 0.7.16's postinst runs it on every upgrade).
  ASSERT_EQ(run({"root"}).rc, 0);
  EXPECT_EQ(read_text(dropin()), d);
}

TEST_F(SetServiceUserTest, AliasNameWritesUnderTheUnitsOwnName) {
  // qeli.service is the Alias= of our unit (0.7.16's name), before and after enabling.
  ASSERT_EQ(run({"root", "--unit", "qeli.service"}).rc, 0);
  EXPECT_TRUE(fs::exists(dropin()));
  EXPECT_FALSE(fs::exists(dropin("qeli.service")));
  fs::remove_all(root_ + "/etc/systemd");
  fs::create_directories(root_ + "/etc/systemd/system");
  fs::create_symlink("/lib/systemd/system/qeli-server.service",
                     root_ + "/etc/systemd/system/qeli.service");
  ASSERT_EQ(run({"root", "--unit", "qeli.service"}).rc, 0);
  EXPECT_TRUE(fs::exists(dropin()));
  const Outcome back = run({"qeli", "--unit", "qeli.service"});
  ASSERT_EQ(back.rc, 0) << back.err;
  EXPECT_FALSE(fs::exists(dropin()));
}

TEST_F(SetServiceUserTest, OldStyleUnitWithUserQeliGetsUserRoot) {
  fs::remove(root_ + "/lib/systemd/system/qeli-server.service");
  install_unit("/lib/systemd/system/qeli.service",
               "[Service]\nUser=qeli\nGroup=qeli\n"
               "ExecStart=/usr/bin/qeli server --config /etc/qeli/server.conf\n");
  const Outcome r = run({"root", "--unit", "qeli.service"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string d = read_text(dropin("qeli.service"));
  EXPECT_NE(d.find("\nUser=root\nGroup=root\n"), std::string::npos) << d;
  EXPECT_NE(d.find("\nExecStart=/usr/bin/qeli server --config /etc/qeli/server.conf\n"),
            std::string::npos)
      << d;
}

TEST_F(SetServiceUserTest, QeliRemovesTheDropInAndHandsTheStateBack) {
  ASSERT_EQ(run({"root"}).rc, 0);
  const Outcome r = run({"qeli"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(fs::exists(dropin()));
  EXPECT_FALSE(fs::exists(root_ + "/etc/systemd/system/qeli-server.service.d"));  // was empty
  EXPECT_NE(r.out.find("removed /etc/systemd/system/qeli-server.service.d/run-as.conf"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("systemctl restart qeli-server.service"), std::string::npos) << r.out;
  if (::geteuid() == 0) {  // only root may give files away
    struct stat st {};
    ASSERT_EQ(::lstat((root_ + "/var/lib/qeli/server/usage.db").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 4242u);
    EXPECT_EQ(st.st_gid, 4243u);
  }
  // Nothing left to remove: success, and says so.
  const Outcome again = run({"qeli"});
  EXPECT_EQ(again.rc, 0);
  EXPECT_NE(again.out.find("nothing to change"), std::string::npos) << again.out;
}

TEST_F(SetServiceUserTest, QeliKeepsOtherDropIns) {
  ASSERT_EQ(run({"root"}).rc, 0);
  tmp_.write("etc/systemd/system/qeli-server.service.d/limits.conf", "[Service]\nNice=5\n");
  ASSERT_EQ(run({"qeli"}).rc, 0);
  EXPECT_FALSE(fs::exists(dropin()));
  EXPECT_TRUE(fs::exists(root_ + "/etc/systemd/system/qeli-server.service.d/limits.conf"));
}

TEST_F(SetServiceUserTest, DryRunWritesNothingAndNeedsNoRoot) {
  const auto before = tree(root_);
  const Outcome r = run({"root", "--dry-run"}, 1000);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("would write /etc/systemd/system/qeli-server.service.d/run-as.conf"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ExecStart=/usr/bin/qeli server -c /etc/qeli/server.conf\n"),
            std::string::npos);
  EXPECT_EQ(tree(root_), before);

  ASSERT_EQ(run({"root"}).rc, 0);
  const auto with_dropin = tree(root_);
  const Outcome q = run({"qeli", "--dry-run"}, 1000);
  ASSERT_EQ(q.rc, 0) << q.err;
  EXPECT_NE(q.out.find("would remove /etc/systemd/system/qeli-server.service.d/run-as.conf"),
            std::string::npos)
      << q.out;
  EXPECT_EQ(tree(root_), with_dropin);
  EXPECT_TRUE(fs::exists(dropin()));
}

TEST_F(SetServiceUserTest, RefusedWhenNotRoot) {
  const auto before = tree(root_);
  const Outcome r = run({"root"}, 1000);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("must run as root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sudo qeli set-service-user root"), std::string::npos) << r.err;
  EXPECT_EQ(tree(root_), before);
}

TEST_F(SetServiceUserTest, RefusesAMissingUnitOrOneThatIsNotAQeliServer) {
  const Outcome none = run({"root", "--unit", "other.service"});
  EXPECT_EQ(none.rc, 1);
  EXPECT_NE(none.err.find("no unit file other.service"), std::string::npos) << none.err;

  install_unit("/lib/systemd/system/web.service", "[Service]\nExecStart=/usr/sbin/nginx\n");
  const Outcome other = run({"root", "--unit", "web.service"});
  EXPECT_EQ(other.rc, 1);
  EXPECT_NE(other.err.find("not a qeli server unit"), std::string::npos) << other.err;
  EXPECT_FALSE(fs::exists(dropin("web.service")));

  // /etc wins over /lib: a local copy whose ExecStart is something else is refused.
  fs::create_directories(root_ + "/etc/systemd/system");
  install_unit("/etc/systemd/system/qeli-server.service",
               "[Service]\nExecStart=/usr/bin/qeli client -c x\n");
  EXPECT_EQ(run({"root"}).rc, 1);
  EXPECT_FALSE(fs::exists(dropin()));
}

TEST_F(SetServiceUserTest, BadNamesAreUsageErrors) {
  for (const char* unit : {"../../etc/x.service", "qeli.timer", "q\"eli.service"}) {
    const Outcome r = run({"root", "--unit", unit});
    EXPECT_EQ(r.rc, 2) << unit;
    EXPECT_NE(r.err.find("invalid unit name"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run({"admin"}).rc, 2);
  EXPECT_FALSE(fs::exists(root_ + "/etc/systemd"));
}

}  // namespace
}  // namespace qeli::cli
