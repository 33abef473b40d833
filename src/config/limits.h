// Configuration limits shared by the loaders and the link codec (reference §5.5, §5.8).
#pragma once

#include <cstddef>
#include <cstdint>

namespace qeli::config {

inline constexpr std::uint32_t kMtuMin = 576;
inline constexpr std::uint32_t kMtuMax = 16638;  // largest payload a 16676-byte record carries
inline constexpr std::uint32_t kMtuDefault = 1400;
inline constexpr std::size_t kTunNameMaxBytes = 15;  // IFNAMSIZ - 1
inline constexpr std::uint32_t kAwgJcMax = 128;
inline constexpr std::uint32_t kAwgJunkMaxBytes = 1400;
inline constexpr std::uint32_t kAwgJminDefault = 40;
inline constexpr std::uint32_t kAwgJmaxDefault = 300;
inline constexpr std::size_t kShortIdMaxHex = 16;  // REALITY short id: 1..8 bytes as hex
inline constexpr std::uint32_t kTunQueuesMax = 256;
inline constexpr std::uint64_t kTunReadBufferMax = 1024 * 1024;
inline constexpr std::uint64_t kUdpBufferMax = 64 * 1024 * 1024;
inline constexpr std::uint32_t kTapHeaderBytes = 14;  // Ethernet header in front of TAP frames

inline constexpr const char* kDefaultServerConfig = "/etc/qeli/server.conf";
inline constexpr const char* kDefaultClientConfig = "/etc/qeli/client.conf";
inline constexpr const char* kDefaultUsersFile = "/etc/qeli/users.conf";
inline constexpr const char* kDefaultIdentityDir = "/etc/qeli/identity";

}  // namespace qeli::config
