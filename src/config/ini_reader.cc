#include "config/ini_reader.h"

#include <ini.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "config/values.h"

namespace qeli::config {
namespace {

// Our reader hands inih one line per call, so the line number of the entry inih passes
// to the handler is the number of lines read so far (continuation lines are off).
struct ParseState {
  std::string_view rest;
  std::string_view current;  // the raw text of the line inih is processing
  int line = 0;
  std::string file;
  IniDocument* doc = nullptr;
  Findings* findings = nullptr;
};

bool is_section_header(std::string_view t) { return t.size() >= 2 && t.front() == '['; }

char* read_line(char* str, int num, void* stream) {
  auto* st = static_cast<ParseState*>(stream);
  if (st->rest.empty()) return nullptr;
  auto nl = st->rest.find('\n');
  std::string_view line = st->rest.substr(0, nl == std::string_view::npos ? st->rest.size() : nl);
  st->rest.remove_prefix(nl == std::string_view::npos ? st->rest.size() : nl + 1);
  ++st->line;
  if (st->line == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // UTF-8 BOM
  if (line.size() > kMaxLineBytes || line.size() + 2 > static_cast<std::size_t>(num)) {
    st->findings->error(st->file, "", "", st->line,
                        "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    line = {};  // hand inih an empty line: nothing of it is used
  } else if (line.find('\0') != std::string_view::npos) {
    // inih works on C strings and would silently cut the value at the NUL.
    st->findings->error(st->file, "", "", st->line, "NUL byte in line");
    line = {};
  }
  st->current = line;
  // Section headers are tracked here (inih only reports key/value pairs), so empty
  // sections and their line numbers are known too.
  const auto t = trim(line);
  if (is_section_header(t) && t.find(']') != std::string_view::npos) {
    const auto close = t.find(']');
    st->doc->sections.push_back({std::string(trim(t.substr(1, close - 1))), st->line, {}});
  }
  if (!line.empty()) std::memcpy(str, line.data(), line.size());  // data() may be null
  str[line.size()] = '\n';
  str[line.size() + 1] = '\0';
  return str;
}

int on_pair(void* user, const char* section, const char* name, const char* value) {
  auto* st = static_cast<ParseState*>(user);
  std::string_view v = value != nullptr ? value : "";
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  auto& secs = st->doc->sections;
  // A key before any header goes to an implicit unnamed section so the loader can report
  // it. Section and key names come from the raw line, not from inih, because inih cuts
  // them at 50 bytes (a long `pool.reservation.<user>` would otherwise change silently).
  (void)section;
  if (secs.empty()) secs.push_back({"", 0, {}});
  const auto sep = st->current.find_first_of("=:");
  const std::string_view key =
      sep == std::string_view::npos ? std::string_view(name) : trim(st->current.substr(0, sep));
  secs.back().entries.push_back({std::string(key), std::string(v), st->line});
  return 1;
}

// inih's behaviour switches are process globals (Debian builds them as runtime
// variables); set them once, before the first parse, and never change them again.
void configure_inih() {
  static std::once_flag once;
  std::call_once(once, [] {
    ini_allow_inline_comments = false;
    ini_allow_multiline = false;
    ini_allow_bom = true;
    ini_stop_on_first_error = false;
    ini_allow_no_value = false;
    ini_use_stack = false;
    ini_allow_realloc = false;
    ini_initial_alloc = static_cast<int>(kMaxLineBytes + 3);
    ini_max_line = static_cast<int>(kMaxLineBytes + 3);
  });
}

}  // namespace

IniDocument parse_ini(std::string_view text, std::string_view file, Findings& findings) {
  configure_inih();
  IniDocument doc;
  doc.file = std::string(file);
  Findings syntax;
  ParseState st{text, {}, 0, std::string(file), &doc, &syntax};
  const int rc = ini_parse_stream(read_line, &st, on_pair, &st);
  findings.append(syntax);  // over-long lines, reported by the reader
  if (rc < 0) {
    findings.error(file, "", "", 0, "INI parser could not allocate its line buffer");
  } else if (rc > 0) {
    // inih reports the first malformed line only; say what a line must look like.
    findings.error(file, "", "", rc,
                   "syntax error: expected `key = value`, `[section]` or a comment line "
                   "starting with # or ;");
  }
  return doc;
}

bool read_config_text(const std::string& path, std::string& out, Findings& findings) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    findings.error(path, "", "", 0, "cannot open: no such file");
    return false;
  }
  if (!std::filesystem::is_regular_file(status)) {
    findings.error(path, "", "", 0, "not a regular file");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    findings.error(path, "", "", 0, std::string("cannot open: ") + std::strerror(errno));
    return false;
  }
  out.clear();
  char buf[8192];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (out.size() > kMaxFileBytes) {
      findings.error(path, "", "", 0,
                     "file larger than " + std::to_string(kMaxFileBytes) + " bytes");
      return false;
    }
  }
  return true;
}

bool read_ini_file(const std::string& path, IniDocument& out, Findings& findings) {
  std::string text;
  if (!read_config_text(path, text, findings)) return false;
  out = parse_ini(text, path, findings);
  return true;
}

}  // namespace qeli::config
