#include "sys/host_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <utility>

#include "sys/file_util.h"
#include "sys/lock_holder.h"

namespace qeli::sys {

namespace {

constexpr char kHeader[] = "qeli-host-journal 1\n";
constexpr std::size_t kMaxJournalBytes = 4 * 1024 * 1024;

bool plain_field(const std::string& s) {
  if (s.empty() || s.size() > 1024) return false;
  return std::none_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
  });
}

template <class N>
bool parse_num(std::string_view s, N& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size() && !s.empty();
}

Unexpected<HostError> corrupt(std::string_view line) {
  return host_fail(HostErrc::kCorrupt, "bad journal line '" + std::string(line) + "'");
}

const char* type_name(RouteType t) {
  switch (t) {
    case RouteType::kBlackhole: return "blackhole";
    case RouteType::kUnreachable: return "unreachable";
    case RouteType::kUnicast: break;
  }
  return "unicast";
}

Unexpected<HostError> errno_fail(const std::string& what, const std::string& path, int e) {
  return host_fail(e == EACCES || e == EPERM ? HostErrc::kPermission : HostErrc::kIo,
                   what + " " + path + ": " + std::strerror(e));
}

}  // namespace

HostResult<std::string> encode_journal_entry(const JournalEntry& e) {
  std::string line;
  std::vector<std::string> fields;
  if (const auto* r = std::get_if<RouteChange>(&e)) {
    const Route& rt = r->route;
    fields = {"route",
              std::to_string(rt.table),
              std::to_string(rt.protocol),
              type_name(rt.type),
              rt.dst.to_string(),
              rt.gateway ? rt.gateway->to_string() : "-",
              rt.dev.empty() ? "-" : rt.dev,
              std::to_string(rt.metric)};
  } else if (const auto* n = std::get_if<NftTableChange>(&e)) {
    fields = {"nft", n->family, n->name};
  } else if (const auto* d = std::get_if<ResolvConfChange>(&e)) {
    fields = {"resolv", d->resolv_conf, d->backup};
  } else if (const auto* s = std::get_if<SysctlChange>(&e)) {
    fields = {"sysctl", s->key, s->old_value, s->new_value};
  }
  for (const std::string& f : fields) {
    if (!plain_field(f)) {
      return host_fail(HostErrc::kInvalidArgument, "cannot journal field '" + f + "'");
    }
    line += (line.empty() ? "" : " ") + f;
  }
  return line;
}

HostResult<JournalEntry> decode_journal_entry(std::string_view line) {
  const auto w = split_words(line);
  if (w.empty()) return corrupt(line);
  if (w[0] == "route" && w.size() == 8) {
    RouteChange c;
    Route& r = c.route;
    unsigned proto = 0;
    if (!parse_num(w[1], r.table) || !parse_num(w[2], proto) || proto > 255 ||
        !parse_num(w[7], r.metric)) {
      return corrupt(line);
    }
    r.protocol = static_cast<std::uint8_t>(proto);
    if (w[3] == "unicast") {
      r.type = RouteType::kUnicast;
    } else if (w[3] == "blackhole") {
      r.type = RouteType::kBlackhole;
    } else if (w[3] == "unreachable") {
      r.type = RouteType::kUnreachable;
    } else {
      return corrupt(line);
    }
    auto dst = IpPrefix::parse(w[4]);
    if (!dst) return corrupt(line);
    r.dst = *dst;
    if (w[5] != "-") {
      auto gw = IpAddress::parse(w[5]);
      if (!gw) return corrupt(line);
      r.gateway = *gw;
    }
    if (w[6] != "-") r.dev = std::string(w[6]);
    return JournalEntry{c};
  }
  if (w[0] == "nft" && w.size() == 3) {
    return JournalEntry{NftTableChange{std::string(w[1]), std::string(w[2])}};
  }
  if (w[0] == "resolv" && w.size() == 3) {
    return JournalEntry{ResolvConfChange{std::string(w[1]), std::string(w[2])}};
  }
  if (w[0] == "sysctl" && w.size() == 4) {
    return JournalEntry{SysctlChange{std::string(w[1]), std::string(w[2]), std::string(w[3])}};
  }
  return corrupt(line);
}

HostJournal::HostJournal(std::string path, int fd, std::uint64_t next_id)
    : path_(std::move(path)), fd_(fd), next_id_(next_id) {}

HostJournal::HostJournal(HostJournal&& o) noexcept
    : path_(std::move(o.path_)), fd_(std::exchange(o.fd_, -1)), next_id_(o.next_id_) {}

HostJournal& HostJournal::operator=(HostJournal&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    next_id_ = o.next_id_;
  }
  return *this;
}

HostJournal::~HostJournal() {
  if (fd_ >= 0) ::close(fd_);  // also drops the flock
}

