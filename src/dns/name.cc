#include "dns/name.h"

#include "dns/limits.h"

namespace qeli::dns {
namespace {

char lower(std::uint8_t c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); }

bool domain_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

}  // namespace

bool read_name(ByteSpan msg, std::size_t& offset, std::string& out) {
  out.clear();
  std::size_t pos = offset;
  std::size_t next = 0;  // where the caller continues: after the name or its first pointer
  // After a jump every byte read lies before the pointer that jumped: a compressed name
  // is a suffix written earlier, never bytes that come later (which a truncation of the
  // message could cut off).
  std::size_t limit = msg.size();
  bool jumped = false;
  std::size_t hops = 0;
  for (;;) {
    if (pos >= limit) return false;
    const std::uint8_t len = msg[pos];
    if ((len & 0xC0) == 0xC0) {
      if (pos + 1 >= limit || ++hops > kMaxPointerHops) return false;
      const std::size_t target = (static_cast<std::size_t>(len & 0x3F) << 8) | msg[pos + 1];
      // Only backwards (every chain ends), and never into the header, whose bytes the
      // proxy rewrites (ID, flags, counts): a name must not change with them.
      if (target >= pos || target < kHeaderSize) return false;
      if (!jumped) next = pos + 2;
      jumped = true;
      limit = pos;
      pos = target;
      continue;
    }
    if ((len & 0xC0) != 0) return false;  // 0x40 / 0x80: extended / reserved label types
    if (len == 0) {
      out.push_back('\0');
      if (!jumped) next = pos + 1;
      break;
    }
    if (pos + len >= limit || out.size() + 1 + len + 1 > kMaxNameWire) return false;
    out.push_back(static_cast<char>(len));
    for (std::size_t i = 0; i < len; ++i) out.push_back(lower(msg[pos + 1 + i]));
    pos += 1 + len;
  }
  offset = next;
  return true;
}

std::optional<std::string> parse_domain(std::string_view text) {
  if (text.size() >= 2 && text.substr(0, 2) == "*.") text.remove_prefix(2);
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  if (text.empty() || text.size() > 253) return std::nullopt;
  std::string wire;
  while (true) {
    const std::size_t dot = text.find('.');
    const std::string_view label = text.substr(0, dot);
    if (label.empty() || label.size() > kMaxLabel) return std::nullopt;
    wire.push_back(static_cast<char>(label.size()));
    for (char c : label) {
      const char l = lower(static_cast<std::uint8_t>(c));
      if (!domain_char(l)) return std::nullopt;
      wire.push_back(l);
    }
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  wire.push_back('\0');
  return wire;
}

std::string to_text(std::string_view wire_name) {
  std::string out;
  std::size_t pos = 0;
  while (pos < wire_name.size()) {
    const auto len = static_cast<std::uint8_t>(wire_name[pos]);
    if (len == 0) break;
    for (std::size_t i = 1; i <= len && pos + i < wire_name.size(); ++i) {
      const auto c = static_cast<std::uint8_t>(wire_name[pos + i]);
      if (c > 0x20 && c < 0x7f && c != '.' && c != '\\') {
        out.push_back(static_cast<char>(c));
      } else {
        out += '\\';
        out += static_cast<char>('0' + c / 100);
        out += static_cast<char>('0' + c / 10 % 10);
        out += static_cast<char>('0' + c % 10);
      }
    }
    out.push_back('.');
    pos += 1 + len;
  }
  return out.empty() ? "." : out;
}

std::string_view parent(std::string_view wire_name) {
  if (wire_name.empty() || wire_name[0] == '\0') return wire_name;
  const auto len = static_cast<std::uint8_t>(wire_name[0]);
  return wire_name.substr(std::min<std::size_t>(wire_name.size(), 1 + len));
}

}  // namespace qeli::dns
