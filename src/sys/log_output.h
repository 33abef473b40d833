// Where qeli's log lines go and how they look (docs/CONFIG.md §4, docs/OPERATIONS.md
// "Logs"). One default spdlog logger for the whole process, with exactly one sink:
//
//   * `file` set            → that file, appended, each line one write(2) (O_APPEND), with
//                             the configured time format; reopen_log_file() (SIGHUP) opens
//                             the path again, so logrotate's rename + create works;
//   * stderr is the journal → journald's native protocol (sd_journal_sendv): PRIORITY from
//                             the level, SYSLOG_IDENTIFIER=qeli, no time in the text
//                             (journald stamps each entry), and the calling thread's
//                             LogFields (QELI_USER=…, journalctl QELI_USER=alice);
//                             "the journal" = $JOURNAL_STREAM names stderr's device:inode,
//                             which is how systemd hands a service its stream;
//   * otherwise             → stderr with the configured time format (colours on a TTY).
//
// Thread-safety: the sinks lock internally; configure_logging() and reopen_log_file()
// may be called from the signal-handling thread while others log.
#pragma once

#include <string>

#include "base/log_options.h"
#include "base/result.h"

namespace qeli::sys {

enum class LogDestination { kStderr, kJournal, kFile };

/// Installs the default logger for `o`. `QELI_LOG_LEVEL` in the environment (one of the
/// level names) overrides `o.level`, so a unit can be debugged without editing its
/// config. Error (nothing changed): the file cannot be opened, with errno's text.
Status<std::string> configure_logging(const LogOptions& o);

/// Opens the configured file again (after logrotate moved it). No-op without a file.
/// Error (the old descriptor is kept, logging goes on): the path cannot be opened.
Status<std::string> reopen_log_file();

/// Where configure_logging() sent the lines.
LogDestination log_destination();

/// True when $JOURNAL_STREAM ("DEV:INODE") names the file behind fd 2.
bool stderr_is_journal();

/// The spdlog pattern for a terminal or file line in `format` (pure; tested).
std::string log_pattern(TimeFormat format);

/// Parses a level name (error|warn|info|debug|trace); false for anything else.
bool parse_log_level(const std::string& name, LogLevel& out);

}  // namespace qeli::sys
