#include "wire/record_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/endian.h"
#include "crypto/random.h"

namespace qeli::wire {
namespace {

// A stream of records of assorted sizes, sealed by a real codec.
struct Stream {
  explicit Stream(Framing f) : rng(9), key(), tx(f, key, rng) {
    Bytes rec(max_record_size(f));
    for (std::size_t len : {0UL, 1UL, 2UL, 100UL, 1500UL, kMaxTunnelMtu, 7UL, 0UL}) {
      Bytes data(len, static_cast<std::uint8_t>(len));
      auto n = tx.seal(data, len % 3, rec);
      EXPECT_TRUE(n.ok());
      records.emplace_back(rec.begin(), rec.begin() + static_cast<long>(*n));
      bytes.insert(bytes.end(), records.back().begin(), records.back().end());
    }
  }
  crypto::DeterministicRng rng;
  crypto::Key32 key;
  PacketCodec tx;
  std::vector<Bytes> records;
  Bytes bytes;
};

std::vector<Bytes> drain(RecordReader& r, ByteSpan in, std::size_t chunk) {
  std::vector<Bytes> out;
  while (!in.empty()) {
    const std::size_t take = std::min(chunk, in.size());
    std::size_t done = 0;
    while (done < take) {
      done += r.feed(in.subspan(done, take - done));
      for (auto n = r.next(); n.status == RecordReader::Status::kRecord; n = r.next()) {
        out.emplace_back(n.record.begin(), n.record.end());
      }
      if (r.error() != DeframeError::kNone) return out;
    }
    in = in.subspan(take);
  }
  return out;
}

class ReaderFraming : public ::testing::TestWithParam<Framing> {};
INSTANTIATE_TEST_SUITE_P(record_reader, ReaderFraming,
                         ::testing::Values(Framing::kTls, Framing::kRaw), [](const auto& p) {
                           return std::string(p.param == Framing::kTls ? "tls" : "raw");
                         });

TEST_P(ReaderFraming, any_split_gives_the_same_records) {
  Stream s(GetParam());
  for (std::size_t chunk : {1UL, 2UL, 3UL, 5UL, 13UL, 1000UL, 16681UL, 100000UL}) {
    RecordReader r(GetParam(), kMaxRecordPayload);
    EXPECT_EQ(drain(r, s.bytes, chunk), s.records) << chunk;
    EXPECT_TRUE(r.buffered().empty());
  }
}

TEST_P(ReaderFraming, every_split_point_of_two_records) {
  Stream s(GetParam());
  Bytes two = s.records[3];
  two.insert(two.end(), s.records[4].begin(), s.records[4].end());
  for (std::size_t cut = 0; cut <= two.size(); ++cut) {
    RecordReader r(GetParam(), kMaxRecordPayload);
    std::vector<Bytes> got = drain(r, ByteSpan(two).first(cut), two.size());
    auto rest = drain(r, ByteSpan(two).subspan(cut), two.size());
    got.insert(got.end(), rest.begin(), rest.end());
    ASSERT_EQ(got.size(), 2U) << cut;
    EXPECT_EQ(got[0], s.records[3]);
    EXPECT_EQ(got[1], s.records[4]);
  }
}

TEST_P(ReaderFraming, write_space_and_commit_receive_in_place) {
  Stream s(GetParam());
  RecordReader r(GetParam(), kMaxRecordPayload);
  std::vector<Bytes> got;
  ByteSpan in = s.bytes;
  while (!in.empty()) {
    MutableByteSpan space = r.write_space();
    ASSERT_FALSE(space.empty());
    const std::size_t n = std::min<std::size_t>({space.size(), in.size(), 777});
    std::copy_n(in.begin(), n, space.begin());
    r.commit(n);
    in = in.subspan(n);
    for (auto x = r.next(); x.status == RecordReader::Status::kRecord; x = r.next()) {
      got.emplace_back(x.record.begin(), x.record.end());
    }
  }
  EXPECT_EQ(got, s.records);
}

TEST_P(ReaderFraming, over_long_record_is_a_sticky_counted_error) {
  const std::size_t hdr = header_size(GetParam());
  Bytes h(hdr);
  if (GetParam() == Framing::kTls) h = {0x17, 0x03, 0x03, 0, 0};
  store_be16(h.data() + hdr - 2, static_cast<std::uint16_t>(kMaxRecordPayload + 1));
  RecordReader r(GetParam(), kMaxRecordPayload);
  // Arriving one byte at a time: the error appears as soon as the header is complete.
  for (std::size_t i = 0; i < hdr; ++i) {
    EXPECT_EQ(r.feed(ByteSpan(h).subspan(i, 1)), 1U);
    const auto n = r.next();
    EXPECT_EQ(n.status,
              i + 1 < hdr ? RecordReader::Status::kNeedMore : RecordReader::Status::kError);
  }
  EXPECT_EQ(r.error(), DeframeError::kRecordTooLarge);
  EXPECT_EQ(r.feed(h), 0U);
  EXPECT_TRUE(r.write_space().empty());
  EXPECT_EQ(r.next().status, RecordReader::Status::kError);
}

TEST(record_reader, max_payload_is_exactly_allowed) {
  Bytes rec(5 + kMaxRecordPayload);
  rec[0] = 0x17, rec[1] = 3, rec[2] = 3;
  store_be16(rec.data() + 3, static_cast<std::uint16_t>(kMaxRecordPayload));
  RecordReader r(Framing::kTls, kMaxRecordPayload);
  EXPECT_EQ(drain(r, rec, 4096).size(), 1U);
  EXPECT_EQ(r.error(), DeframeError::kNone);
}

TEST(record_reader, tls_version_is_checked) {
  const Bytes bad = {0x17, 0x02, 0x03, 0, 1, 0};
  RecordReader r(Framing::kTls, kMaxRecordPayload);
  EXPECT_TRUE(drain(r, bad, 10).empty());
  EXPECT_EQ(r.error(), DeframeError::kBadVersion);
  const Bytes hello = {0x16, 0x03, 0x01, 0, 1, 0};  // 03 01 is accepted for hellos
  RecordReader r2(Framing::kTls, kMaxRecordPayload);
  EXPECT_EQ(drain(r2, hello, 10).size(), 1U);
}

TEST(record_reader, buffered_returns_leftover_bytes) {
  const Bytes in = {0x00, 0x01, 0xAA, 0x00, 0x05, 1, 2};
  RecordReader r(Framing::kRaw, kMaxRecordPayload);
  ASSERT_EQ(r.feed(in), in.size());
  auto n = r.next();
  ASSERT_EQ(n.status, RecordReader::Status::kRecord);
  EXPECT_EQ(to_hex(n.record), "0001aa");
  EXPECT_EQ(r.next().status, RecordReader::Status::kNeedMore);
  EXPECT_EQ(to_hex(r.buffered()), "00050102");
}

}  // namespace
}  // namespace qeli::wire
