// "Did you mean": the known word closest to a mistyped one (qeli's subcommands, config
// keys).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qeli {

/// Levenshtein distance (insertions, deletions, substitutions; an adjacent swap counts 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name in `names` closest to `word`: a name that `word` is a prefix of (at least 3
/// characters), else the nearest by edit_distance() if it is at most 2 edits (1 for
/// words of up to 4 characters). Ties go to the first in `names`. nullopt if none is close.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& names);

}  // namespace qeli