HostResult<HostJournal> HostJournal::open(const std::string& path) {
  if (auto d = make_dirs(parent_dir(path), 0700); !d) return fail(d.error());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return errno_fail("open", path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) {
      const auto pid = lock_holder(path);
      return host_fail(HostErrc::kExists,
                       "journal " + path + " is held by another process" +
                           (pid ? " (PID " + std::to_string(*pid) + ")" : std::string()));
    }
    return errno_fail("flock", path, e);
  }
  HostJournal j(path, fd, 1);
  auto text = read_small_file(path, kMaxJournalBytes);
  if (!text) return fail(text.error());
  // A strict prefix of the header: we died while creating the file.
  if (!text->empty() && text->size() < sizeof kHeader - 1 &&
      std::string_view(kHeader).substr(0, text->size()) == *text) {
    if (::ftruncate(fd, 0) != 0) return errno_fail("truncate", path, errno);
    text->clear();
  }
  if (text->empty()) {
    if (auto w = j.append_line(std::string(kHeader, sizeof kHeader - 2)); !w)
      return fail(w.error());
    if (auto s = sync_parent_dir(path); !s) return fail(s.error());
    return j;
  }
  if (text->rfind(kHeader, 0) != 0) {
    return host_fail(HostErrc::kCorrupt, path + " is not a qeli host journal");
  }
  // Continue numbering after the highest id in the file (settled or not).
  std::uint64_t max_id = 0;
  std::size_t pos = sizeof kHeader - 1;
  while (pos < text->size()) {
    const auto nl = text->find('\n', pos);
    if (nl == std::string::npos) break;
    const std::string_view line(text->data() + pos, nl - pos);
    std::uint64_t id = 0;
    if (line.size() > 1 && (line[0] == '+' || line[0] == '-')) {
      const auto sp = line.find(' ');
      if (parse_num(line.substr(1, sp == std::string_view::npos ? line.npos : sp - 1), id)) {
        max_id = std::max(max_id, id);
      }
    }
    pos = nl + 1;
  }
  // A torn last line (death inside record()) announced a change that never started.
  // Cut it off: terminating it instead could turn "qeli_ks_ab" into a valid record
  // for "qeli_ks_a".
  if (text->back() != '\n') {
    const auto keep = text->rfind('\n') + 1;
    if (::ftruncate(fd, static_cast<off_t>(keep)) != 0 || ::fdatasync(fd) != 0) {
      return errno_fail("truncate torn record in", path, errno);
    }
  }
  j.next_id_ = max_id + 1;
  return j;
}

HostStatus HostJournal::append_line(const std::string& line) {
  const std::string buf = line + "\n";
  std::size_t done = 0;
  while (done < buf.size()) {
    const ssize_t n = ::write(fd_, buf.data() + done, buf.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_fail("append to", path_, errno);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0) return errno_fail("fdatasync", path_, errno);
  return {};
}

HostResult<std::uint64_t> HostJournal::record(const JournalEntry& e) {
  auto line = encode_journal_entry(e);
  if (!line) return fail(line.error());
  const std::uint64_t id = next_id_;
  if (auto w = append_line("+" + std::to_string(id) + " " + *line); !w) return fail(w.error());
  ++next_id_;
  return id;
}

HostStatus HostJournal::settle(std::uint64_t id) { return append_line("-" + std::to_string(id)); }

HostResult<std::vector<JournalRecord>> HostJournal::pending(std::size_t* skipped) const {
  auto text = read_small_file(path_, kMaxJournalBytes);
  if (!text) return fail(text.error());
  if (text->rfind(kHeader, 0) != 0)
    return host_fail(HostErrc::kCorrupt, path_ + " lost its header");
  std::map<std::uint64_t, JournalEntry> live;  // ordered by id = order of the changes
  std::size_t bad = 0;
  std::size_t pos = sizeof kHeader - 1;
  while (pos < text->size()) {
    const auto nl = text->find('\n', pos);
    if (nl == std::string::npos) break;  // torn last line: its change never started
    const std::string_view line(text->data() + pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    const auto sp = line.find(' ');
    std::uint64_t id = 0;
    const bool id_ok =
        line.size() > 1 &&
        parse_num(line.substr(1, sp == std::string_view::npos ? line.npos : sp - 1), id);
    if (id_ok && line[0] == '-' && sp == std::string_view::npos) {
      live.erase(id);
      continue;
    }
    if (id_ok && line[0] == '+' && sp != std::string_view::npos) {
      if (auto e = decode_journal_entry(line.substr(sp + 1))) {
        live.insert_or_assign(id, std::move(*e));
        continue;
      }
    }
    ++bad;
  }
  if (skipped != nullptr) *skipped = bad;
  std::vector<JournalRecord> out;
  out.reserve(live.size());
  for (auto& [id, e] : live) out.push_back(JournalRecord{id, std::move(e)});
  return out;
}

HostResult<CleanupReport> HostJournal::cleanup(JournalUndo& undo) {
  auto live = pending();
  if (!live) return fail(live.error());
  CleanupReport report;
  for (auto it = live->rbegin(); it != live->rend(); ++it) {
    auto r = undo.undo(it->entry);
    if (!r && r.error().code != HostErrc::kNotFound) {
      report.failures.push_back(r.error());
      continue;
    }
    if (auto s = settle(it->id); !s) return fail(s.error());
    ++report.undone;
  }
  if (report.failures.empty()) {
    // Everything is settled: start the file afresh so it does not grow across runs.
    if (::ftruncate(fd_, 0) != 0) return errno_fail("truncate", path_, errno);
    if (auto w = append_line(std::string(kHeader, sizeof kHeader - 2)); !w) return fail(w.error());
  }
  return report;
}

}  // namespace qeli::sys
