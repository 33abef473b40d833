// dns.blocklist: names the proxy answers itself instead of asking upstream. A listed
// domain blocks itself and every name under it (`example.com` blocks
// `ads.example.com`, not `badexample.com`); see writer.h blocked_reply() for the answer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>

namespace qeli::dns {

class Blocklist {
 public:
  /// Adds a domain in canonical wire form (dns::parse_domain()).
  void add(std::string wire_name) { names_.insert(std::move(wire_name)); }
  /// Whether `wire_name` (canonical) or one of its parent domains is listed: one hash
  /// lookup per label.
  bool blocks(std::string_view wire_name) const;
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_set<std::string> names_;
};

}  // namespace qeli::dns
