// Client fingerprints of a ClientHello: JA3 (Salesforce) and JA4 (FoxIO, BSD-3-Clause;
// technical_details/JA4.md), computed as reality-tls.md Part C describes. Used by the
// fingerprint tests against the Chromium captures and by the hello classifier's log line.
#pragma once

#include <string>

#include "tls/client_hello.h"

namespace qeli::tls {

/// "SSLVersion,Ciphers,Extensions,Groups,PointFormats" in decimal, GREASE removed, wire order.
std::string ja3_string(const ClientHelloInfo& ch);
/// Lower-case MD5 hex of ja3_string().
std::string ja3(const ClientHelloInfo& ch);

/// JA4 over TCP ("t…"): a_b_c with b, c hashed (SHA-256, 12 hex digits).
std::string ja4(const ClientHelloInfo& ch);
/// JA4_r: the same with the raw (sorted) lists instead of hashes.
std::string ja4_r(const ClientHelloInfo& ch);
/// JA4_o / JA4_ro: wire order, SNI and ALPN kept in the extension list.
std::string ja4_o(const ClientHelloInfo& ch);
std::string ja4_ro(const ClientHelloInfo& ch);

}  // namespace qeli::tls
