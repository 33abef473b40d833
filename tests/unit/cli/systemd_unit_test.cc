// The pure unit-file reading behind set-service-user and the name checks behind both it
// and install-polkit (cli/systemd_unit.h): numbered cases, each a unit text or a name.
#include "cli/systemd_unit.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace qeli::cli {
namespace {

TEST(SystemdUnit, ServiceNames) {
  for (const char* ok : {"qeli-server.service", "qeli.service", "qeli@edge-1.service",
                         "vpn:test.service", "a_b.c.service"}) {
    EXPECT_TRUE(valid_service_unit(ok)) << ok;
  }
  for (const char* bad : {"", ".service", "qeli.timer", "../qeli.service", "qeli/x.service",
                          "qeli\".service", "qeli'.service", "qeli\\x2f.service", "qe li.service",
                          "qeli;.service", "qeli..service", ".hidden.service", "qeli.service\n"}) {
    EXPECT_FALSE(valid_service_unit(bad)) << bad;
  }
  EXPECT_FALSE(valid_service_unit(std::string(250, 'a') + ".service"));
}

TEST(SystemdUnit, AccountNames) {
  for (const char* ok : {"qeli", "qeli-worker", "svc.qeli", "_qeli", "root", "a1"}) {
    EXPECT_TRUE(valid_account_name(ok)) << ok;
  }
  for (const char* bad : {"", "-qeli", ".qeli", "qeli\" || true", "qeli/service", "qe li", "qeli'",
                          "qeli\\", "qeli)", "qeli\n"}) {
    EXPECT_FALSE(valid_account_name(bad)) << bad;
  }
  EXPECT_FALSE(valid_account_name(std::string(33, 'q')));
}

TEST(SystemdUnit, EffectiveExecStart) {
  struct Case {
    const char* text;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      // 1. one line
      {"[Service]\nExecStart=/usr/bin/qeli server --user qeli\n",
       "/usr/bin/qeli server --user qeli"},
      // 2. a later reset and a new line win
      {"[Service]\nExecStart=/bin/a\nExecStart=\nExecStart=/bin/b x\n", "/bin/b x"},
      // 3. a continued line is joined with a space
      {"[Service]\nExecStart=/usr/bin/qeli server \\\n  --user qeli\n",
       "/usr/bin/qeli server  --user qeli"},
      // 4. only [Service] counts; comments are skipped
      {"[Unit]\nExecStart=/bin/no\n# ExecStart=/bin/no\n[Service]\n ; x\nExecStart = /bin/yes\n",
       "/bin/yes"},
      // 5. none, or two without a reset
      {"[Service]\nType=notify\n", std::nullopt},
      {"[Service]\nExecStart=/bin/a\nExecStart=/bin/b\n", std::nullopt},
      // 6. reset last
      {"[Service]\nExecStart=/bin/a\nExecStart=\n", std::nullopt},
  };
  int n = 0;
  for (const Case& c : cases) {
    EXPECT_EQ(effective_exec_start(c.text), c.want) << "case " << ++n;
  }
}

TEST(SystemdUnit, RunsQeliServer) {
  EXPECT_TRUE(runs_qeli_server("/usr/bin/qeli server -c /etc/qeli/server.conf --user qeli"));
  EXPECT_TRUE(runs_qeli_server("-/usr/local/bin/qeli server"));
  EXPECT_TRUE(runs_qeli_server("+!qeli \"server\""));
  EXPECT_FALSE(runs_qeli_server("/usr/bin/qeli client -c x"));
  EXPECT_FALSE(runs_qeli_server("/usr/bin/qeli"));
  EXPECT_FALSE(runs_qeli_server("/usr/bin/qeli-helper server"));
  EXPECT_FALSE(runs_qeli_server("/bin/sh -c 'qeli server'"));
}

TEST(SystemdUnit, WithoutUserOption) {
  EXPECT_EQ(without_user_option("/usr/bin/qeli server -c /etc/qeli/server.conf --user qeli"),
            "/usr/bin/qeli server -c /etc/qeli/server.conf");
  EXPECT_EQ(without_user_option("/usr/bin/qeli server --user=qeli --socket /run/x"),
            "/usr/bin/qeli server --socket /run/x");
  EXPECT_EQ(without_user_option("/usr/bin/qeli server --user \"qeli\" -c \"/etc/my conf\""),
            "/usr/bin/qeli server -c \"/etc/my conf\"");
  EXPECT_EQ(without_user_option("/usr/bin/qeli server -c /etc/qeli/server.conf"),
            "/usr/bin/qeli server -c /etc/qeli/server.conf");
}

TEST(SystemdUnit, Aliases) {
  EXPECT_EQ(unit_aliases("[Install]\nWantedBy=multi-user.target\nAlias=qeli.service\n"),
            std::vector<std::string>{"qeli.service"});
  EXPECT_EQ(unit_aliases("[Install]\nAlias=a.service b.service\n[Service]\nAlias=c.service\n"),
            (std::vector<std::string>{"a.service", "b.service"}));
  EXPECT_TRUE(unit_aliases("[Service]\nExecStart=/bin/x\n").empty());
}

// The unit we ship: its ExecStart runs qeli server with --user, and it answers to
// 0.7.16's name.
TEST(SystemdUnit, ShippedServerUnit) {
  const char* src = std::getenv("QELI_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  std::ifstream f(std::string(src) + "/packaging/systemd/qeli-server.service");
  std::stringstream text;
  text << f.rdbuf();
  const auto exec = effective_exec_start(text.str());
  ASSERT_TRUE(exec.has_value());
  EXPECT_TRUE(runs_qeli_server(*exec));
  EXPECT_NE(exec->find("--user qeli"), std::string::npos);
  EXPECT_EQ(without_user_option(*exec).find("--user"), std::string::npos);
  EXPECT_EQ(unit_aliases(text.str()), std::vector<std::string>{"qeli.service"});
}

}  // namespace
}  // namespace qeli::cli
