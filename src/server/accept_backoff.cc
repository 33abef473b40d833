#include "server/accept_backoff.h"

#include <cerrno>
#include <cstring>

namespace qeli::server {

bool AcceptBackoff::is_resource_error(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

AcceptBackoff::Decision AcceptBackoff::on_failure(int err, Instant now) {
  ++total_;
  ++since_log_;
  wait_ =
      wait_ == Duration::zero() ? Duration(kFirstWait) : std::min<Duration>(wait_ * 2, kMaxWait);
  Decision d{wait_, std::nullopt};
  if (!last_log_ || now - *last_log_ >= kLogEvery) {
    d.log = std::string("cannot accept connections: ") + std::strerror(err) + " (" +
            std::to_string(since_log_) +
            " failure(s) since the last line; retrying with a back-off up to 1 s, sessions "
            "already running are not affected; raise LimitNOFILE / `ulimit -n` if this "
            "persists; logged at most every 10 s)";
    last_log_ = now;
    since_log_ = 0;
  }
  return d;
}

}  // namespace qeli::server
