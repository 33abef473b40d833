// The one home of the features docs/CONFIG.md documents but this build does not have yet.
//
// A documented key either does what the docs say or is refused with the same message by
// `qeli check-config`, start-up and a reload — all three run the loaders, and the loaders
// call the functions below. Each row names the key, the value that asks for the missing
// feature, and why it is refused. When a feature lands, delete its row (and the row's
// example in tests/unit/config/documented_keys_test.cc fails until its behaviour test is
// named there).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "config/client_config.h"
#include "config/server_config.h"

namespace qeli::config {

/// Where a row's key lives: a server profile, the server's [web] section, or the
/// client's [qeli] section (which a qeli:// link fills too).
enum class UnbuiltScope { kProfile, kWeb, kClient };

/// One refused feature. `example` is a value (with `context`, other lines the section
/// needs so the row is reached, e.g. an obfs key) that the documented-keys test writes
/// to prove the refusal.
struct UnbuiltFeature {
  UnbuiltScope scope;
  std::string_view key;
  std::string_view example;
  std::string_view context;  // extra "key = value" lines, '\n'-separated; may be empty
  std::string_view reason;   // what is missing, and what to do instead
};

/// Every row, for tests and docs.
std::span<const UnbuiltFeature> unbuilt_features();

/// "not supported yet: <reason>" — the message of every refusal.
std::string unbuilt_message(const UnbuiltFeature& f);

/// Reports (as errors, through `refuse(key, message)`) each row that the parsed section
/// asks for.
using RefuseFn = std::function<void(std::string_view key, std::string message)>;
void refuse_unbuilt(const ProfileConfig& p, const RefuseFn& refuse);
void refuse_unbuilt(const WebConfig& w, const RefuseFn& refuse);
void refuse_unbuilt(const ClientConfig& c, const RefuseFn& refuse);

}  // namespace qeli::config
