#include "handshake/auth_message.h"

#include <gtest/gtest.h>

#include "handshake/auth_ok.h"

namespace qeli::handshake {
namespace {

Bytes text(std::string_view s) { return Bytes(s.begin(), s.end()); }

TEST(auth_message, new_form_layout_and_round_trip) {
  AuthMessage m;
  m.key_proof.fill(0xAB);
  m.device_id = DeviceId{};
  m.device_id->fill(0x11);
  m.user = "bob";
  m.password = "p:a:ss";
  const Bytes b = build_auth(m).value();
  ASSERT_EQ(b.size(), 32 + 1 + 16 + 10U);
  EXPECT_EQ(b[32], 0x00);
  EXPECT_EQ(to_hex(ByteSpan(b).subspan(49)), to_hex(as_bytes("bob:p:a:ss")));
  auto p = parse_auth(b);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->user, "bob");
  EXPECT_EQ(p->password, "p:a:ss");
  EXPECT_EQ(p->device_id, m.device_id);
  EXPECT_EQ(p->key_proof, m.key_proof);
}

TEST(auth_message, old_form_without_device_id) {
  Bytes b(32, 0x01);
  append(b, as_bytes("alice:pw"));
  auto p = parse_auth(b);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->device_id.has_value());
  EXPECT_EQ(p->user, "alice");
  EXPECT_EQ(p->password, "pw");
  EXPECT_EQ(p->password, "pw");
}

TEST(auth_message, malformed_inputs) {
  EXPECT_EQ(parse_auth(Bytes(32, 0)).error(), AuthMessageError::kTooShort);
  Bytes marker_only(33, 0);
  EXPECT_EQ(parse_auth(marker_only).error(), AuthMessageError::kTooShort);
  Bytes no_colon(32, 1);
  append(no_colon, as_bytes("alice"));
  EXPECT_EQ(parse_auth(no_colon).error(), AuthMessageError::kNoColon);
  Bytes empty_user(32, 1);
  append(empty_user, as_bytes(":pw"));
  EXPECT_EQ(parse_auth(empty_user).error(), AuthMessageError::kEmptyUser);
  Bytes bad_utf8(32, 1);
  append(bad_utf8, Bytes{'a', ':', 0xC0, 0x80});  // overlong NUL
  EXPECT_EQ(parse_auth(bad_utf8).error(), AuthMessageError::kBadUtf8);
  Bytes too_long(32, 1);
  append(too_long, Bytes(wire::kMaxCredentialsSize + 1, 'a'));
  EXPECT_EQ(parse_auth(too_long).error(), AuthMessageError::kTooLong);
  AuthMessage m;
  m.user = "a:b";
  EXPECT_FALSE(build_auth(m).has_value());
  m.user = "";
  EXPECT_FALSE(build_auth(m).has_value());
}

TEST(auth_message, utf8_validation) {
  EXPECT_TRUE(valid_utf8("пароль"));
  EXPECT_TRUE(valid_utf8("\xF0\x9F\x94\x91"));
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(valid_utf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(valid_utf8(std::string_view("a\0b", 3)));
}

TEST(auth_message, join_layout) {
  JoinMessage j;
  for (std::size_t i = 0; i < 16; ++i) j.token[i] = static_cast<std::uint8_t>(i);
  j.stream_index = 3;
  const Bytes b = build_join(j);
  EXPECT_EQ(to_hex(b), to_hex(as_bytes("QELIJOIN")) + "000102030405060708090a0b0c0d0e0f03");
  auto p = parse_join(b);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->token, j.token);
  EXPECT_EQ(p->stream_index, 3);
  EXPECT_FALSE(p->proof.has_value());
  Bytes longer = b;
  longer.push_back(0);
  EXPECT_FALSE(parse_join(longer).has_value());
  EXPECT_FALSE(parse_join(ByteSpan(b).first(24)).has_value());
  // Our extension: 32 proof bytes after the index (57 in all); nothing else parses.
  j.proof.emplace();
  j.proof->fill(0xab);
  const Bytes proved = build_join(j);
  ASSERT_EQ(proved.size(), 57U);
  EXPECT_EQ(to_hex(ByteSpan(proved).first(25)), to_hex(b));  // 0.7.16 reads these 25
  auto q = parse_join(proved);
  ASSERT_TRUE(q.has_value() && q->proof.has_value());
  EXPECT_EQ(*q->proof, *j.proof);
  EXPECT_FALSE(parse_join(ByteSpan(proved).first(56)).has_value());
}

