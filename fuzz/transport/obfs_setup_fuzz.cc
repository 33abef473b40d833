// The obfs set-up (transport/obfs_setup.h) as a server fed any bytes, at any split, with
// and without the WebSocket front and junk, then the WebSocketStream over what follows
// (a memory stream below): nothing crashes, the set-up's buffers stay bounded, and a
// WebSocket stream either delivers bytes or ends with a reason.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "transport/obfs_setup.h"
#include "transport/ws_stream.h"
#include "wire/udp_obfs.h"

using namespace qeli;

namespace {

// A lower stream that hands out `data` in pieces, then reports the peer's close.
class MemoryStream final : public transport::Stream {
 public:
  MemoryStream(ByteSpan data, std::size_t step) : data_(data), step_(step) {}
  int fd() const override { return -1; }
  transport::Overhead overhead() const override { return {}; }
  transport::StreamStatus write(std::span<MutableByteSpan>) override {
    return transport::StreamStatus::kOk;
  }
  transport::StreamStatus resume() override { return transport::StreamStatus::kOk; }
  bool write_pending() const override { return false; }
  transport::ReadResult read(MutableByteSpan out) override {
    if (data_.empty()) return {transport::StreamStatus::kClosed};
    const std::size_t n = std::min({out.size(), step_, data_.size()});
    std::copy_n(data_.begin(), n, out.begin());
    data_ = data_.subspan(n);
    return {transport::StreamStatus::kOk, n};
  }

 private:
  ByteSpan data_;
  std::size_t step_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  crypto::DeterministicRng rng(data[0]);
  const bool ws = (data[0] & 1) != 0;
  const std::size_t step = 1 + data[1] % 200;
  const ByteSpan in(data + 2, size - 2);
  transport::ObfsParams p;
  p.key = wire::derive_obfs_key("fuzz");
  p.websocket = ws;
  p.junk = wire::JunkPlan::from_config((data[0] & 2) != 0, data[0] >> 5, 1, 100);
  transport::ObfsSetup s(transport::ObfsSetup::Side::kServer, std::move(p), rng);
  const Instant t0{};
  s.start(t0);
  for (std::size_t at = 0; at < in.size() && s.state() == transport::SetupState::kRunning;
       at += step) {
    s.on_bytes(in.subspan(at, std::min(step, in.size() - at)), t0);
    (void)s.take_output();
  }
  if (s.state() == transport::SetupState::kFailed && s.failure().empty()) std::abort();
  // The data phase of the front over the same bytes.
  transport::WebSocketStream w(std::make_unique<MemoryStream>(in, step), false, rng);
  std::uint8_t buf[4096];
  for (int i = 0; i < 10000; ++i) {
    const auto r = w.read(buf);
    if (r.status != transport::StreamStatus::kOk) break;
    if (r.bytes > sizeof buf) std::abort();
  }
  return 0;
}
