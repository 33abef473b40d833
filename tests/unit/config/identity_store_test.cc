#include "config/identity_store.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>

#include "base/bytes.h"
#include "temp_dir.h"

namespace qeli::config {
namespace {

mode_t mode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

TEST(identity_store, created_on_first_use_then_stable) {
  test::TempDir tmp;
  const std::string dir = tmp.file("identity");
  IdentityStore store(dir);
  auto a = store.load_or_create("main");
  ASSERT_TRUE(a.ok()) << a.error().detail;
  EXPECT_TRUE(a->created);
  EXPECT_EQ(a->path, dir + "/main.key");
  EXPECT_EQ(mode_of(dir), 0700U);
  EXPECT_EQ(mode_of(a->path), 0600U);
  EXPECT_EQ(a->public_key, crypto::x25519_public(a->private_key.span()));

  auto b = store.load_or_create("main");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->created);
  EXPECT_EQ(to_hex(b->private_key.span()), to_hex(a->private_key.span()));
  EXPECT_EQ(b->public_key, a->public_key);

  auto other = store.load_or_create("plain");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->public_key, a->public_key);
  // No temporary files are left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(identity_store, deterministic_rng_gives_the_expected_public_key) {
  test::TempDir tmp;
  crypto::DeterministicRng rng(7);
  IdentityStore store(tmp.path(), rng);
  auto id = store.load_or_create("p");
  ASSERT_TRUE(id.ok());
  crypto::DeterministicRng again(7);
  crypto::Key32 expect;
  again.fill(expect.span());
  EXPECT_EQ(to_hex(id->private_key.span()), to_hex(expect.span()));
}

TEST(identity_store, rotate_replaces_the_key) {
  test::TempDir tmp;
  IdentityStore store(tmp.path());
  auto a = store.load_or_create("main");
  ASSERT_TRUE(a.ok());
  auto r = store.rotate("main");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->public_key, a->public_key);
  EXPECT_EQ(mode_of(r->path), 0600U);
  auto again = store.load_or_create("main");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->public_key, r->public_key);
}

TEST(identity_store, override_path_and_bad_files) {
  test::TempDir tmp;
  IdentityStore store(tmp.file("unused"));
  auto o = store.load_or_create("main", tmp.file("keys/custom.key"));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->path, tmp.file("keys/custom.key"));

  std::ofstream(tmp.file("short.key")) << "abc";
  ::chmod(tmp.file("short.key").c_str(), 0600);
  auto s = store.load_or_create("x", tmp.file("short.key"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, IdentityError::kBadFile);

  std::ofstream(tmp.file("open.key")) << std::string(32, 'k');
  ::chmod(tmp.file("open.key").c_str(), 0644);
  auto w = store.load_or_create("x", tmp.file("open.key"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, IdentityError::kInsecure);

  EXPECT_EQ(store.load_or_create("../etc").error().code, IdentityError::kBadName);
  EXPECT_EQ(store.load_or_create("").error().code, IdentityError::kBadName);
}

}  // namespace
}  // namespace qeli::config
