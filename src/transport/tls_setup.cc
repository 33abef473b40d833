#include "transport/tls_setup.h"

#include "tls/key_schedule.h"

namespace qeli::transport {
namespace {

SetupState map(bool running, bool done) {
  return running ? SetupState::kRunning : done ? SetupState::kDone : SetupState::kFailed;
}

std::vector<SetupOutput> as_output(Bytes b) {
  std::vector<SetupOutput> out;
  if (!b.empty()) out.push_back({std::move(b), {}});
  return out;
}

}  // namespace

TlsClientSetup::TlsClientSetup(tls::BuiltClientHello hello, tls::ClientHandshakeConfig config)
    : hs_(std::move(hello), std::move(config)) {}

void TlsClientSetup::start(Instant now) { hs_.start(now); }

void TlsClientSetup::on_bytes(ByteSpan in, Instant now) {
  if (est_) {
    append(est_->leftover, in);
    return;
  }
  hs_.on_bytes(in, now);
  settle();
}

void TlsClientSetup::settle() {
  if (!est_ && hs_.state() == tls::ClientHandshake::State::kDone) est_ = hs_.into_established();
}

std::vector<SetupOutput> TlsClientSetup::take_output() { return as_output(hs_.take_output()); }

SetupState TlsClientSetup::state() const {
  return map(hs_.state() == tls::ClientHandshake::State::kRunning, est_.has_value());
}

std::unique_ptr<Stream> TlsClientSetup::into_stream(std::unique_ptr<Stream> lower) {
  if (!est_) return nullptr;
  auto signal = std::make_shared<tls::KeyUpdateSignal>();
  auto sender =
      std::make_unique<tls::RecordSender>(est_->suite, est_->client_traffic.clone(), signal, false);
  auto receiver =
      std::make_unique<tls::RecordReceiver>(est_->suite, est_->server_traffic.clone(), signal);
  if (!receiver->buffer().append(est_->leftover)) return nullptr;
  est_->leftover.clear();
  return std::make_unique<TlsStream>(std::move(lower), std::move(sender), std::move(receiver));
}

bool TlsClientSetup::export_keying_material(std::string_view label, ByteSpan context,
                                            MutableByteSpan out) const {
  return est_ &&
         tls::export_keying_material(est_->suite, est_->exporter_master, label, context, out);
}

std::optional<tls::CipherSuite> TlsClientSetup::suite() const {
  if (!est_) return std::nullopt;
  return est_->suite;
}

TlsServerSetup::TlsServerSetup(tls::TerminatorConfig config, crypto::Rng& rng)
    : t_(std::move(config), rng) {}

void TlsServerSetup::on_bytes(ByteSpan in, Instant now) {
  if (est_) {
    (void)est_->receiver->buffer().append(in);
    return;
  }
  t_.on_bytes(in, now);
  if (t_.state() == tls::Terminator::State::kDone) est_ = t_.into_established();
}

std::vector<SetupOutput> TlsServerSetup::take_output() { return as_output(t_.take_output()); }

SetupState TlsServerSetup::state() const {
  return map(t_.state() == tls::Terminator::State::kRunning, est_.has_value());
}

std::unique_ptr<Stream> TlsServerSetup::into_stream(std::unique_ptr<Stream> lower) {
  if (!est_ || !est_->sender) return nullptr;
  return std::make_unique<TlsStream>(std::move(lower), std::move(est_->sender),
                                     std::move(est_->receiver));
}

bool TlsServerSetup::export_keying_material(std::string_view label, ByteSpan context,
                                            MutableByteSpan out) const {
  return est_ &&
         tls::export_keying_material(est_->suite, est_->exporter_master, label, context, out);
}

std::optional<tls::HelloFamily> TlsServerSetup::client_family() const {
  if (!est_) return std::nullopt;
  return est_->client_family;
}

}  // namespace qeli::transport
