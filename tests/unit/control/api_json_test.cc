// The control API's one codec: every request survives encode → decode, replies decode
// into their typed shape, malformed requests are refused naming the member, and errors
// keep their code.
#include "control/api_json.h"

#include <gtest/gtest.h>

namespace qeli::control {
namespace {

using json = nlohmann::json;

TEST(ControlApiJson, EveryRequestRoundTrips) {
  const std::vector<Request> all = {
      ListSessions{},
      Kick{"bob", 7, "credentials-changed"},
      DisableUser{"bob"},
      EnableUser{"bob"},
      ListBlocked{},
      Unblock{"1.2.3.4"},
      UnblockAll{},
      GetStats{},
      GetEvents{5, 10},
      ListUsers{},
      GetConfig{},
      ValidateConfig{"[auth]\n"},
      SaveConfig{"x", "abc", "root"},
      ListConfigHistory{},
      GetConfigVersion{"id"},
      Reload{},
      Whoami{},
      GetClientStatus{},
      SetBandwidth{"bob", 2.5},
      GetUsage{},
      ResetUsage{"bob"},
      AddUser{"bob", {"main"}, 2, "boss"},
      RemoveUser{"bob", "boss"},
      AddDevice{"bob", "phone", "vpn.example:443", "main", "boss"},
      RevokeDevice{"bob", "0123abcd", "boss"},
      GetWebhookLog{50},
      EditUser{"bob", "boss", "staff", "", 3, std::vector<std::string>{"main"},
               std::vector<std::string>{"10.1.0.0/16"}, std::nullopt, 2.5, std::nullopt, 0, false},
      GetLogs{17, 50, "warn"}};
  ASSERT_EQ(all.size(), std::variant_size_v<Request>);
  for (const auto& r : all) {
    const json j = encode_request(r);
    EXPECT_EQ(j["cmd"], std::string(name_of(r)));
    auto back = decode_request(j);
    ASSERT_TRUE(back.ok()) << j.dump();
    EXPECT_EQ(back->index(), r.index());
    EXPECT_EQ(encode_request(*back), j);
  }
}

// The client status reply is flat on the wire (the tunnel's members beside the others),
// leaves out what is empty, and reads back the same.
TEST(ControlApiJson, ClientStatusIsFlatAndRoundTrips) {
  ClientStatusReport waiting;
  waiting.state = "waiting";
  waiting.server = "vpn.example:443";
  waiting.sessions = 2;
  json j = waiting;
  EXPECT_FALSE(j.contains("detail"));
  EXPECT_FALSE(j.contains("tunnel_address"));
  EXPECT_FALSE(j.contains("tunnel"));
  EXPECT_EQ(j.get<ClientStatusReport>().tunnel, std::nullopt);

  ClientStatusReport up = waiting;
  up.state = "connected";
  up.detail = "gso";
  up.tunnel = ClientTunnelStatus{};
  up.tunnel->tunnel_address = "10.9.0.2/24";
  up.tunnel->rx_bytes = 1234;
  j = up;
  EXPECT_EQ(j["tunnel_address"], "10.9.0.2/24");
  EXPECT_EQ(j["rx_bytes"], 1234);
  EXPECT_EQ(j["detail"], "gso");
  const auto back = j.get<ClientStatusReport>();
  ASSERT_TRUE(back.tunnel.has_value());
  EXPECT_EQ(back.tunnel->rx_bytes, 1234U);
  EXPECT_EQ(back.state, "connected");
  EXPECT_EQ(json(back), j);
}

// A UDP session's socket figures sit flat beside the tunnel's (udp_*); a TCP session has
// none, and none come back.
TEST(ControlApiJson, ClientStatusCarriesUdpFiguresOnlyForUdp) {
  ClientStatusReport up;
  up.state = "connected";
  up.tunnel = ClientTunnelStatus{};
  up.tunnel->tunnel_address = "10.9.0.2/24";
  json j = up;
  EXPECT_FALSE(j.contains("udp_recv_buffer_bytes"));
  EXPECT_FALSE(j.contains("udp"));
  EXPECT_EQ(j.get<ClientStatusReport>().tunnel->udp, std::nullopt);

  up.tunnel->udp = UdpSocketFigures{3, 1, 8388608};
  j = up;
  EXPECT_EQ(j["udp_kernel_drops"], 3);
  EXPECT_EQ(j["udp_buffer_grows"], 1);
  EXPECT_EQ(j["udp_recv_buffer_bytes"], 8388608);
  EXPECT_FALSE(j.contains("udp"));
  const auto back = j.get<ClientStatusReport>();
  ASSERT_TRUE(back.tunnel && back.tunnel->udp);
  EXPECT_EQ(back.tunnel->udp->kernel_drops, 3U);
  EXPECT_EQ(back.tunnel->udp->buffer_grows, 1U);
  EXPECT_EQ(back.tunnel->udp->recv_buffer_bytes, 8388608U);
  EXPECT_EQ(json(back), j);
}

// A profile's UDP figures: an object for a UDP profile, null for a TCP one (and an older
// server's answer without the member reads as none).
TEST(ControlApiJson, ProfileStatsCarryUdpSocketFigures) {
  StatsSnapshot s;
  s.profiles.resize(2);
  s.profiles[0].transport = "tcp";
  s.profiles[1].transport = "udp";
  s.profiles[1].udp_socket = UdpSocketFigures{7, 2, 16777216};
  const json wire = encode_reply(Response{s});
  EXPECT_TRUE(wire["profiles"][0]["udp_socket"].is_null());
  EXPECT_EQ(wire["profiles"][1]["udp_socket"],
            (json{{"kernel_drops", 7}, {"buffer_grows", 2}, {"recv_buffer_bytes", 16777216}}));
  auto back = decode_reply(Request{GetStats{}}, wire);
  ASSERT_TRUE(back.ok());
  const auto& got = std::get<StatsSnapshot>(*back);
  EXPECT_EQ(got.profiles[0].udp_socket, std::nullopt);
  ASSERT_TRUE(got.profiles[1].udp_socket.has_value());
  EXPECT_EQ(got.profiles[1].udp_socket->kernel_drops, 7U);
  EXPECT_EQ(got.profiles[1].udp_socket->recv_buffer_bytes, 16777216U);
  json old = wire;
  old["profiles"][1].erase("udp_socket");
  back = decode_reply(Request{GetStats{}}, old);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::get<StatsSnapshot>(*back).profiles[1].udp_socket, std::nullopt);
}

TEST(ControlApiJson, LimitsAndUsageRequestsAreChecked) {
  auto r = decode_request(json{{"cmd", "set-bandwidth"}, {"username", "bob"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadRequest);
  r = decode_request(json{{"cmd", "set-bandwidth"}, {"username", "bob"}, {"mbps", -1}});
  EXPECT_FALSE(r.ok());
  r = decode_request(json{{"cmd", "kick"}, {"username", "bob"}, {"reason", "whatever"}});
  EXPECT_FALSE(r.ok());
  r = decode_request(json{{"cmd", "kick"}, {"username", "bob"}});  // 0.7.16's form
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<Kick>(*r).reason, "kicked");
  UsageList list;
  list.users.push_back(UserUsage{"bob", 5, 6, 100, 2.5, true});
  const json j = list;
  EXPECT_EQ(j.get<UsageList>().users.at(0).quota_bytes, 100U);
}

TEST(ControlApiJson, UserAndDeviceRequestsAreChecked) {
  auto r = decode_request(json{{"cmd", "add-user"}, {"username", "bob"}, {"profiles", "main"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "\"profiles\" must be an array of names");
  r = decode_request(json{{"cmd", "add-user"}, {"username", "bob"}, {"profiles", {"a", 1}}});
  EXPECT_FALSE(r.ok());
  r = decode_request(json{{"cmd", "add-user"}, {"username", "bob"}, {"max_sessions", 2000000}});
  EXPECT_FALSE(r.ok());
  r = decode_request(json{{"cmd", "add-device"}, {"username", "bob"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "\"name\" is required");
  r = decode_request(json{{"cmd", "revoke-device"}, {"username", "bob"}});
  EXPECT_EQ(r.error().message, "\"id\" is required");
  r = decode_request(json{{"cmd", "add-user"}, {"username", "bob"}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::get<AddUser>(*r).profiles.empty());
  // The credential travels in the answer only, and reads back whole.
  DeviceIssued issued{"bob", "0123abcd", "phone", "qd1.0123abcd.x", "main", "qeli://...", true};
  const auto back = decode_reply(Request{AddDevice{}}, encode_reply(Response{issued}));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::get<DeviceIssued>(*back).credential, "qd1.0123abcd.x");
}

// edit-user: every field optional, each present one read back exactly, an absent one
// (or null) stays absent, and a member of the wrong type is refused by name.
TEST(ControlApiJson, EditUserKeepsAbsentFieldsAbsent) {
  auto r = decode_request(json{{"cmd", "edit-user"},
                               {"username", "bob"},
                               {"max_sessions", 4},
                               {"bandwidth_limit_mbps", 12.5},
                               {"expire_at", 1900000000},
                               {"routes", {"10.1.0.0/16", "10.2.0.0/16 metric=3"}},
                               {"static_ip", nullptr},
                               {"enabled", false}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& e = std::get<EditUser>(*r);
  EXPECT_EQ(e.username, "bob");
  EXPECT_EQ(e.max_sessions, 4U);
  EXPECT_EQ(e.bandwidth_limit_mbps, 12.5);
  EXPECT_EQ(e.expire_at, 1900000000U);
  EXPECT_EQ(e.routes, (std::vector<std::string>{"10.1.0.0/16", "10.2.0.0/16 metric=3"}));
  EXPECT_EQ(e.enabled, false);
  EXPECT_FALSE(e.static_ip.has_value());
  EXPECT_FALSE(e.group.has_value());
  EXPECT_FALSE(e.profiles.has_value());
  EXPECT_FALSE(e.data_limit_gb.has_value());
  const json j = encode_request(*r);
  EXPECT_FALSE(j.contains("static_ip"));
  EXPECT_FALSE(j.contains("group"));
  EXPECT_EQ(j["max_sessions"], 4);

  const auto refused = [](json req) {
    req["cmd"] = "edit-user";
    req["username"] = "bob";
    auto x = decode_request(req);
    return x.ok() ? std::string("accepted") : x.error().message;
  };
  EXPECT_EQ(refused({{"max_sessions", -1}}),
            "\"max_sessions\" must be an integer in 0..4294967295");
  EXPECT_EQ(refused({{"max_sessions", "3"}}),
            "\"max_sessions\" must be an integer in 0..4294967295");
  EXPECT_EQ(refused({{"routes", "10.0.0.0/8"}}), "\"routes\" must be an array of strings");
  EXPECT_EQ(refused({{"allowed_networks", {"10.0.0.0/8", 5}}}),
            "\"allowed_networks\" must be an array of strings");
  EXPECT_EQ(refused({{"bandwidth_limit_mbps", "fast"}}),
            "\"bandwidth_limit_mbps\" must be a number");
  EXPECT_EQ(refused({{"enabled", 1}}), "\"enabled\" must be true or false");
  EXPECT_EQ(refused({{"group", 7}}), "\"group\" must be a string");
  EXPECT_EQ(refused({{"expire_at", 1.5}}),
            "\"expire_at\" must be an integer in 0..18446744073709551615");
  EXPECT_EQ(decode_request(json{{"cmd", "edit-user"}}).error().message, "\"username\" is required");
}

TEST(ControlApiJson, WebhookLogBoundsItsLimitAndReadsBack) {
  auto r = decode_request(json{{"cmd", "webhook-log"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<GetWebhookLog>(*r).limit, 100U);
  r = decode_request(json{{"cmd", "webhook-log"}, {"limit", 0U}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<GetWebhookLog>(*r).limit, 1U);
  EXPECT_FALSE(decode_request(json{{"cmd", "webhook-log"}, {"limit", 1001U}}).ok());
  EXPECT_EQ(needs(Request{GetWebhookLog{}}), Permission::kRead);
  WebhookLog log{true, 3, {{5, "msg_a", "session.kicked", "failed", 0, "timed out"}}};
  const auto back = decode_reply(Request{GetWebhookLog{}}, encode_reply(Response{log}));
  ASSERT_TRUE(back.ok());
  const auto& got = std::get<WebhookLog>(*back);
  EXPECT_EQ(got.pending, 3U);
  ASSERT_EQ(got.deliveries.size(), 1U);
  EXPECT_EQ(got.deliveries[0].detail, "timed out");
}

TEST(ControlApiJson, LogsBoundTheirLimitAndReadBack) {
  auto r = decode_request(json{{"cmd", "logs"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<GetLogs>(*r).limit, 200U);
  EXPECT_EQ(std::get<GetLogs>(*r).level, "info");
  EXPECT_FALSE(decode_request(json{{"cmd", "logs"}, {"limit", 2001U}}).ok());
  EXPECT_EQ(needs(Request{GetLogs{}}), Permission::kRead);
  LogLines lines{9, {{9, 1'700'000'000'123, "warning", "disk <full>"}}};
  const auto back = decode_reply(Request{GetLogs{}}, encode_reply(Response{lines}));
  ASSERT_TRUE(back.ok());
  const auto& got = std::get<LogLines>(*back);
  EXPECT_EQ(got.last_seq, 9U);
  ASSERT_EQ(got.lines.size(), 1U);
  EXPECT_EQ(got.lines[0].unix_ms, 1'700'000'000'123);
  EXPECT_EQ(got.lines[0].text, "disk <full>");
}

TEST(ControlApiJson, MalformedRequestsNameTheMember) {
  auto r = decode_request(json{{"cmd", "kick"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(r.error().message, "\"username\" is required");
  r = decode_request(json{{"cmd", "kick"}, {"username", 3}});
  EXPECT_EQ(r.error().message, "\"username\" must be a string");
  r = decode_request(json{{"cmd", "events"}, {"limit", 5000}});
  EXPECT_EQ(r.error().message, "\"limit\" must be an integer in 0..1000");
  r = decode_request(json{{"cmd", "events"}, {"after", -1}});
  EXPECT_FALSE(r.ok());
  r = decode_request(json{{"cmd", "nope"}});
  EXPECT_EQ(r.error().code, ErrorCode::kUnknownCommand);
  EXPECT_FALSE(decode_request(json::array()).ok());
  EXPECT_FALSE(decode_request(json{{"cmd", 1}}).ok());
}

TEST(ControlApiJson, RepliesDecodeIntoTheirType) {
  SessionList l;
  l.clients.push_back({});
  l.clients[0].username = "alice";
  l.clients[0].drop_policy = 3;
  const json wire = encode_reply(Response{l});
  EXPECT_TRUE(wire["ok"].get<bool>());
  auto back = decode_reply(Request{ListSessions{}}, wire);
  ASSERT_TRUE(back.ok());
  const auto& got = std::get<SessionList>(*back);
  EXPECT_EQ(got.clients[0].username, "alice");
  EXPECT_EQ(got.clients[0].drop_policy, 3U);
  // A reply with fewer members (an older server) keeps the defaults.
  back = decode_reply(Request{GetStats{}}, json{{"ok", true}, {"version", "1"}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::get<StatsSnapshot>(*back).version, "1");
  // A wrong member type is an error, not a throw.
  back = decode_reply(Request{GetStats{}}, json{{"ok", true}, {"version", 1}});
  EXPECT_FALSE(back.ok());
}

TEST(ControlApiJson, ErrorsKeepTheirCode) {
  const json e = encode_error({ErrorCode::kConflict, "changed"});
  EXPECT_FALSE(e["ok"].get<bool>());
  EXPECT_EQ(e["code"], "conflict");
  auto r = decode_reply(Request{GetConfig{}}, e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kConflict);
  EXPECT_EQ(r.error().message, "changed");
  // 0.7-era answers without a code still decode.
  r = decode_reply(Request{GetConfig{}}, json{{"ok", false}, {"error", "x"}});
  EXPECT_EQ(r.error().message, "x");
  EXPECT_FALSE(decode_reply(Request{GetConfig{}}, json{{"nope", 1}}).ok());
}

// A reply's fields sit beside the envelope's "ok"/"code"/"error": no reply type may
// carry one of those names, or its value overrides the envelope (a refused config once
// read as a refused request). Every alternative of Response, including a ValidationResult
// that says "not valid", comes back as itself.
TEST(ControlApiJson, NoReplyShadowsTheEnvelope) {
  auto check = [](const Response& r) {
    const json j = encode_reply(r);
    ASSERT_TRUE(j["ok"].is_boolean());
    EXPECT_TRUE(j["ok"].get<bool>()) << j.dump();
    EXPECT_FALSE(j.contains("code")) << j.dump();
    EXPECT_FALSE(j.contains("error")) << j.dump();
  };
  for (std::size_t i = 0; i < std::variant_size_v<Response>; ++i) {
    SCOPED_TRACE(i);
    // Default-construct alternative i.
    Response r;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((I == i ? (r = std::variant_alternative_t<I, Response>{}, 0) : 0), ...);
    }
    (std::make_index_sequence<std::variant_size_v<Response>>{});
    check(r);
  }
  ValidationResult invalid;
  invalid.ok = false;
  invalid.findings.push_back({"error", "f", "web", "port", 3, "bad", "f:3: bad"});
  check(Response{invalid});
  auto back = decode_reply(Request{ValidateConfig{"x"}}, encode_reply(Response{invalid}));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(std::get<ValidationResult>(*back).ok);
  ASSERT_EQ(std::get<ValidationResult>(*back).findings.size(), 1U);
  ValidationResult valid;
  valid.ok = true;
  back = decode_reply(Request{Reload{}}, encode_reply(Response{valid}));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(std::get<ValidationResult>(*back).ok);
}

}  // namespace
}  // namespace qeli::control
