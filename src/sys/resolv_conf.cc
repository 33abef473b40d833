#include "sys/resolv_conf.h"

#include <cstdio>
#include <sstream>

#include "sys/file_util.h"
#include "sys/names.h"

namespace qeli::sys {

namespace {

// resolv.conf and its backup are small; anything larger is not what we think it is.
constexpr std::size_t kMaxResolvConfBytes = 64 * 1024;
constexpr char kBackupMagic[] = "qeli-resolv-backup 1 ";

struct Backup {
  PathState::Kind kind = PathState::Kind::kAbsent;
  mode_t mode = 0644;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string payload;  // file bytes or link target
};

std::string encode(const Backup& b) {
  switch (b.kind) {
    case PathState::Kind::kFile: {
      char head[96];
      std::snprintf(head, sizeof head, "%sfile %o %u %u\n", kBackupMagic,
                    static_cast<unsigned>(b.mode), static_cast<unsigned>(b.uid),
                    static_cast<unsigned>(b.gid));
      return head + b.payload;
    }
    case PathState::Kind::kSymlink: return std::string(kBackupMagic) + "symlink\n" + b.payload;
    default: return std::string(kBackupMagic) + "absent\n";
  }
}

HostResult<Backup> decode(const std::string& text, const std::string& path) {
  const auto nl = text.find('\n');
  const std::string magic = kBackupMagic;
  if (nl == std::string::npos || text.compare(0, magic.size(), magic) != 0) {
    return host_fail(HostErrc::kCorrupt, "not a qeli resolv.conf backup: " + path);
  }
  std::istringstream head(text.substr(magic.size(), nl - magic.size()));
  std::string kind;
  head >> kind;
  Backup b;
  b.payload = text.substr(nl + 1);
  if (kind == "file") {
    unsigned mode = 0, uid = 0, gid = 0;
    head >> std::oct >> mode >> std::dec >> uid >> gid;
    if (head.fail() || mode > 07777) {
      return host_fail(HostErrc::kCorrupt, "bad header in resolv.conf backup " + path);
    }
    b.kind = PathState::Kind::kFile;
    b.mode = static_cast<mode_t>(mode);
    b.uid = static_cast<uid_t>(uid);
    b.gid = static_cast<gid_t>(gid);
  } else if (kind == "symlink" && !b.payload.empty()) {
    b.kind = PathState::Kind::kSymlink;
  } else if (kind == "absent") {
    b.kind = PathState::Kind::kAbsent;
  } else {
    return host_fail(HostErrc::kCorrupt, "bad kind in resolv.conf backup " + path);
  }
  return b;
}

// True if the current resolv.conf is a regular file that we wrote.
HostResult<bool> current_is_ours(const std::string& path, const PathState& st) {
  if (st.kind != PathState::Kind::kFile) return false;
  auto content = read_small_file(path, kMaxResolvConfBytes);
  if (!content) {
    // An oversized file is certainly not ours.
    if (content.error().code == HostErrc::kCorrupt) return false;
    return fail(content.error());
  }
  return is_qeli_resolv_conf(*content);
}

bool plain_domain(const std::string& d) {
  if (d.empty() || d.size() > 253) return false;
  for (const char c : d) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool is_qeli_resolv_conf(const std::string& content) {
  return content.rfind(kResolvConfMarker, 0) == 0;
}

HostResult<std::string> render_resolv_conf(const DnsSettings& dns, const std::string& tun) {
  if (!is_valid_ifname(tun)) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + tun + "'");
  }
  if (dns.servers.empty()) {
    return host_fail(HostErrc::kInvalidArgument, "no DNS servers to write (no silent fallback)");
  }
  std::string s = std::string(kResolvConfMarker) + " for " + tun +
                  ": DNS goes through the tunnel.\n"
                  "# The original file is put back when qeli stops (or by `qeli client "
                  "--cleanup`); do not edit.\n";
  for (const IpAddress& a : dns.servers) s += "nameserver " + a.to_string() + "\n";
  if (!dns.search.empty()) {
    s += "search";
    for (const std::string& d : dns.search) {
      if (!plain_domain(d))
        return host_fail(HostErrc::kInvalidArgument, "bad search domain '" + d + "'");
      s += " " + d;
    }
    s += "\n";
  }
  return s;
}

ResolvConf::ResolvConf(ResolvConfPaths paths) : paths_(std::move(paths)) {}

HostStatus ResolvConf::take_over(const DnsSettings& dns, const std::string& tun) {
  auto content = render_resolv_conf(dns, tun);
  if (!content) return fail(content.error());
  auto st = inspect_path(paths_.resolv_conf);
  if (!st) return fail(st.error());
  auto ours = current_is_ours(paths_.resolv_conf, *st);
  if (!ours) return fail(ours.error());

  mode_t mode = 0644;
  std::optional<std::pair<uid_t, gid_t>> owner;
  if (*ours) {
    auto bst = inspect_path(paths_.backup);
    if (!bst) return fail(bst.error());
    if (bst->kind == PathState::Kind::kAbsent) {
      return host_fail(HostErrc::kCorrupt,
                       paths_.resolv_conf + " was written by qeli but its backup " + paths_.backup +
                           " is missing; restore the original by hand");
    }
    mode = st->mode;
  } else {
    Backup b;
    b.kind = st->kind;
    switch (st->kind) {
      case PathState::Kind::kFile: {
        auto bytes = read_small_file(paths_.resolv_conf, kMaxResolvConfBytes);
        if (!bytes) return fail(bytes.error());
        b.payload = std::move(*bytes);
        b.mode = st->mode;
        b.uid = st->uid;
        b.gid = st->gid;
        mode = st->mode;
        owner = std::pair{st->uid, st->gid};
        break;
      }
      case PathState::Kind::kSymlink: {
        auto target = read_link(paths_.resolv_conf);
        if (!target) return fail(target.error());
        b.payload = std::move(*target);
        break;
      }
      case PathState::Kind::kAbsent: break;
      case PathState::Kind::kOther:
        return host_fail(HostErrc::kInvalidArgument,
                         paths_.resolv_conf + " is neither a file nor a symlink");
    }
    // Write-ahead: the backup is durable before resolv.conf changes.
    if (auto d = make_dirs(parent_dir(paths_.backup), 0700); !d) return fail(d.error());
    if (auto w = write_file_atomic(paths_.backup, encode(b), 0600); !w) return fail(w.error());
  }
  if (auto w = write_file_atomic(paths_.resolv_conf, *content, mode, owner); !w) {
    return fail(w.error());
  }
  return {};
}

HostResult<ResolvConf::Recovery> ResolvConf::restore() {
  auto bst = inspect_path(paths_.backup);
  if (!bst) return fail(bst.error());
  if (bst->kind == PathState::Kind::kAbsent) return Recovery::kNothingToDo;
  auto text = read_small_file(paths_.backup, kMaxResolvConfBytes + 256);
  if (!text) return fail(text.error());
  auto b = decode(*text, paths_.backup);
  if (!b) return fail(b.error());
  auto st = inspect_path(paths_.resolv_conf);
  if (!st) return fail(st.error());
  auto ours = current_is_ours(paths_.resolv_conf, *st);
  if (!ours) return fail(ours.error());
  if (!*ours && st->kind != PathState::Kind::kAbsent) {
    // Not ours: a crash hit between the backup and our write (the file is still the
    // original), or another program replaced ours since. Either way the current file
    // is what the host wants, and the backup is stale.
    if (auto r = remove_file(paths_.backup); !r) return fail(r.error());
    return Recovery::kKeptForeign;
  }
  HostStatus put;
  switch (b->kind) {
    case PathState::Kind::kFile:
      put = write_file_atomic(paths_.resolv_conf, b->payload, b->mode, std::pair{b->uid, b->gid});
      break;
    case PathState::Kind::kSymlink:
      put = write_symlink_atomic(paths_.resolv_conf, b->payload);
      break;
    default: put = remove_file(paths_.resolv_conf); break;
  }
  if (!put) return fail(put.error());
  // Only once the original is back in place may the backup go.
  if (auto r = remove_file(paths_.backup); !r) return fail(r.error());
  return Recovery::kRestored;
}

}  // namespace qeli::sys
