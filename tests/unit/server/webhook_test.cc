// Webhooks (server/webhook_*.h): the signature against OpenSSL's HMAC computed here, the
// envelope, the outbox surviving a reopen, the dispatcher's retries, back-off and give-up
// with a fake poster and clock, and the SSRF guard's address table.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../config/temp_dir.h"
#include "server/webhook_dispatcher.h"
#include "server/webhook_envelope.h"
#include "server/webhook_outbox.h"
#include "server/webhook_poster.h"

namespace qeli::server {
namespace {

std::string openssl_signature(const std::string& secret, const std::string& content) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac, &n);
  std::string b64(4 * ((n + 2) / 3) + 1, '\0');
  const int len =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), mac, static_cast<int>(n));
  b64.resize(static_cast<std::size_t>(len));
  return "v1," + b64;
}

TEST(Webhooks, SignatureIsHmacSha256OverIdTimestampAndBody) {
  const std::string secret = "0123456789abcdef0123456789abcdef";
  const std::string body = R"({"id":"msg_1","type":"session.connected"})";
  EXPECT_EQ(webhook_signature(secret, "msg_1", 1785834753, body),
            openssl_signature(secret, "msg_1.1785834753." + body));
  EXPECT_NE(webhook_signature(secret, "msg_1", 1785834754, body),
            webhook_signature(secret, "msg_1", 1785834753, body));
}

TEST(Webhooks, EnvelopeCarriesTheEventAndNoSecrets) {
  control::Event e;
  e.type = "session.disconnected";
  e.unix_ms = 1785834753123;
  e.profile = "main";
  e.username = "alice";
  e.ip = "10.8.0.2";
  e.reason = "kicked";
  e.rx_bytes = 10;
  e.tx_bytes = 20;
  const auto j = nlohmann::json::parse(webhook_body(e, "msg_ab", "node1"));
  EXPECT_EQ(j["id"], "msg_ab");
  EXPECT_EQ(j["type"], "session.disconnected");
  EXPECT_EQ(j["created_at"], "2026-08-04T09:12:33.123Z");
  EXPECT_EQ(j["node"], "node1");
  EXPECT_EQ(j["data"]["username"], "alice");
  EXPECT_EQ(j["data"]["rx_bytes"], 10);
  EXPECT_EQ(j["data"].size(), 6U);  // profile, username, ip, reason, rx, tx
  crypto::DeterministicRng rng(3);
  const std::string id = new_webhook_id(rng);
  EXPECT_EQ(id.size(), 4U + 24U);
  EXPECT_TRUE(id.starts_with("msg_"));
}

TEST(Webhooks, OutboxSurvivesAReopen) {
  test::TempDir tmp;
  const std::string path = tmp.file("outbox.db");
  {
    auto o = WebhookOutbox::open(path);
    ASSERT_TRUE(o.ok()) << o.error();
    OutboxItem a{"msg_a", "session.connected", 1000, "{}", 0, 5000};
    OutboxItem b{"msg_b", "auth.lockout", 2000, "{}", 0, 1000};
    ASSERT_TRUE((*o)->enqueue(a).ok());
    ASSERT_TRUE((*o)->enqueue(b).ok());
    ASSERT_TRUE((*o)->enqueue(a).ok());  // the same id again: one row
    EXPECT_EQ((*o)->pending(), 2U);
    EXPECT_EQ((*o)->next_due(), 1000);
    const auto due = (*o)->due(1500, 10);
    ASSERT_EQ(due.size(), 1U);
    EXPECT_EQ(due[0].id, "msg_b");
  }
  auto o = WebhookOutbox::open(path);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ((*o)->pending(), 2U);
  (*o)->make_all_due(100);
  const auto due = (*o)->due(100, 10);
  ASSERT_EQ(due.size(), 2U);
  EXPECT_EQ(due[0].id, "msg_a");  // oldest first
  (*o)->delivered(due[0], 204, 200);
  EXPECT_EQ((*o)->pending(), 1U);
  const auto log = (*o)->log(10);
  ASSERT_EQ(log.size(), 1U);
  EXPECT_EQ(log[0].result, "delivered");
  EXPECT_EQ(log[0].status, 204);
}

class FakePoster final : public WebhookPoster {
 public:
  std::vector<PostResult> answers;  // consumed in order; then 200
  std::vector<HttpHeaders> seen_headers;
  std::vector<std::string> seen_bodies;
  PostResult post(const config::HttpUrl& url, const HttpHeaders& h, const std::string& body,
                  std::chrono::seconds) override {
    EXPECT_EQ(url.host, "hooks.example");
    seen_headers.push_back(h);
    seen_bodies.push_back(body);
    if (answers.empty()) return {200, ""};
    PostResult r = answers.front();
    answers.erase(answers.begin());
    return r;
  }
};

std::string header(const HttpHeaders& h, const std::string& k) {
  for (const auto& [n, v] : h) {
    if (n == k) return v;
  }
  return "";
}