TEST(auth_ok, every_field_round_trips) {
  AuthOk ok;
  ok.client_ip = "10.9.0.7";
  ok.server_ip = "10.9.0.1";
  ok.prefix = 20;
  ok.mtu = 16638;
  ok.dns = "";
  ok.dns_port = 53;
  ok.routes = {{"0.0.0.0/0", "10.9.0.1", 100}};
  ok.obfuscation_json = R"({"padding":{"enabled":true,"min":32,"max":512}})";
  ok.session_token = JoinToken{};
  ok.session_token->fill(0x5A);
  ok.max_streams = 16;
  ok.multipath_adaptive = false;
  const Bytes b = build_auth_ok(ok);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 3), "OK:");
  auto p = parse_auth_ok(b);
  ASSERT_TRUE(p.ok()) << to_string(p.error());
  EXPECT_EQ(p->client_ip, ok.client_ip);
  EXPECT_EQ(p->server_ip, ok.server_ip);
  EXPECT_EQ(p->prefix, 20);
  EXPECT_EQ(p->mtu, 16638);
  EXPECT_EQ(p->dns, "");
  EXPECT_EQ(p->routes.size(), 1U);
  EXPECT_EQ(p->routes[0].cidr, "0.0.0.0/0");
  EXPECT_EQ(p->obfuscation_json, ok.obfuscation_json);
  EXPECT_EQ(p->session_token, ok.session_token);
  EXPECT_EQ(p->max_streams, 16);
  EXPECT_FALSE(p->x_caps.has_value());
}

TEST(auth_ok, client_validation_rules) {
  auto parse = [](std::string_view json) {
    return parse_auth_ok(text(std::string("OK:") + std::string(json)));
  };
  EXPECT_EQ(parse(R"({"client_ip":"fd00::2"})").error(), AuthOkError::kBadClientIp);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.256"})").error(), AuthOkError::kBadClientIp);
  EXPECT_EQ(parse(R"({"prefix":24})").error(), AuthOkError::kBadClientIp);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.2","prefix":0})").error(), AuthOkError::kBadPrefix);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.2","prefix":33})").error(), AuthOkError::kBadPrefix);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.2","session_token":"xyz"})").error(),
            AuthOkError::kBadToken);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.2","routes":{}})").error(), AuthOkError::kBadField);
  EXPECT_EQ(parse(R"({"client_ip":"10.0.0.2","mtu":"1400"})").error(), AuthOkError::kBadField);
  EXPECT_EQ(parse(R"([1,2])").error(), AuthOkError::kNotJson);
  EXPECT_EQ(parse(R"({"client_ip":)").error(), AuthOkError::kNotJson);
  EXPECT_EQ(parse_auth_ok(text("NO:{}")).error(), AuthOkError::kNoPrefix);
  // Defaults and clamps.
  auto d = parse(R"({"client_ip":"10.0.0.2","mtu":575,"max_streams":99,"unknown":[1]})");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->prefix, 24);
  EXPECT_FALSE(d->mtu.has_value());  // out of range: ignored
  EXPECT_EQ(d->max_streams, 16);
  EXPECT_EQ(d->dns_port, 53);
  auto z = parse(R"({"client_ip":"10.0.0.2","max_streams":0,"mtu":16639})");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->max_streams, 1);
  EXPECT_FALSE(z->mtu.has_value());
}

TEST(auth_ok, extension_key_is_ignored_by_an_old_client) {
  const Bytes b = text(R"(OK:{"client_ip":"10.0.0.2","x_caps":5})");
  EXPECT_EQ(parse_auth_ok(b, true)->x_caps, 5U);
  EXPECT_FALSE(parse_auth_ok(b, false)->x_caps.has_value());
  // A malformed x_caps never breaks the session.
  EXPECT_FALSE(parse_auth_ok(text(R"(OK:{"client_ip":"10.0.0.2","x_caps":"x"})"))->x_caps);
}

// caps::kRoam's nonce key (docs/PROTOCOL.md §20): 64 hex digits or absent; an old
// client ignores it like every extension key.
TEST(auth_ok, roam_key_round_trips_and_is_optional) {
  AuthOk ok;
  ok.client_ip = "10.0.0.2";
  ok.x_caps = 1U << 7;
  ok.x_roam_key = std::string(64, 'a');
  const Bytes b = build_auth_ok(ok);
  EXPECT_EQ(parse_auth_ok(b, true)->x_roam_key, std::string(64, 'a'));
  EXPECT_FALSE(parse_auth_ok(b, false)->x_roam_key.has_value());
  EXPECT_FALSE(
      parse_auth_ok(text(R"(OK:{"client_ip":"10.0.0.2","x_roam_key":"abc"})"))->x_roam_key);
  EXPECT_FALSE(parse_auth_ok(text(R"(OK:{"client_ip":"10.0.0.2","x_roam_key":7})"))->x_roam_key);
  ok.x_roam_key.reset();
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(build_auth_ok(ok).data()), build_auth_ok(ok).size())
          .find("x_roam_key"),
      std::string::npos);
}

