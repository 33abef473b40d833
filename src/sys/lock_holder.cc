#include "sys/lock_holder.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <charconv>
#include <vector>

#include "sys/file_util.h"

namespace qeli::sys {
namespace {

constexpr std::size_t kMaxProcLocks = 1024 * 1024;

template <class N>
bool number(std::string_view s, N& out, int base) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return !s.empty() && ec == std::errc{} && p == s.data() + s.size();
}

}  // namespace

std::optional<long> find_lock_holder(std::string_view text, unsigned dev_major, unsigned dev_minor,
                                     std::uint64_t inode) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const auto w = split_words(line);
    // id: TYPE MODE ACCESS PID MAJ:MIN:INODE START END
    if (w.size() < 6 || w[1] == "->") continue;
    const std::string_view file = w[5];
    const std::size_t c1 = file.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : file.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    unsigned maj = 0, min = 0;
    std::uint64_t ino = 0;
    long pid = 0;
    if (!number(file.substr(0, c1), maj, 16) ||
        !number(file.substr(c1 + 1, c2 - c1 - 1), min, 16) ||
        !number(file.substr(c2 + 1), ino, 10) || !number(w[4], pid, 10)) {
      continue;
    }
    if (maj == dev_major && min == dev_minor && ino == inode && pid > 0) return pid;
  }
  return std::nullopt;
}

std::optional<long> lock_holder(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto text = read_small_file("/proc/locks", kMaxProcLocks);
  if (!text) return std::nullopt;
  return find_lock_holder(*text, major(st.st_dev), minor(st.st_dev),
                          static_cast<std::uint64_t>(st.st_ino));
}

}  // namespace qeli::sys
