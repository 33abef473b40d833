// transport::Stream: the overhead arithmetic of a layer stack, TcpStream's partial writes
// (pending until resume(), the caller's bytes untouched meanwhile), and a layer that
// frames in place (the test-only XOR layer, tests/fakes/xor_stream.h) over a TcpStream.
#include "transport/stream.h"

#include <poll.h>

#include <gtest/gtest.h>

#include <thread>

#include "fakes/socket_stream_pair.h"
#include "fakes/stream_read.h"
#include "fakes/xor_stream.h"
#include "transport/stream_io.h"

namespace qeli::transport {
namespace {

using test::read_exactly;

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 13);
  return b;
}

TEST(StreamOverhead, LayersAddUpAndTheTighterChunkLimitWins) {
  constexpr Overhead tcp{};
  EXPECT_EQ(tcp.max_chunk, kUnlimitedChunk);
  constexpr Overhead ws = tcp.with_layer(14, 0);  // a WebSocket frame header, no limit
  EXPECT_EQ(ws, (Overhead{14, 0, kUnlimitedChunk}));
  // TLS 1.3 over it: 5-byte header, content type + 16-byte tag after, 16384 plaintext.
  constexpr Overhead tls = ws.with_layer(5, 17, 16384);
  EXPECT_EQ(tls, (Overhead{19, 17, 16384}));
  // A layer above TLS: its framed chunk must fit one TLS record.
  constexpr Overhead top = tls.with_layer(2, 1);
  EXPECT_EQ(top, (Overhead{21, 18, 16384 - 3}));
  EXPECT_EQ(top.with_layer(0, 0, 100).max_chunk, 100U);
}

TEST(TcpStream, AWriteTheKernelCannotTakeStaysPendingUntilResumed) {
  auto sp = test::socket_stream_pair();
  ASSERT_GE(sp.a.fd(), 0);
  // More than any AF_UNIX buffer holds, in 64 chunks.
  Bytes data = pattern(64 * 65536, 3);
  const Bytes copy = data;
  std::vector<MutableByteSpan> chunks;
  for (std::size_t off = 0; off < data.size(); off += 65536) {
    chunks.push_back(MutableByteSpan(data).subspan(off, 65536));
  }
  ASSERT_EQ(sp.a.write(chunks), StreamStatus::kWouldBlock);
  EXPECT_TRUE(sp.a.write_pending());
  std::uint8_t one = 0;
  MutableByteSpan more(&one, 1);
  EXPECT_EQ(sp.a.write({&more, 1}), StreamStatus::kError) << "no new write while one is pending";
  chunks.clear();  // the array may be reused; only the bytes must stay

  Bytes got;
  std::thread reader([&] { got = read_exactly(sp.b, copy.size()); });
  EXPECT_EQ(finish_write(sp.a, std::chrono::seconds(10)), IoResult::kOk);
  EXPECT_FALSE(sp.a.write_pending());
  reader.join();
  EXPECT_EQ(got, copy);
}

TEST(TcpStream, ReadReportsThePeersClose) {
  auto sp = test::socket_stream_pair();
  std::uint8_t buf[16];
  EXPECT_EQ(sp.b.read(buf).status, StreamStatus::kWouldBlock);
  { TcpStream gone = std::move(sp.a); }
  EXPECT_EQ(sp.b.read(buf).status, StreamStatus::kClosed);
}

TEST(XorLayer, FramesInPlaceInTheRoomTheCallerReserved) {
  auto sp = test::socket_stream_pair();
  test::XorStream top(std::make_unique<TcpStream>(std::move(sp.a)), {});
  const Overhead o = top.overhead();
  ASSERT_EQ(o, (Overhead{test::kXorHead, test::kXorTail, test::kXorMaxChunk}));
  // Three chunks laid out back to back in one buffer, each with its room.
  const std::size_t sizes[] = {1, 4096, 700};
  Bytes buf(3 * (o.head + 4096 + o.tail), 0xEE);
  std::vector<MutableByteSpan> chunks;
  Bytes expected;
  std::size_t off = 0;
  for (std::size_t n : sizes) {
    const Bytes p = pattern(n, static_cast<std::uint8_t>(n));
    std::copy(p.begin(), p.end(), buf.begin() + static_cast<std::ptrdiff_t>(off + o.head));
    chunks.push_back(MutableByteSpan(buf).subspan(off + o.head, n));
    append(expected, p);
    off += o.head + n + o.tail;
  }
  ASSERT_EQ(top.write(chunks), StreamStatus::kOk);
  EXPECT_EQ(chunks[0].data(), buf.data()) << "widened to the frame, header first";
  EXPECT_EQ(chunks[1].size(), o.head + 4096 + o.tail);
  // On the wire: exactly the three frames.
  const Bytes wire = read_exactly(sp.b, expected.size() + 3 * (o.head + o.tail));
  ASSERT_EQ(wire.size(), expected.size() + 9);
  EXPECT_EQ(wire[0], 0);
  EXPECT_EQ(wire[1], 1);
  EXPECT_EQ(wire[2], expected[0] ^ test::kXorKey);
  EXPECT_EQ(wire[3], test::kXorTrailer);
  // A layer over the other end reads the payload back, across frame boundaries.
  auto sp2 = test::socket_stream_pair();
  ASSERT_EQ(write_copy(sp2.a, wire, std::chrono::seconds(5)), IoResult::kOk);
  test::XorStream bottom(std::make_unique<TcpStream>(std::move(sp2.b)), {});
  EXPECT_EQ(read_exactly(bottom, expected.size()), expected);
}

TEST(XorLayer, WriteCopyChunksToTheLayersLimit) {
  auto sp = test::socket_stream_pair();
  test::XorStream tx(std::make_unique<TcpStream>(std::move(sp.a)), {});
  test::XorStream rx(std::make_unique<TcpStream>(std::move(sp.b)), {});
  const Bytes data = pattern(3 * test::kXorMaxChunk + 17, 9);
  Bytes got;
  std::thread reader([&] { got = read_exactly(rx, data.size()); });
  EXPECT_EQ(write_copy(tx, data, std::chrono::seconds(5)), IoResult::kOk);
  reader.join();
  EXPECT_EQ(got, data);
}

TEST(XorLayer, AMalformedFrameIsAnErrorNotACrash) {
  auto sp = test::socket_stream_pair();
  const Bytes bad = {0x00, 0x02, 0x11, 0x22, 0x00 /* not the trailer */};
  ASSERT_EQ(write_copy(sp.a, bad, std::chrono::seconds(5)), IoResult::kOk);
  test::XorStream rx(std::make_unique<TcpStream>(std::move(sp.b)), {});
  std::uint8_t buf[16];
  ReadResult r{StreamStatus::kWouldBlock};
  for (int i = 0; i < 1000 && r.status != StreamStatus::kError; ++i) {
    r = rx.read(buf);
    if (r.status == StreamStatus::kWouldBlock)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(r.status, StreamStatus::kError);
}

}  // namespace
}  // namespace qeli::transport