// An AUTH OK with caps::kIpv6Inside and the session's addresses.
AuthOk with_ipv6() {
  AuthOk ok;
  ok.client_ip = "10.0.0.2";
  ok.x_caps = 1U << 8;
  ok.x_ip6 = "fd00:9::2/64";
  ok.x_server_ip6 = "fd00:9::1";
  return ok;
}

// caps::kIpv6Inside's addresses (docs/PROTOCOL.md §21): both valid or neither.
TEST(auth_ok, ipv6_addresses_round_trip_both_or_neither) {
  AuthOk ok = with_ipv6();
  const Bytes b = build_auth_ok(ok);
  const auto parsed = parse_auth_ok(b, true);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->x_ip6, "fd00:9::2/64");
  EXPECT_EQ(parsed->x_server_ip6, "fd00:9::1");
  EXPECT_FALSE(parse_auth_ok(b, false)->x_ip6.has_value()) << "a 0.7.16 client ignores them";
  for (const char* bad :
       {R"("x_ip6":"fd00:9::2/64")", R"("x_ip6":"fd00:9::2","x_server_ip6":"fd00:9::1")",
        R"("x_ip6":"fd00:9::2/129","x_server_ip6":"fd00:9::1")",
        R"("x_ip6":"fd00:9::2/0","x_server_ip6":"fd00:9::1")",
        R"("x_ip6":"fd00:9::2/+4","x_server_ip6":"fd00:9::1")",
        R"("x_ip6":"10.0.0.2/24","x_server_ip6":"fd00:9::1")",
        R"("x_ip6":"fd00:9::2/64","x_server_ip6":"[fd00:9::1]")",
        R"("x_ip6":7,"x_server_ip6":"fd00:9::1")"}) {
    const auto r = parse_auth_ok(text(std::string(R"(OK:{"client_ip":"10.0.0.2",)") + bad + "}"));
    ASSERT_TRUE(r.ok()) << bad << ": never fatal";
    EXPECT_FALSE(r->x_ip6.has_value()) << bad;
    EXPECT_FALSE(r->x_server_ip6.has_value()) << bad;
  }
  ok.x_server_ip6.reset();  // one without the other is not written
  const Bytes lone = build_auth_ok(ok);
  EXPECT_EQ(std::string(lone.begin(), lone.end()).find("x_ip6"), std::string::npos);
}

// The IPv6 resolver (docs/PROTOCOL.md §21): an IPv6 address, only beside x_ip6; anything
// else is dropped, never fatal.
TEST(auth_ok, ipv6_resolver_round_trips_only_beside_the_address) {
  AuthOk ok = with_ipv6();
  ok.x_dns6 = "fd00:9::1";
  const Bytes b = build_auth_ok(ok);
  EXPECT_NE(std::string(b.begin(), b.end()).find(R"("x_dns6":"fd00:9::1")"), std::string::npos);
  EXPECT_EQ(parse_auth_ok(b, true)->x_dns6, "fd00:9::1");
  EXPECT_FALSE(parse_auth_ok(b, false)->x_dns6.has_value()) << "a 0.7.16 client ignores it";
  const std::string addresses = R"("x_ip6":"fd00:9::2/64","x_server_ip6":"fd00:9::1",)";
  for (const std::string& bad :
       {std::string(R"("x_dns6":"fd00:9::1")"),  // without x_ip6
        addresses + R"("x_dns6":"10.0.0.1")", addresses + R"("x_dns6":"fd00:9::1/64")",
        addresses + R"("x_dns6":"[fd00:9::1]")", addresses + R"("x_dns6":"")",
        addresses + R"("x_dns6":53)", addresses + R"("x_dns6":null)",
        // Not reachable through the tunnel (an IPv4-mapped one would be asked over IPv4).
        addresses + R"("x_dns6":"::ffff:10.0.0.1")", addresses + R"("x_dns6":"::1")",
        addresses + R"("x_dns6":"::")", addresses + R"("x_dns6":"fe80::1")",
        addresses + R"("x_dns6":"ff02::fb")"}) {
    const auto r = parse_auth_ok(text(R"(OK:{"client_ip":"10.0.0.2",)" + bad + "}"));
    ASSERT_TRUE(r.ok()) << bad << ": never fatal";
    EXPECT_FALSE(r->x_dns6.has_value()) << bad;
  }
  ok.x_ip6.reset();  // the resolver is not written without the addresses
  const Bytes lone = build_auth_ok(ok);
  EXPECT_EQ(std::string(lone.begin(), lone.end()).find("x_dns6"), std::string::npos);
}

