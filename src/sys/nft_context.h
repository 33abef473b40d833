// A libnftables context: runs nft scripts in one kernel transaction and returns the
// output or the error text, never printing to stdout/stderr.
//
// All commands of one run() call go to the kernel as ONE netlink batch, so a script that
// deletes a stale table and adds the new one is atomic: packets see either the old or the
// new ruleset, never none (nft(8), "atomic rule replacement").
//
// Thread-safety: not thread-safe; one context per thread. Network namespace: libnftables
// opens its netlink socket in the namespace of the thread that creates the context.
#pragma once

#include <string>
#include <string_view>

#include "sys/host_error.h"

struct nft_ctx;

namespace qeli::sys {

class NftContext {
 public:
  static HostResult<NftContext> open();

  NftContext(NftContext&&) noexcept;
  NftContext& operator=(NftContext&&) noexcept;
  ~NftContext();

  /// Runs `script` (nft syntax, several commands separated by newlines) as one
  /// transaction. Returns what nft printed (empty for changes). On rejection returns
  /// kNftables with libnftables' error text, and nothing was changed; kNotFound when
  /// the error says the object does not exist (ENOENT).
  HostResult<std::string> run(std::string_view script);

  /// Like run() but the output is JSON (libnftables-json(5)), e.g. for "list table".
  HostResult<std::string> run_json(std::string_view script);

  /// True if `family name` exists (e.g. "inet", "qeli_ks_tun0").
  HostResult<bool> table_exists(std::string_view family, std::string_view name);

  /// Deletes table `family name`; a missing table is success (returns false then).
  HostResult<bool> delete_table(std::string_view family, std::string_view name);

 private:
  explicit NftContext(nft_ctx* ctx);
  HostResult<std::string> run_with_flags(std::string_view script, bool json);
  nft_ctx* ctx_ = nullptr;
};

}  // namespace qeli::sys
