// ServerHello and the disguised flight records: parsers must bounds-check every length.
#include <cstdlib>

#include "wire/faketls_server_flight.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  auto sh = wire::parse_server_hello(in);
  if (sh.ok()) {
    wire::ServerHelloParams p;
    p.mlkem_ct = sh->mlkem_ct;
    p.x25519 = sh->x25519;
    auto again = wire::parse_server_hello(wire::build_server_hello(p));
    if (!again.ok() || again->mlkem_ct != sh->mlkem_ct) std::abort();
  }
  for (auto r : {wire::FlightRecord::kChangeCipherSpec, wire::FlightRecord::kCertificate,
                 wire::FlightRecord::kFinished, wire::FlightRecord::kTicket}) {
    (void)wire::check_flight_record(r, in);
  }
  return 0;
}
