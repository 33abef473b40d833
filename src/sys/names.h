// Names that sys/ pastes into kernel requests and nftables scripts. Anything that fails
// these checks is refused with kInvalidArgument before it reaches the kernel, so a config
// value can never change the meaning of a ruleset (no quotes, spaces, braces, newlines).
#pragma once

#include <string_view>

namespace qeli::sys {

/// Linux interface name: 1..15 bytes (IFNAMSIZ - 1) of [A-Za-z0-9_.-], not "." or "..".
bool is_valid_ifname(std::string_view name);

/// The part of an nftables table name that we append to "qeli_nat_" / "qeli_ks_":
/// 1..32 bytes of [A-Za-z0-9_.-] (a subset of the nft identifier grammar).
bool is_valid_name_suffix(std::string_view name);

/// A whole nftables table/set name as we use them: 1..64 bytes of [A-Za-z0-9_.-]
/// starting with a letter (nft's identifier grammar starts with a letter).
bool is_valid_nft_name(std::string_view name);

}  // namespace qeli::sys
