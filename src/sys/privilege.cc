#include "sys/privilege.h"

#include <grp.h>
#include <pwd.h>
#include <sys/capability.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace qeli::sys {
namespace {

std::string errno_text(const std::string& step) { return step + ": " + std::strerror(errno); }

struct CapFree {
  void operator()(void* p) const { cap_free(p); }
};
using CapPtr = std::unique_ptr<std::remove_pointer_t<cap_t>, CapFree>;

struct Account {
  uid_t uid;
  gid_t gid;
};

Result<Account, std::string> look_up(const std::string& user) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  const int rc = ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
  if (rc != 0) return fail("look up user " + user + ": " + std::strerror(rc));
  if (found == nullptr)
    return fail("no user '" + user + "' on this host (create it, or omit --user)");
  if (pw.pw_uid == 0) return fail("user '" + user + "' is root: nothing would be dropped");
  return Account{pw.pw_uid, pw.pw_gid};
}

// Permitted = effective = `keep`, nothing inheritable.
Status<std::string> set_caps(const std::vector<int>& keep) {
  CapPtr caps(cap_init());
  if (!caps) return fail(errno_text("cap_init"));
  if (!keep.empty()) {
    std::vector<cap_value_t> v(keep.begin(), keep.end());
    if (cap_set_flag(caps.get(), CAP_PERMITTED, static_cast<int>(v.size()), v.data(), CAP_SET) !=
            0 ||
        cap_set_flag(caps.get(), CAP_EFFECTIVE, static_cast<int>(v.size()), v.data(), CAP_SET) !=
            0) {
      return fail(errno_text("cap_set_flag"));
    }
  }
  if (cap_set_proc(caps.get()) != 0) return fail(errno_text("cap_set_proc"));
  return {};
}

bool kept(const std::vector<int>& keep, int cap) {
  for (int k : keep) {
    if (k == cap) return true;
  }
  return false;
}

// The bounding set cut to `keep` while CAP_SETPCAP is still ours (systemd may have cut it
// already, without CAP_SETPCAP; then its set is the bound), and no ambient capability.
Status<std::string> cut_bounding_and_ambient(const std::vector<int>& keep) {
  if (cap_get_bound(CAP_SETPCAP) == 1) {
    CapPtr mine(cap_get_proc());
    cap_flag_value_t have = CAP_CLEAR;
    if (mine && cap_get_flag(mine.get(), CAP_SETPCAP, CAP_EFFECTIVE, &have) == 0 &&
        have == CAP_SET) {
      for (int c = 0; c <= CAP_LAST_CAP; ++c) {
        if (!kept(keep, c) && cap_get_bound(c) == 1 && cap_drop_bound(c) != 0) {
          return fail(
              errno_text("drop capability " + capability_names({c}) + " from the bounding set"));
        }
      }
    }
  }
  if (cap_reset_ambient() != 0 && errno != EINVAL)
    return fail(errno_text("clear ambient capabilities"));
  return {};
}

}  // namespace

std::string capability_names(const std::vector<int>& caps) {
  std::string out;
  for (int c : caps) {
    char* name = cap_to_name(static_cast<cap_value_t>(c));
    if (!out.empty()) out += ",";
    out += name != nullptr ? name : std::to_string(c);
    cap_free(name);
  }
  return out.empty() ? "none" : out;
}

Result<DroppedTo, std::string> drop_privileges(const PrivilegeDrop& plan) {
  auto acct = look_up(plan.user);
  if (!acct.ok()) return fail(acct.error());
  for (const auto& p : plan.own) {
    if (p.empty()) continue;
    if (::chown(p.c_str(), acct->uid, acct->gid) != 0 && errno != ENOENT) {
      return fail(errno_text("chown " + p + " to " + plan.user));
    }
  }
  for (const auto& p : plan.share) {
    if (p.empty()) continue;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return fail(errno_text("stat " + p));
    }
    if (::chown(p.c_str(), static_cast<uid_t>(-1), acct->gid) != 0 ||
        ::chmod(p.c_str(), (st.st_mode & 07777) | S_IRGRP | S_IWGRP) != 0) {
      return fail(errno_text("give " + p + " to group of " + plan.user));
    }
  }
  if (auto st = cut_bounding_and_ambient(plan.keep); !st.ok()) return fail(st.error());
  // Keep the permitted set across the uid change (cleared again below by set_caps).
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return fail(errno_text("PR_SET_KEEPCAPS"));
  const gid_t groups[] = {acct->gid};
  if (::setgroups(1, groups) != 0) return fail(errno_text("setgroups"));
  if (::setresgid(acct->gid, acct->gid, acct->gid) != 0) return fail(errno_text("setresgid"));
  if (::setresuid(acct->uid, acct->uid, acct->uid) != 0) return fail(errno_text("setresuid"));
  if (auto st = set_caps(plan.keep); !st.ok()) return fail(st.error());
  (void)::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(errno_text("PR_SET_NO_NEW_PRIVS"));
  // The uid change already made the process non-dumpable; say so explicitly, since the
  // process holds the identity keys in memory.
  (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer stops the world by ptrace-attaching from a helper process, which a
  // non-dumpable process forbids: sanitizer builds (tests only) stay dumpable.
  (void)::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#endif
  // Verify from the kernel's side: no way back to root.
  uid_t r = 0, e = 0, s = 0;
  if (::getresuid(&r, &e, &s) != 0 || r != acct->uid || e != acct->uid || s != acct->uid) {
    return fail(std::string("uid change did not hold"));
  }
  if (::setuid(0) == 0) return fail(std::string("could become root again after the drop"));
  return DroppedTo{acct->uid, acct->gid, capability_names(plan.keep)};
}

Status<std::string> drop_all_capabilities() { return drop_capabilities_except({}); }

Status<std::string> drop_capabilities_except(const std::vector<int>& keep) {
  if (auto st = cut_bounding_and_ambient(keep); !st.ok()) return fail(st.error());
  if (auto st = set_caps(keep); !st.ok()) return fail(st.error());
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(errno_text("PR_SET_NO_NEW_PRIVS"));
  return {};
}

Result<FilesAsUser, std::string> FilesAsUser::enter(const std::string& user) {
  auto a = look_up(user);
  if (!a.ok()) return fail(a.error());
  // setfsgid first (while the fsuid is still root's); each returns the previous id.
  const auto old_gid = static_cast<gid_t>(::setfsgid(a->gid));
  const auto old_uid = static_cast<uid_t>(::setfsuid(a->uid));
  // The calls report no error: read the ids back (an invalid id leaves them unchanged).
  if (static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1))) != a->uid ||
      static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1))) != a->gid) {
    ::setfsuid(old_uid);
    ::setfsgid(old_gid);
    return fail("cannot act on files as user " + user + " (setfsuid refused)");
  }
  return FilesAsUser(old_uid, old_gid);
}

FilesAsUser::~FilesAsUser() {
  if (!active_) return;
  ::setfsuid(uid_);
  ::setfsgid(gid_);
}

}  // namespace qeli::sys
