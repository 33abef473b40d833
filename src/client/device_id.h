// The client's stable 16-byte device id (qeli 0.7.16 §6.3): /var/lib/qeli/device-id (env
// QELI_DEVICE_ID_FILE), 16 random bytes created on first use; an all-zero or malformed file
// is regenerated. The server keys sessions by user + device id, so a reconnecting device
// supersedes itself and keeps its address.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace qeli::client {

using DeviceId = std::array<std::uint8_t, 16>;

std::string default_device_id_path();

/// Loads or creates the id at `path`. If the file cannot be written, returns a fresh
/// random id for this run (the server then sees a new device after each restart).
DeviceId load_device_id(const std::string& path);

}  // namespace qeli::client
