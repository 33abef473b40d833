// The operators' tables: a cell wider than its header never runs into the next column
// (a trial read `reality_bridged_unknown_short_id5` from `qeli stats`).
#include "cli/text_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace qeli::cli {
namespace {

std::string print(const TextTable& t) {
  std::ostringstream out;
  t.print(out);
  return out.str();
}

TEST(TextTable, ColumnsAreAsWideAsTheirWidestCellPlusTwo) {
  TextTable t({"IP", "USER", "N"});
  t.row("10.0.0.1", "alice", 5);
  t.row("192.168.100.200", "(every user)", 12);
  EXPECT_EQ(print(t),
            "IP               USER          N\n"
            "10.0.0.1         alice         5\n"
            "192.168.100.200  (every user)  12\n");
}

TEST(TextTable, WithoutHeadersALongNameStillLeavesAGap) {
  TextTable t;
  t.row("tcp", "reality_bridged_unknown_short_id", 5U);
  t.row("tcp", "sessions", 1.5);
  EXPECT_EQ(print(t),
            "tcp  reality_bridged_unknown_short_id  5\n"
            "tcp  sessions                          1.5\n");
}

TEST(TextTable, EmptyTablePrintsNothing) { EXPECT_EQ(print(TextTable{}), ""); }

}  // namespace
}  // namespace qeli::cli
