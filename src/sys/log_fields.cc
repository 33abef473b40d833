#include "sys/log_fields.h"

#include <cassert>

namespace qeli::sys {
namespace {

std::vector<std::string>& fields() {
  thread_local std::vector<std::string> f;
  return f;
}

}  // namespace

bool valid_journal_field_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '_') return false;
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

LogFields::LogFields(std::initializer_list<Field> list) {
  for (const auto& [name, value] : list) {
    assert(valid_journal_field_name(name));
    if (!valid_journal_field_name(name)) continue;
    // A value with a newline would need journald's binary encoding; fields are short
    // names and addresses, so the newline is replaced instead.
    std::string v = value;
    for (char& c : v) {
      if (c == '\n') c = ' ';
    }
    fields().push_back(name + "=" + v);
    ++added_;
  }
}

LogFields::~LogFields() { fields().resize(fields().size() - added_); }

const std::vector<std::string>& LogFields::current() { return fields(); }

}  // namespace qeli::sys
