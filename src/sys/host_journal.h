// HostJournal: a write-ahead log of every change qeli makes to the host (routes, nftables
// tables, resolv.conf, sysctls), so that after a kill -9 or a power loss the next start
// (or `qeli client --cleanup`) removes exactly what qeli created and nothing else.
//
// Protocol: record(entry) appends a line and fsyncs it BEFORE the change is made; if the
// change then fails, or is later undone normally, settle(id) appends a tombstone. What is
// recorded but not settled is "pending"; cleanup() undoes pending entries newest first
// (the reverse of the order they were made) through a JournalUndo, and settles each one
// that is gone. An entry whose change never happened (crash between record and change)
// is harmless to undo: removals are keyed so that they only match what qeli creates
// (routes carry kQeliRouteProtocol, tables are named qeli_*, resolv.conf carries our
// marker, a sysctl is only put back if it still has the value we wrote).
//
// File (text, one record per line, 0600; the client names it per TUN and per network
// namespace, see client/state_paths.h):
//   qeli-host-journal 1
//   +<id> route <table> <protocol> <unicast|blackhole|unreachable> <dst/len> <gw|-> <dev|->
//   <metric>
//   +<id> nft <family> <table>
//   +<id> resolv <resolv.conf path> <backup path>
//   +<id> sysctl <key> <old value> <new value>
//   -<id>                                              (settled)
// A torn last line (no newline: the process died inside record()) is ignored, as the
// change it announced was never started. Fields may not contain whitespace; record()
// refuses such entries with kInvalidArgument.
//
// Thread-safety: none; one owner. The file is flock()ed while open, so a second qeli
// for the same journal gets kExists instead of interleaving records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sys/host_error.h"
#include "sys/route_table.h"

namespace qeli::sys {

struct RouteChange {
  Route route;
};
struct NftTableChange {
  std::string family;  ///< "inet", "ip" or "ip6"
  std::string name;
};
struct ResolvConfChange {
  std::string resolv_conf;
  std::string backup;
};
struct SysctlChange {
  std::string key;
  std::string old_value;
  std::string new_value;
};
using JournalEntry = std::variant<RouteChange, NftTableChange, ResolvConfChange, SysctlChange>;

struct JournalRecord {
  std::uint64_t id = 0;
  JournalEntry entry;
};

/// One record line without the "+<id> " prefix and newline (pure).
HostResult<std::string> encode_journal_entry(const JournalEntry& e);
/// The inverse of encode_journal_entry(); kCorrupt on anything malformed.
HostResult<JournalEntry> decode_journal_entry(std::string_view line);

/// Knows how to undo each kind of change. A kNotFound result means "already gone" and
/// counts as success.
class JournalUndo {
 public:
  virtual ~JournalUndo() = default;
  virtual HostStatus undo(const JournalEntry& e) = 0;
};

struct CleanupReport {
  std::size_t undone = 0;           ///< entries undone (or found already gone)
  std::vector<HostError> failures;  ///< entries that could not be undone (still pending)
};

class HostJournal {
 public:
  /// Opens or creates the journal (parent directories 0700, file 0600) and locks it.
  /// kExists if another process holds it; kCorrupt if the header is not ours.
  static HostResult<HostJournal> open(const std::string& path);

  HostJournal(HostJournal&&) noexcept;
  HostJournal& operator=(HostJournal&&) noexcept;
  ~HostJournal();

  /// Appends `e` durably (write + fsync) and returns its id. Call BEFORE the change.
  HostResult<std::uint64_t> record(const JournalEntry& e);

  /// Marks `id` as settled (undone, or never made). Durable like record().
  HostStatus settle(std::uint64_t id);

  /// Entries recorded and not settled, oldest first (read back from the file).
  /// Unparseable lines are skipped and counted in `*skipped` if given.
  HostResult<std::vector<JournalRecord>> pending(std::size_t* skipped = nullptr) const;

  /// Undoes every pending entry, newest first, settling each success. Continues past
  /// failures (they stay pending for the next attempt). When nothing is left pending,
  /// the file is truncated back to its header.
  HostResult<CleanupReport> cleanup(JournalUndo& undo);

  const std::string& path() const { return path_; }

 private:
  HostJournal(std::string path, int fd, std::uint64_t next_id);
  HostStatus append_line(const std::string& line);
  std::string path_;
  int fd_ = -1;
  std::uint64_t next_id_ = 1;
};

}  // namespace qeli::sys
