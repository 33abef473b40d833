// The journal line parser (the file may be torn or edited by hand): never crashes, and
// whatever it accepts and can re-encode round-trips exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sys/host_journal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto entry = qeli::sys::decode_journal_entry(line);
  if (!entry.ok()) return 0;
  auto text = qeli::sys::encode_journal_entry(*entry);
  if (!text.ok()) return 0;  // e.g. a tab inside a field: accepted on read, never written
  auto again = qeli::sys::decode_journal_entry(*text);
  if (!again.ok()) std::abort();
  auto text2 = qeli::sys::encode_journal_entry(*again);
  if (!text2.ok() || *text2 != *text || again->index() != entry->index()) std::abort();
  return 0;
}
