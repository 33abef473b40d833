// Structured journal fields for the lines the current thread logs (journald sink only:
// terminal and file lines are unchanged). A session's thread opens one scope with the
// user, profile and tunnel address, and every line it logs can then be found with
// `journalctl QELI_USER=alice`.
//
//   sys::LogFields f{{"QELI_USER", user}, {"QELI_PROFILE", profile}};
//
// Names follow journald's rules (upper case, digits and `_`, not starting with `_`;
// a bad name is a bug and aborts in debug builds). Scopes nest; each removes exactly
// what it added. Thread-local: no locking.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace qeli::sys {

class LogFields {
 public:
  using Field = std::pair<std::string, std::string>;
  LogFields(std::initializer_list<Field> fields);
  ~LogFields();
  LogFields(const LogFields&) = delete;
  LogFields& operator=(const LogFields&) = delete;

  /// Every field in scope on this thread, outermost first, as "NAME=value".
  static const std::vector<std::string>& current();

 private:
  std::size_t added_ = 0;
};

/// True for a valid journal field name.
bool valid_journal_field_name(const std::string& name);

}  // namespace qeli::sys
