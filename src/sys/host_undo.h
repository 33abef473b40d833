// The real JournalUndo (undoes journal entries on this host) and HostChanges, the
// journaled way to change the host: each call records the change in the HostJournal,
// makes it, and settles the record again if the change did not happen.
//
// Network namespace: RouteTable, NftContext and sysctl act in the namespace they were
// opened in / the calling thread's namespace (see their headers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sys/host_journal.h"
#include "sys/nft_context.h"
#include "sys/nft_kill_switch.h"
#include "sys/nft_nat.h"
#include "sys/resolv_conf.h"
#include "sys/route_table.h"

namespace qeli::sys {

/// Undoes entries on the live host. Entries whose undo is impossible without a missing
/// part (null `routes` / `nft`) fail with kInvalidArgument and stay pending.
class SystemUndo final : public JournalUndo {
 public:
  SystemUndo(RouteTable* routes, NftContext* nft) : routes_(routes), nft_(nft) {}
  /// route: delete it (matching our protocol); nft: delete the table; resolv: recover();
  /// sysctl: write the old value back only if the current value is still ours.
  HostStatus undo(const JournalEntry& e) override;

  /// Settles entries for this table without deleting it. For the kill switch after a
  /// crash: clean up the rest of the journal while the leftover table keeps the host
  /// locked, then engage_kill_switch() replaces it atomically (no unprotected moment).
  void keep_table(std::string family, std::string name) {
    keep_ = NftTableChange{std::move(family), std::move(name)};
  }

 private:
  RouteTable* routes_;
  NftContext* nft_;
  std::optional<NftTableChange> keep_;
};

class HostChanges {
 public:
  HostChanges(HostJournal& journal, RouteTable& routes, NftContext& nft)
      : journal_(journal), routes_(routes), nft_(nft) {}

  /// Journaled RouteTable::add. Returns the journal id; kExists (not journaled) if the
  /// route was already there — it is not ours, so it must not be removed later.
  HostResult<std::uint64_t> add_route(const Route& r);

  /// Journaled apply_nat / engage_kill_switch (the table name is what is journaled).
  HostResult<std::uint64_t> apply_nat(const NatSpec& spec);
  HostResult<std::uint64_t> engage_kill_switch(const KillSwitchSpec& spec);

  /// Journaled ResolvConf::take_over.
  HostResult<std::uint64_t> take_over_dns(ResolvConf& rc, const DnsSettings& dns,
                                          const std::string& tun);

  /// Journaled enable_forwarding. Returns 0 (nothing journaled) if it was already on.
  HostResult<std::uint64_t> enable_forwarding(IpFamily family);

  /// Undoes one journaled change now (e.g. a route on reconnect) and settles it.
  HostStatus revert(std::uint64_t id);

  /// Undoes everything pending, newest first (a clean stop or `--cleanup`).
  HostResult<CleanupReport> revert_all();

  /// Start-up after a crash with the kill switch on: undoes everything pending except
  /// the kill-switch table of `tun`, which stays until engage_kill_switch() replaces it.
  HostResult<CleanupReport> revert_all_keeping_kill_switch(const std::string& tun);

 private:
  // Records `e`, runs `change`; settles the record if the change failed.
  template <class F>
  HostResult<std::uint64_t> journaled(const JournalEntry& e, F&& change);

  HostJournal& journal_;
  RouteTable& routes_;
  NftContext& nft_;
};

}  // namespace qeli::sys