// IPv6 routes (docs/PROTOCOL.md §21): only beside x_ip6; an entry that is not an IPv6
// network is dropped, never fatal; a 0.7.16 client never sees them.
TEST(auth_ok, ipv6_routes_round_trip_only_beside_the_address) {
  AuthOk ok = with_ipv6();
  ok.x_routes6 = {{"2001:db8:7::/48", "", 50}, {"::/1", "", 100}};
  const Bytes b = build_auth_ok(ok);
  const auto back = parse_auth_ok(b, true);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->x_routes6.size(), 2U);
  EXPECT_EQ(back->x_routes6[0].cidr, "2001:db8:7::/48");
  EXPECT_EQ(back->x_routes6[0].metric, 50U);
  EXPECT_EQ(back->x_routes6[1].cidr, "::/1");
  EXPECT_TRUE(parse_auth_ok(b, false)->x_routes6.empty()) << "a 0.7.16 client ignores them";
  const std::string addresses = R"("x_ip6":"fd00:9::2/64","x_server_ip6":"fd00:9::1",)";
  const auto r = parse_auth_ok(text(
      R"(OK:{"client_ip":"10.0.0.2",)" + addresses +
      R"("x_routes6":[{"cidr":"2001:db8::/32"},{"cidr":"10.0.0.0/8"},{"cidr":"2001:db8::"},)"
      R"({"cidr":"2001:db8::/129"},{"cidr":5},"2001:db8::/32",{"cidr":"2001:db8::/33","metric":-1}]})"));
  ASSERT_TRUE(r.ok()) << "never fatal";
  ASSERT_EQ(r->x_routes6.size(), 1U);
  EXPECT_EQ(r->x_routes6[0].cidr, "2001:db8::/32");
  EXPECT_EQ(r->x_routes6[0].metric, 100U);
  const auto lone =
      parse_auth_ok(text(R"(OK:{"client_ip":"10.0.0.2","x_routes6":[{"cidr":"2001:db8::/32"}]})"));
  ASSERT_TRUE(lone.ok());
  EXPECT_TRUE(lone->x_routes6.empty()) << "without x_ip6";
  ok.x_ip6.reset();
  const Bytes none = build_auth_ok(ok);
  EXPECT_EQ(std::string(none.begin(), none.end()).find("x_routes6"), std::string::npos);
}

// caps::kResume's grace period (docs/PROTOCOL.md §22): 1..3600 seconds or absent.
TEST(auth_ok, resume_secs_round_trip_within_bounds) {
  AuthOk ok;
  ok.client_ip = "10.0.0.2";
  ok.x_caps = 1U << 9;
  ok.x_resume_secs = 30;
  const Bytes b = build_auth_ok(ok);
  EXPECT_EQ(parse_auth_ok(b, true)->x_resume_secs, 30U);
  EXPECT_FALSE(parse_auth_ok(b, false)->x_resume_secs.has_value());
  for (const char* bad : {R"("x_resume_secs":0)", R"("x_resume_secs":3601)",
                          R"("x_resume_secs":"30")", R"("x_resume_secs":-1)"}) {
    const auto r = parse_auth_ok(text(std::string(R"(OK:{"client_ip":"10.0.0.2",)") + bad + "}"));
    ASSERT_TRUE(r.ok()) << bad;
    EXPECT_FALSE(r->x_resume_secs.has_value()) << bad;
  }
}

TEST(auth_ok, ipv4_parser) {
  for (auto good : {"0.0.0.0", "255.255.255.255", "10.8.0.2"}) EXPECT_TRUE(is_ipv4(good)) << good;
  for (auto bad : {"", "1.2.3", "1.2.3.4.5", "1.2.3.4 ", "256.1.1.1", "1..2.3", "a.b.c.d",
                   "1.2.3.0004", "-1.2.3.4"}) {
    EXPECT_FALSE(is_ipv4(bad)) << bad;
  }
}

TEST(auth_ok, builder_never_throws_on_bad_utf8_or_bad_obfuscation) {
  AuthOk ok;
  ok.client_ip = "10.0.0.2";
  ok.dns = "\xff\xfe";
  ok.obfuscation_json = "{not json";
  const Bytes b = build_auth_ok(ok);
  auto p = parse_auth_ok(b);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->obfuscation_json, "{}");
}

}  // namespace
}  // namespace qeli::handshake
