#include "server/tls_target.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>

#include "crypto/random.h"
#include "transport/tls_target_probe.h"

namespace qeli::server {

TlsTarget::TlsTarget(Options options) : opt_(std::move(options)) {}

TlsTarget::~TlsTarget() { stop(); }

void TlsTarget::start() {
  probe_once(true);
  if (opt_.probe) thread_ = std::thread([this] { refresh_loop(); });
}

void TlsTarget::stop() {
  stop_.stop();
  if (thread_.joinable()) thread_.join();
}

void TlsTarget::refresh_now() {
  if (opt_.probe) wake_.notify();
}

std::shared_ptr<const tls::TargetShape> TlsTarget::current() const {
  std::lock_guard lock(mu_);
  return shape_;
}

std::string TlsTarget::describe() const {
  const auto s = current();
  return s ? tls::describe(*s) : std::string();
}

void TlsTarget::probe_once(bool first) {
  crypto::Rng& rng = crypto::system_rng();
  const std::string name = opt_.sni.empty() ? opt_.host : opt_.sni;
  if (!opt_.probe) {
    auto s = std::make_shared<const tls::TargetShape>(tls::fallback_shape(
        name, "handrolled = false: a generated certificate, the target is not probed", rng));
    spdlog::info("[{}] reality-tls: answering as {}", opt_.profile, tls::describe(*s));
    std::lock_guard lock(mu_);
    shape_ = std::move(s);
    return;
  }
  transport::TargetProbeConfig pc;
  pc.host = opt_.host;
  pc.port = opt_.port;
  pc.sni = name;
  pc.timeout = opt_.timeout;
  pc.cancel_fd = stop_.fd();
  auto r = transport::probe_target(pc, rng);
  if (r) {
    auto s = std::make_shared<const tls::TargetShape>(std::move(*r));
    spdlog::info("[{}] reality-tls: mirroring {}", opt_.profile, tls::describe(*s));
    std::lock_guard lock(mu_);
    shape_ = std::move(s);
    probed_ok_ = true;
    return;
  }
  std::lock_guard lock(mu_);
  if (stop_.stopped() && shape_) return;
  if (probed_ok_) {
    spdlog::warn(
        "[{}] reality-tls: could not refresh the shape of {}:{} ({}); keeping the last one",
        opt_.profile, opt_.host, opt_.port, r.error());
    return;
  }
  if (first || !shape_) {
    shape_ = std::make_shared<const tls::TargetShape>(tls::fallback_shape(name, r.error(), rng));
    spdlog::warn(
        "[{}] reality-tls: cannot probe the target {}:{} ({}); answering with the fallback "
        "shape (a generated certificate for {}) until it can be reached. Check "
        "obf.tls.reality_proxy.target",
        opt_.profile, opt_.host, opt_.port, r.error(), name);
  }
}

void TlsTarget::refresh_loop() {
  // Until the first probe works, retry sooner (a target down at boot); then every
  // `refresh`, as 0.7.16.
  for (;;) {
    std::chrono::milliseconds wait;
    {
      std::lock_guard lock(mu_);
      wait = probed_ok_
                 ? opt_.refresh
                 : std::min<std::chrono::milliseconds>(opt_.refresh, std::chrono::seconds(60));
    }
    std::array<pollfd, 2> p{{{stop_.fd(), POLLIN, 0}, {wake_.fd(), POLLIN, 0}}};
    const int r = ::poll(p.data(), p.size(),
                         static_cast<int>(std::min<std::int64_t>(wait.count(), INT32_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || stop_.stopped()) return;
    if ((p[1].revents & POLLIN) != 0) {
      wake_.drain();
      spdlog::info("[{}] reality-tls: probing the target {}:{} again (reload)", opt_.profile,
                   opt_.host, opt_.port);
    }
    probe_once(false);
  }
}

}  // namespace qeli::server