TEST(Webhooks, DispatcherRetriesWithBackOffThenDeliversOrGivesUp) {
  test::TempDir tmp;
  config::WebhooksConfig cfg;
  cfg.enabled = true;
  cfg.url = "https://hooks.example/in";
  cfg.secret = std::string(32, 's');
  cfg.events = {"session.connected", "session.disconnected"};
  cfg.retry_for = std::chrono::hours(1);
  auto outbox = WebhookOutbox::open(tmp.file("o.db"));
  ASSERT_TRUE(outbox.ok());
  auto poster = std::make_unique<FakePoster>();
  FakePoster* fp = poster.get();
  fp->answers = {{0, "connection refused"}, {503, ""}, {301, ""}};
  std::int64_t now = 1'000'000;
  WebhookDispatcher d(cfg, std::move(*outbox), std::move(poster), "n", [&] { return now; });

  control::Event e;
  e.type = "session.connected";
  e.unix_ms = now;
  e.username = "alice";
  d.on_event(e);
  control::Event other = e;
  other.type = "auth.lockout";  // not selected
  d.on_event(other);
  EXPECT_EQ(d.outbox().pending(), 0U);  // queued for the dispatcher thread, not yet kept
  d.persist_queued();
  EXPECT_EQ(d.outbox().pending(), 1U);

  EXPECT_EQ(d.run_due(), 1U);  // refused
  EXPECT_EQ(d.run_due(), 0U);  // not due yet
  // Back-off 10 s ± 20 %, then 20 s, 40 s.
  for (std::int64_t step : {12'001, 24'001}) {
    const auto next = *d.outbox().next_due();
    EXPECT_GE(next - now, step * 8 / 12 - 1);
    EXPECT_LE(next - now, step);
    now = next;
    EXPECT_EQ(d.run_due(), 1U);
  }
  now = *d.outbox().next_due();
  EXPECT_EQ(d.run_due(), 1U);  // the 4th attempt: 200
  EXPECT_EQ(d.outbox().pending(), 0U);
  EXPECT_EQ(d.counters().delivered, 1U);
  EXPECT_EQ(d.counters().failed_attempts, 3U);
  // Every attempt: the same id and body, a signature over this attempt's timestamp.
  ASSERT_EQ(fp->seen_headers.size(), 4U);
  const std::string id = header(fp->seen_headers[0], "Qeli-Webhook-Id");
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& h = fp->seen_headers[i];
    EXPECT_EQ(header(h, "Qeli-Webhook-Id"), id);
    EXPECT_EQ(fp->seen_bodies[i], fp->seen_bodies[0]);
    const auto ts = std::stoll(header(h, "Qeli-Webhook-Timestamp"));
    EXPECT_EQ(
        header(h, "Qeli-Webhook-Signature"),
        openssl_signature(cfg.secret, id + "." + std::to_string(ts) + "." + fp->seen_bodies[i]));
  }
  EXPECT_EQ(fp->seen_bodies[0].find(cfg.secret), std::string::npos);

  // A receiver down for longer than retry_for: given up, logged.
  fp->answers.assign(100, PostResult{500, ""});
  e.unix_ms = now;
  d.on_event(e);
  d.persist_queued();
  for (int i = 0; i < 100 && d.outbox().pending() > 0; ++i) {
    now = std::max(now, *d.outbox().next_due());
    d.run_due();
  }
  EXPECT_EQ(d.outbox().pending(), 0U);
  EXPECT_EQ(d.counters().given_up, 1U);
  EXPECT_EQ(d.outbox().log(1)[0].result, "given-up");
}

TEST(Webhooks, BackOffDoublesUpToAnHour) {
  EXPECT_EQ(WebhookDispatcher::backoff(0), std::chrono::seconds(10));
  EXPECT_EQ(WebhookDispatcher::backoff(1), std::chrono::seconds(20));
  EXPECT_EQ(WebhookDispatcher::backoff(8), std::chrono::seconds(2560));
  EXPECT_EQ(WebhookDispatcher::backoff(9), std::chrono::hours(1));
  EXPECT_EQ(WebhookDispatcher::backoff(1000), std::chrono::hours(1));
}

bool is_public(const char* a) {
  sockaddr_storage ss{};
  if (inet_pton(AF_INET, a, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
    ss.ss_family = AF_INET;
  } else if (inet_pton(AF_INET6, a, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr) == 1) {
    ss.ss_family = AF_INET6;
  } else {
    ADD_FAILURE() << a;
  }
  return is_public_address(reinterpret_cast<const sockaddr*>(&ss));
}

TEST(Webhooks, SsrfGuardAllowsOnlyPublicAddresses) {
  for (const char* a : {"127.0.0.1",
                        "10.1.2.3",
                        "172.16.0.1",
                        "172.31.255.255",
                        "192.168.1.1",
                        "169.254.169.254",
                        "100.64.0.1",
                        "0.0.0.0",
                        "224.0.0.1",
                        "255.255.255.255",
                        "192.0.2.1",
                        "198.18.0.1",
                        "::1",
                        "::",
                        "fe80::1",
                        "fd00::1",
                        "ff02::1",
                        "::ffff:127.0.0.1",
                        "::ffff:10.0.0.1",
                        "64:ff9b::a00:1",
                        "2002:a00:1::",
                        "2001:db8::1"}) {
    EXPECT_FALSE(is_public(a)) << a;
  }
  for (const char* a : {"1.1.1.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111",
                        "::ffff:1.1.1.1", "2002:101:101::"}) {
    EXPECT_TRUE(is_public(a)) << a;
  }
}

}  // namespace
}  // namespace qeli::server
