#include "server/webhook_envelope.h"

#include <array>
#include <ctime>
#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "crypto/base64.h"
#include "crypto/sha256.h"

namespace qeli::server {
namespace {

std::string rfc3339_ms(std::int64_t unix_ms) {
  const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::array<char, 32> b{};
  const std::size_t n = std::strftime(b.data(), b.size(), "%Y-%m-%dT%H:%M:%S", &tm);
  char ms[8];
  std::snprintf(ms, sizeof(ms), ".%03dZ", static_cast<int>(unix_ms % 1000));
  return std::string(b.data(), n) + ms;
}

}  // namespace

std::string new_webhook_id(crypto::Rng& rng) {
  std::array<std::uint8_t, 12> b{};
  rng.fill(b);
  return "msg_" + to_hex(b);
}

std::string webhook_body(const control::Event& e, std::string_view id, std::string_view node) {
  nlohmann::ordered_json data;
  if (!e.profile.empty()) data["profile"] = e.profile;
  if (!e.username.empty()) data["username"] = e.username;
  if (!e.device.empty()) data["device"] = e.device;
  if (!e.ip.empty()) data["ip"] = e.ip;
  if (!e.reason.empty()) data["reason"] = e.reason;
  if (e.type == "session.disconnected") {
    data["rx_bytes"] = e.rx_bytes;
    data["tx_bytes"] = e.tx_bytes;
  }
  nlohmann::ordered_json j;
  j["id"] = id;
  j["type"] = e.type;
  j["created_at"] = rfc3339_ms(e.unix_ms);
  j["node"] = node;
  j["data"] = data.is_null() ? nlohmann::ordered_json::object() : data;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string webhook_signature(std::string_view secret, std::string_view id, std::int64_t unix_secs,
                              std::string_view body) {
  std::string signed_content;
  signed_content.reserve(id.size() + body.size() + 24);
  signed_content.append(id).append(".").append(std::to_string(unix_secs)).append(".").append(body);
  const auto mac = crypto::hmac_sha256(
      {reinterpret_cast<const std::uint8_t*>(secret.data()), secret.size()},
      {reinterpret_cast<const std::uint8_t*>(signed_content.data()), signed_content.size()});
  return "v1," + crypto::base64_encode(mac);
}

}  // namespace qeli::server
