// Where `qeli client` gets its settings: a link as an argument, on standard input or in a
// file, a config file, or both (the link says where and who, the file how the host is set
// up), and the warnings about secrets other users can read.
#include "cli/client_settings.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sstream>

#include "temp_dir.h"

namespace qeli::cli {
namespace {

const std::string kLink =
    "qeli://alice:s3cret@vpn.example.com:443?proto=tcp&mode=fake-tls&key="
    "1111111111111111111111111111111111111111111111111111111111111111";

ClientSettings load(ClientSource src, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  return load_client_settings(src, in);
}

TEST(ClientSettings, LinkArgumentWorksAndWarnsAboutPs) {
  ClientSource src;
  src.link_argument = kLink;
  const auto s = load(src);
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_TRUE(s.load.ok());
  EXPECT_EQ(s.load.config.user, "alice");
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_NE(s.warnings[0].find("visible to every local user in `ps`"), std::string::npos);
}

TEST(ClientSettings, LinkOnStandardInputOrFromAFileDoesNotWarn) {
  ClientSource src;
  src.link_argument = "-";
  const auto s = load(src, "\n  \"" + kLink + "\"  \n");
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.load.config.pass, "s3cret");
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_FALSE(load(src, "\n# nothing\n").error.empty());

  test::TempDir tmp;
  const std::string f = tmp.write("office.link", "# the office\n" + kLink + "\n");
  ::chmod(f.c_str(), 0600);
  ClientSource from_file;
  from_file.link_file = f;
  const auto t = load(from_file);
  ASSERT_TRUE(t.error.empty()) << t.error;
  EXPECT_EQ(t.load.config.server.host, "vpn.example.com");
  EXPECT_TRUE(t.warnings.empty());
  ::chmod(f.c_str(), 0644);
  const auto u = load(from_file);
  ASSERT_EQ(u.warnings.size(), 1U);
  EXPECT_NE(u.warnings[0].find("chmod 600 " + f), std::string::npos) << u.warnings[0];
  from_file.link_argument = kLink;
  EXPECT_FALSE(load(from_file).error.empty()) << "one link only";
}

// The trial: `qeli client -c FILE LINK` ignored the file silently.
TEST(ClientSettings, ConfigAndLinkTogether) {
  test::TempDir tmp;
  const std::string conf = tmp.write("host.conf",
                                     "[qeli]\ndev = office0\ngateway = true\nkill_switch = true\n"
                                     "include = 192.0.2.0/24\nuser = someone-else\n");
  ::chmod(conf.c_str(), 0600);
  ClientSource src;
  src.config_path = conf;
  src.config_given = true;
  src.link_argument = kLink;
  const auto s = load(src);
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_TRUE(s.load.ok()) << (s.load.findings.all().empty()
                                   ? ""
                                   : s.load.findings.all()[0].to_string());
  const auto& c = s.load.config;
  EXPECT_EQ(c.dev, "office0") << "host settings from the file";
  EXPECT_TRUE(c.gateway);
  EXPECT_TRUE(c.kill_switch);
  ASSERT_EQ(c.include.size(), 1U);
  EXPECT_EQ(c.server.host, "vpn.example.com") << "where and who from the link";
  EXPECT_EQ(c.user, "alice");
  EXPECT_EQ(c.pass, "s3cret");
  EXPECT_EQ(c.key.size(), 64U);
  bool noted = false;
  for (const auto& w : s.warnings)
    noted = noted || w.find("the link's user replaces") != std::string::npos;
  EXPECT_TRUE(noted);

  // A link's gateway=1 wins; without one the file's gateway stays.
  src.link_argument = kLink + "&gateway=0";
  EXPECT_FALSE(load(src).load.config.gateway);
  ClientSource link_only;
  link_only.link_argument = kLink + "&gateway=1";
  EXPECT_TRUE(load(link_only).load.config.gateway);
}

TEST(ClientSettings, ConfigWithAPasswordReadableByOthersWarns) {
  test::TempDir tmp;
  const std::string conf =
      tmp.write("c.conf", "[qeli]\nserver = vpn.example.com:443\nuser = a\npass = pw\n");
  ::chmod(conf.c_str(), 0644);
  ClientSource src;
  src.config_path = conf;
  src.config_given = true;
  const auto s = load(src);
  ASSERT_TRUE(s.load.ok());
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_NE(s.warnings[0].find("readable by every user"), std::string::npos) << s.warnings[0];
  ::chmod(conf.c_str(), 0600);
  EXPECT_TRUE(load(src).warnings.empty());
  // Without a link, `server` is still required.
  const std::string no_server = tmp.write("n.conf", "[qeli]\nuser = a\n");
  src.config_path = no_server;
  EXPECT_FALSE(load(src).load.ok());
  src.link_argument = kLink;
  EXPECT_TRUE(load(src).load.ok());
}

}  // namespace
}  // namespace qeli::cli
