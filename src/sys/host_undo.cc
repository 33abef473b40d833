#include "sys/host_undo.h"

#include "sys/sysctl.h"

namespace qeli::sys {

HostStatus SystemUndo::undo(const JournalEntry& e) {
  if (const auto* r = std::get_if<RouteChange>(&e)) {
    if (routes_ == nullptr)
      return host_fail(HostErrc::kInvalidArgument, "no route table to undo with");
    return routes_->remove(r->route);
  }
  if (const auto* n = std::get_if<NftTableChange>(&e)) {
    if (nft_ == nullptr)
      return host_fail(HostErrc::kInvalidArgument, "no nft context to undo with");
    // Only tables named by qeli are ever journaled; refuse anything else outright.
    if (n->name.rfind("qeli_", 0) != 0) {
      return host_fail(HostErrc::kInvalidArgument, "refusing to delete foreign table " + n->name);
    }
    if (keep_ && keep_->family == n->family && keep_->name == n->name) return {};
    auto d = nft_->delete_table(n->family, n->name);
    if (!d) return fail(d.error());
    return {};
  }
  if (const auto* d = std::get_if<ResolvConfChange>(&e)) {
    ResolvConf rc(ResolvConfPaths{d->resolv_conf, d->backup});
    auto r = rc.recover();
    if (!r) return fail(r.error());
    return {};
  }
  if (const auto* s = std::get_if<SysctlChange>(&e)) {
    auto cur = read_sysctl(s->key);
    if (!cur) return fail(cur.error());
    if (*cur != s->new_value) return {};  // changed by someone else since: theirs now
    return write_sysctl(s->key, s->old_value);
  }
  return host_fail(HostErrc::kInvalidArgument, "unknown journal entry");
}

template <class F>
HostResult<std::uint64_t> HostChanges::journaled(const JournalEntry& e, F&& change) {
  auto id = journal_.record(e);
  if (!id) return fail(id.error());
  HostStatus st = change();
  if (!st) {
    // The change did not happen (the kernel refused it as a whole): nothing to undo.
    if (auto s = journal_.settle(*id); !s) return fail(s.error());
    return fail(st.error());
  }
  return *id;
}

HostResult<std::uint64_t> HostChanges::add_route(const Route& r) {
  return journaled(RouteChange{r}, [&] { return routes_.add(r); });
}

HostResult<std::uint64_t> HostChanges::apply_nat(const NatSpec& spec) {
  return journaled(NftTableChange{"inet", nat_table_name(spec.profile)},
                   [&] { return sys::apply_nat(nft_, spec); });
}

HostResult<std::uint64_t> HostChanges::engage_kill_switch(const KillSwitchSpec& spec) {
  return journaled(NftTableChange{"inet", kill_switch_table_name(spec.tun)},
                   [&] { return sys::engage_kill_switch(nft_, spec); });
}

HostResult<std::uint64_t> HostChanges::take_over_dns(ResolvConf& rc, const DnsSettings& dns,
                                                     const std::string& tun) {
  return journaled(ResolvConfChange{rc.paths().resolv_conf, rc.paths().backup},
                   [&] { return rc.take_over(dns, tun); });
}

HostResult<std::uint64_t> HostChanges::enable_forwarding(IpFamily family) {
  const std::string key = forwarding_key(family);
  auto old = read_sysctl(key);
  if (!old) return fail(old.error());
  if (*old == "1") return std::uint64_t{0};
  return journaled(SysctlChange{key, *old, "1"}, [&] { return write_sysctl(key, "1"); });
}

HostStatus HostChanges::revert(std::uint64_t id) {
  auto live = journal_.pending();
  if (!live) return fail(live.error());
  for (const JournalRecord& rec : *live) {
    if (rec.id != id) continue;
    SystemUndo undo(&routes_, &nft_);
    if (auto r = undo.undo(rec.entry); !r && r.error().code != HostErrc::kNotFound) return r;
    return journal_.settle(id);
  }
  return host_fail(HostErrc::kNotFound, "no pending journal entry " + std::to_string(id));
}

HostResult<CleanupReport> HostChanges::revert_all() {
  SystemUndo undo(&routes_, &nft_);
  return journal_.cleanup(undo);
}

HostResult<CleanupReport> HostChanges::revert_all_keeping_kill_switch(const std::string& tun) {
  SystemUndo undo(&routes_, &nft_);
  undo.keep_table("inet", kill_switch_table_name(tun));
  return journal_.cleanup(undo);
}

}  // namespace qeli::sys
