// qeli:// links: every case and reject-case of the reference's qeli-links.json (suite
// `conformance`), emit -> parse round trips, percent-encoding and validation.
#include "config/link.h"

#include <gtest/gtest.h>

#include "config/short_id.h"
#include "support/conformance.h"

namespace qeli::config {
namespace {

using nlohmann::json;

// Compares one expected field of a vector against the parsed link. `null` in the
// vector means "absent" for the optional fields.
void expect_field(const ShareLink& l, const std::string& field, const json& want) {
  SCOPED_TRACE(field);
  auto opt = [&](const std::optional<std::string>& got) {
    if (want.is_null()) {
      EXPECT_FALSE(got.has_value());
    } else {
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, want.get<std::string>());
    }
  };
  if (field == "host") {
    EXPECT_EQ(l.host, want.get<std::string>());
  } else if (field == "port") {
    EXPECT_EQ(l.port, want.get<int>());
  } else if (field == "user") {
    EXPECT_EQ(l.user, want.get<std::string>());
  } else if (field == "pass") {
    EXPECT_EQ(l.pass, want.get<std::string>());
  } else if (field == "proto") {
    EXPECT_EQ(to_string(l.proto), want.get<std::string>());
  } else if (field == "mode") {
    EXPECT_EQ(to_string(l.mode), want.get<std::string>());
  } else if (field == "server_key") {
    EXPECT_EQ(l.server_key, want.get<std::string>());
  } else if (field == "sni") {
    opt(l.sni);
  } else if (field == "reality_sid") {
    opt(l.reality_sid);
  } else if (field == "obfs_key") {
    opt(l.obfs_key);
  } else if (field == "front") {
    EXPECT_EQ(to_string(l.front), want.get<std::string>());
  } else if (field == "quic") {
    EXPECT_EQ(l.quic, want.get<bool>());
  } else if (field == "awg") {
    EXPECT_EQ(l.awg, want.get<bool>());
  } else if (field == "jc") {
    EXPECT_EQ(l.jc, want.get<std::uint32_t>());
  } else if (field == "jmin") {
    EXPECT_EQ(l.jmin, want.get<std::uint32_t>());
  } else if (field == "jmax") {
    EXPECT_EQ(l.jmax, want.get<std::uint32_t>());
  } else {
    ADD_FAILURE() << "vector field not understood by the test: " << field;
  }
}

TEST(conformance, qeli_links_parse) {
  const auto j = test::load_conformance("qeli-links.json");
  test::require_ids(
      j, "cases",
      {"qeli-links/cases/02", "qeli-links/cases/03", "qeli-links/cases/04", "qeli-links/cases/05",
       "qeli-links/cases/06", "qeli-links/cases/07", "qeli-links/cases/09", "qeli-links/cases/10",
       "qeli-links/cases/11", "qeli-links/cases/12"});
  int fields = 0;
  for (const auto& c : test::cases(j, "cases", 10)) {
    SCOPED_TRACE(c["id"].get<std::string>() + " " + c["name"].get<std::string>());
    const auto l = parse_link(c["uri"].get<std::string>());
    ASSERT_TRUE(l.ok()) << l.error();
    for (const auto& [field, want] : c["expect"].items()) {
      expect_field(*l, field, want);
      ++fields;
    }
  }
  EXPECT_GE(fields, 50);
}

TEST(conformance, qeli_links_reject) {
  const auto j = test::load_conformance("qeli-links.json");
  test::require_ids(j, "reject",
                    {"qeli-links/reject/01", "qeli-links/reject/02", "qeli-links/reject/03",
                     "qeli-links/reject/04", "qeli-links/reject/05", "qeli-links/reject/06"});
  for (const auto& c : test::cases(j, "reject", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>() + " " + c["name"].get<std::string>());
    EXPECT_FALSE(parse_link(c["uri"].get<std::string>()).ok());
  }
}

// Every parseable vector link, re-emitted and parsed again, yields the same fields.
TEST(conformance, qeli_links_roundtrip) {
  const auto j = test::load_conformance("qeli-links.json");
  for (const auto& c : test::cases(j, "cases", 10)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const auto a = parse_link(c["uri"].get<std::string>());
    ASSERT_TRUE(a.ok());
    const auto b = parse_link(emit_link(*a));
    ASSERT_TRUE(b.ok()) << emit_link(*a);
    for (const auto& [field, want] : c["expect"].items()) expect_field(*b, field, want);
    EXPECT_EQ(emit_link(*a), emit_link(*b));
  }
}

TEST(link, ipv6_host_is_a_server_address) {
  // 0.7.16 parses a bracketed host and then refuses it; we dial it (an IPv6-only server).
  const auto l = parse_link("qeli://g:pw@[2001:db8::1]:443?proto=tcp&mode=fake-tls");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(validate_link(*l).empty());
  EXPECT_EQ(l->host, "2001:db8::1");
  EXPECT_NE(emit_link(*l).find("@[2001:db8::1]:443?"), std::string::npos);
  EXPECT_FALSE(parse_link("qeli://g:pw@[vpn.example.com]:443").ok());  // brackets: IPv6 only
}

TEST(link, full_roundtrip_with_every_parameter) {
  ShareLink l;
  l.user = "user@corp";
  l.pass = "p@ss:word/1 +&=#%";
  l.host = "vpn.example.com";
  l.port = 8443;
  l.proto = Transport::kUdp;
  l.mode = ClientMode::kObfs;
  l.server_key = std::string(64, 'a');
  l.sni = "www.example.org";
  l.obfs_key = "my+secret/key=";
  l.front = Fronting::kNone;
  l.quic = true;
  l.awg = true;
  l.jc = 4;
  l.jmin = 50;
  l.jmax = 200;
  l.mtu = 1280;
  l.label = "Home VPN #1";
  const std::string s = emit_link(l);
  EXPECT_EQ(s.rfind("qeli://user%40corp:p%40ss%3Aword%2F1%20%2B%26%3D%23%25@vpn.example.com:8443"
                    "?proto=udp&mode=obfs&key=",
                    0),
            0U)
      << s;
  EXPECT_NE(s.find("&front=none&quic=1&awg=1&jc=4&jmin=50&jmax=200&mtu=1280#Home%20VPN%20%231"),
            std::string::npos)
      << s;
  const auto back = parse_link(s);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->user, l.user);
  EXPECT_EQ(back->pass, l.pass);
  EXPECT_EQ(back->obfs_key, l.obfs_key);
  EXPECT_EQ(back->label, l.label);
  EXPECT_EQ(back->mtu, 1280U);
  EXPECT_EQ(back->front, Fronting::kNone);
  EXPECT_EQ(emit_link(*back), s);
}

