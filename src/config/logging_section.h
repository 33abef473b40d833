// The [logging] section, the same keys for the server and the client config (0.7.16).
#pragma once

#include "config/section_reader.h"
#include "config/server_config.h"

namespace qeli::config {

/// Reads `level` (error|warn|info|debug|trace, default info), `file` (empty = stderr;
/// relative = from the config file's directory, which start-up and check-config require to
/// exist),
/// `time_format` (datetime|rfc3339|time|epoch|none, default datetime) and `format`
/// (accepted with a warning: 0.7.16 ignores it too). Bad values become findings of `r`.
LoggingConfig read_logging_section(SectionReader& r);

/// The same keys as text, unchecked (an app's profile, libqeli: 0.7.16 takes any values
/// there and the library writes no log file): the defaults are kept.
void accept_logging_section(SectionReader& r);

}  // namespace qeli::config
