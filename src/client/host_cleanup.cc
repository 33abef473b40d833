#include "client/host_cleanup.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "client/state_paths.h"
#include "sys/host_journal.h"
#include "sys/host_undo.h"
#include "sys/netns_identity.h"
#include "sys/nft_kill_switch.h"
#include "sys/route_table.h"

namespace qeli::client {
namespace {

namespace fs = std::filesystem;

std::string this_netns_suffix() {
  auto ns = sys::current_netns();
  return ns.ok() ? sys::netns_suffix(*ns) : std::string();
}

std::string registry_file(const std::string& dev, const std::string& ns) {
  return state_registry_dir() + "/journal-" + dev + ns + ".path";
}

// Journals of this namespace: the registry's, then those found in the state dirs.
std::vector<std::string> find_journals(const CleanupOptions& o, const std::string& ns) {
  std::vector<std::string> out = o.journals;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state_registry_dir(), ec)) {
    const auto name = e.path().filename().string();
    if (!name.ends_with(".path")) continue;
    auto j = parse_journal_name(name.substr(0, name.size() - 5) + ".log");
    if (!j || j->netns_suffix != ns) continue;
    std::ifstream in(e.path());
    std::string path;
    if (std::getline(in, path) && !path.empty()) out.push_back(path);
  }
  std::vector<std::string> dirs = o.state_dirs;
  dirs.emplace_back(kDefaultStateDir);
  for (const auto& dir : dirs) {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      auto j = parse_journal_name(e.path().filename().string());
      if (j && j->netns_suffix == ns) out.push_back(e.path().string());
    }
  }
  std::set<std::string> seen;
  std::erase_if(out, [&](const std::string& p) {
    std::error_code c;
    const auto canon = fs::weakly_canonical(p, c).string();
    return !fs::exists(p, c) || !seen.insert(c ? p : canon).second;
  });
  return out;
}

}  // namespace

std::string state_registry_dir() {
  const char* run = std::getenv("QELI_RUN_DIR");
  return std::string(run != nullptr && *run != '\0' ? run : "/run/qeli") + "/client-state";
}

void register_journal(const std::string& dev, const std::string& journal_path) {
  std::error_code ec;
  fs::create_directories(state_registry_dir(), ec);
  const std::string f = registry_file(dev, this_netns_suffix());
  std::ofstream out(f, std::ios::trunc);
  out << fs::absolute(journal_path, ec).string() << "\n";
  if (!out)
    spdlog::warn("cannot register the host journal in {} (`--cleanup` looks in {} too)", f,
                 kDefaultStateDir);
}

void unregister_journal(const std::string& dev) {
  std::error_code ec;
  fs::remove(registry_file(dev, this_netns_suffix()), ec);
}

int cleanup_host(const CleanupOptions& o) {
  const std::string ns = this_netns_suffix();
  auto rt = sys::RouteTable::open();
  auto nft = sys::NftContext::open();
  if (!rt.ok() || !nft.ok()) {
    spdlog::error("cleanup: cannot open {}: {}", !rt.ok() ? "netlink" : "nftables",
                  !rt.ok() ? rt.error().detail : nft.error().detail);
    return 1;
  }
  std::set<std::string> running;  // devs whose client still holds its journal
  std::size_t undone = 0, journals = 0, failures = 0;
  for (const auto& path : find_journals(o, ns)) {
    const auto name = parse_journal_name(fs::path(path).filename().string());
    auto j = sys::HostJournal::open(path);
    if (!j.ok() && j.error().code == sys::HostErrc::kExists) {
      if (name) running.insert(name->dev);
      spdlog::info("cleanup: {} belongs to a running client (dev {}): left alone", path,
                   name ? name->dev : "?");
      continue;
    }
    if (!j.ok()) {
      spdlog::error("cleanup: {}: {}", path, j.error().detail);
      ++failures;
      continue;
    }
    sys::HostChanges host(*j, *rt, *nft);
    auto report = host.revert_all();
    ++journals;
    if (!report.ok()) {
      spdlog::error("cleanup: {}: {}", path, report.error().detail);
      ++failures;
      continue;
    }
    undone += report->undone;
    for (const auto& f : report->failures) spdlog::error("cleanup: {}: {}", path, f.detail);
    failures += report->failures.size();
    if (report->undone > 0) spdlog::info("cleanup: {}: undid {} change(s)", path, report->undone);
    if (report->failures.empty() && name) unregister_journal(name->dev);
  }
  // Kill-switch tables of clients that are not running, journaled or not.
  auto tables = sys::kill_switch_tunnels(*nft);
  if (tables.ok()) {
    for (const auto& dev : *tables) {
      if (running.count(dev) != 0) continue;
      if (auto gone = sys::cleanup_kill_switch(*nft, dev); gone.ok() && *gone) {
        ++undone;
        spdlog::info("cleanup: removed the kill switch of {} (table inet {})", dev,
                     sys::kill_switch_table_name(dev));
      }
    }
    tables = sys::kill_switch_tunnels(*nft);
  }
  if (!tables.ok()) {
    spdlog::error("cleanup: cannot list nftables tables: {}", tables.error().detail);
    return 1;
  }
  int rc = failures == 0 ? 0 : 1;
  for (const auto& dev : *tables) {
    if (running.count(dev) != 0) continue;
    spdlog::error(
        "cleanup: the kill switch of {} is still in place and keeps this host offline: remove "
        "it with `nft delete table inet {}`",
        dev, sys::kill_switch_table_name(dev));
    rc = 1;
  }
  spdlog::info("cleanup: undid {} change(s) from {} journal(s){}; {} failure(s)", undone, journals,
               running.empty() ? "" : " (running clients left alone)", failures);
  return rc;
}

}  // namespace qeli::client