TEST(link, defaults_are_not_emitted) {
  ShareLink l;
  l.user = "a";
  l.pass = "b";
  l.host = "h";
  l.port = 443;
  EXPECT_EQ(emit_link(l), "qeli://a:b@h:443?proto=tcp&mode=fake-tls");
}

TEST(link, malformed_known_parameters_are_refused_unknown_ignored) {
  EXPECT_TRUE(parse_link("qeli://a:b@h:1?future=1&x").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?key=abcd").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?rsid=xyz").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?rsid=0000").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?jc=-1").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?mode=warp").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?proto=sctp").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?front=cdn").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1?quic=maybe").ok());
  EXPECT_FALSE(parse_link("qeli://a:b%4@h:1").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1#%zz").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@2001:db8::1:443").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@h:1/path").ok());
  EXPECT_TRUE(parse_link("qeli://a:b@h:1/?mode=plain").ok());
  // Found by fuzz_link: a host that would need escaping cannot round-trip; refuse it.
  EXPECT_FALSE(parse_link("qeli://a:b@v$n.example.com:443").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@v%24n.example.com:443").ok());
  EXPECT_FALSE(parse_link("qeli://a:b@[not-v6]:443").ok());
  EXPECT_TRUE(parse_link("qeli://a:b@my_host-1.example.com:443").ok());
}

TEST(link, validation_rules) {
  auto problems = [](std::string_view uri) {
    const auto l = parse_link(uri);
    EXPECT_TRUE(l.ok());
    return l.ok() ? validate_link(*l) : std::vector<std::string>{"unparsed"};
  };
  EXPECT_TRUE(problems("qeli://a:b@h:1?proto=tcp&mode=fake-tls").empty());
  EXPECT_EQ(problems("qeli://a:b@h:1?proto=udp&mode=plain").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?proto=udp&mode=reality-tls&rsid=01").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?mode=obfs").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?mode=reality").size(), 1U);
  // 0.7.16 writes quic=1 into TCP profiles' links; it means nothing there, and is no error.
  EXPECT_TRUE(problems("qeli://a:b@h:1?proto=tcp&quic=1").empty());
  EXPECT_EQ(problems("qeli://a:b@h:1?proto=udp&awg=1&jc=129&jmin=10&jmax=20").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?proto=udp&awg=1&jc=1&jmin=30&jmax=20").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?proto=udp&awg=1&jc=1&jmin=30&jmax=1401").size(), 1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?mtu=575").size(), 1U);
  // reality-tls names the target in a real hello: a host name, never an IP.
  EXPECT_TRUE(problems("qeli://"
                       "a:b@h.example:1?mode=reality-tls&rsid=01&key="
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
                  .empty());
  EXPECT_EQ(problems("qeli://"
                     "a:b@192.0.2.1:1?mode=reality-tls&rsid=01&key="
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
                .size(),
            1U);
  EXPECT_TRUE(problems("qeli://"
                       "a:b@192.0.2.1:1?mode=reality-tls&rsid=01&sni=www.example.com&key="
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
                  .empty());
  EXPECT_EQ(problems("qeli://"
                     "a:b@192.0.2.1:1?mode=reality-tls&rsid=01&sni=192.0.2.9&key="
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
                .size(),
            1U);
  EXPECT_EQ(problems("qeli://a:b@h:1?sni=" + std::string(254, 'a')).size(), 1U);
  EXPECT_TRUE(problems("qeli://a:b@h:1?mtu=16638").empty());
  EXPECT_EQ(problems("qeli://a:b@h:1?mtu=16639").size(), 1U);
}

TEST(link, percent_codec) {
  EXPECT_EQ(percent_encode("a-b_c.d~e f/"), "a-b_c.d~e%20f%2F");
  EXPECT_EQ(percent_decode("%41%2b+").value(), "A++");
  EXPECT_FALSE(percent_decode("%4").has_value());
  EXPECT_FALSE(percent_decode("%").has_value());
  EXPECT_FALSE(percent_decode("%g0").has_value());
  // Every byte survives encode -> decode.
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(percent_decode(percent_encode(all)).value(), all);
}

}  // namespace
}  // namespace qeli::config

namespace qeli::config {
namespace {

// The trial: a link pasted with surrounding spaces, a newline or quotes was refused.
TEST(link, surrounding_white_space_and_quotes_are_trimmed) {
  const std::string bare = "qeli://alice:pw@vpn.example.com:443?proto=tcp&mode=fake-tls#home";
  for (const std::string& wrapped :
       {"  " + bare + "  ", bare + "\n", "\t" + bare + "\r\n", "\"" + bare + "\"", "'" + bare + "'",
        " \"" + bare + "\"\n", "<" + bare + ">", "`" + bare + "`"}) {
    SCOPED_TRACE(wrapped);
    const auto l = parse_link(wrapped);
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->user, "alice");
    EXPECT_EQ(l->pass, "pw");
    EXPECT_EQ(l->host, "vpn.example.com");
    EXPECT_EQ(l->label, "home");
  }
  EXPECT_FALSE(parse_link("\"" + bare).ok()) << "an unmatched quote stays and is refused";
  EXPECT_EQ(trim_link_text("  "), "");
}

// Found by fuzz_link: a short id spelled with separators ("006   1      ") was emitted
// raw, so the emitted link ended in spaces that the next parse trimmed away. Every field
// an emitted link carries must survive trimming: the short id is stored in its canonical
// spelling, and free text is percent-encoded wherever it sits.
TEST(link, emitted_links_are_a_fixed_point_even_for_values_with_separators_and_spaces) {
  const auto l = parse_link("qeli://eve:pw@vpn.example.com:443?mode=reality&rsid=0A:6 1   ");
  ASSERT_TRUE(l.ok()) << l.error();
  ASSERT_TRUE(l->reality_sid.has_value());
  EXPECT_EQ(*l->reality_sid, "0a61");
  EXPECT_EQ(short_id_from_hex(*l->reality_sid), short_id_from_hex("0A:6 1"));

  ShareLink spaced;
  spaced.user = " eve ";
  spaced.pass = " pw ";
  spaced.host = "vpn.example.com";
  spaced.port = 443;
  spaced.sni = " site ";
  spaced.obfs_key = " k ";
  spaced.reality_sid = "0a61";
  spaced.label = " home ";
  const std::string once = emit_link(spaced);
  EXPECT_EQ(once, trim_link_text(once)) << "nothing at either end a trim would remove";
  const auto again = parse_link(once);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(emit_link(*again), once);
  EXPECT_EQ(again->user, " eve ");
  EXPECT_EQ(again->label, " home ");
  EXPECT_EQ(again->sni, " site ");
}

}  // namespace
}  // namespace qeli::config
