#!/usr/bin/env python3
"""Generates tests/vectors/hkdf-hybrid.json: qeli data keys for the "hybrid" scheme.

The reference vectors (fixtures/qeli-conformance/hkdf.json) cover the classic, bound and
hybrid-bound schemes but not "hybrid" (salt "qeli-key-derivation-v2-hybrid", IKM = ee ‖ ml).
This script computes it with Python's own hmac/hashlib, independent of qeli's C++ code:

    PRK = HMAC-SHA256(salt, IKM)                       (RFC 5869 §2.2)
    key = HMAC-SHA256(PRK, info ‖ 0x01)                (RFC 5869 §2.3, L = 32: one block)

Before writing anything it recomputes every case of the reference hkdf.json with the same
code and stops if one differs, so the construction is proven against qeli 0.7.16 first.

    python3 tools/vectors/gen_hkdf_hybrid.py [--conformance DIR]
"""
import argparse
import hashlib
import hmac
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "tests", "vectors", "hkdf-hybrid.json")

SALTS = {
    "classic": b"qeli-key-derivation-v1",
    "hybrid": b"qeli-key-derivation-v2-hybrid",
    "bound": b"qeli-key-derivation-v1-static-bound",
    "hybrid-bound": b"qeli-key-derivation-v2-hybrid-static-bound",
}
INFO_S2C = b"server-to-client-enc-key"
INFO_C2S = b"client-to-server-enc-key"


def hkdf_sha256(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


def data_keys(scheme: str, ee: bytes, ml: bytes | None, es: bytes | None) -> dict:
    # IKM order is part of the wire format: X25519 first, then ML-KEM, then static DH.
    ikm = ee + (ml if scheme in ("hybrid", "hybrid-bound") else b"") + (
        es if scheme in ("bound", "hybrid-bound") else b"")
    return {
        "server_to_client": hkdf_sha256(SALTS[scheme], ikm, INFO_S2C, 32).hex(),
        "client_to_server": hkdf_sha256(SALTS[scheme], ikm, INFO_C2S, 32).hex(),
    }


def check_reference(conformance_dir: str) -> int:
    with open(os.path.join(conformance_dir, "hkdf.json"), encoding="utf-8") as f:
        ref = json.load(f)
    n = 0
    for case in ref["cases"]:
        inputs = case["inputs"]
        ee = bytes.fromhex(inputs.get("ee") or inputs.get("x25519_shared") or inputs["shared_secret"])
        ml = bytes.fromhex(inputs["mlkem_shared"]) if "mlkem_shared" in inputs else None
        es = bytes.fromhex(inputs["es"]) if "es" in inputs else None
        got = data_keys(case["scheme"], ee, ml, es)
        if got != case["expect"]:
            sys.exit(f"reference case {case['id']} does not reproduce: {got} != {case['expect']}")
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conformance", default=os.environ.get(
        "QELI_CONFORMANCE_DIR", os.path.join(ROOT, "..", "shared", "fixtures", "qeli-conformance")))
    args = ap.parse_args()
    n_ref = check_reference(args.conformance)

    # Inputs in the style of the reference file (0x01 / 0x02 fill), plus counting bytes and
    # two secrets that differ in their last byte only, so a swapped IKM order shows.
    inputs = [
        ("hybrid", bytes([1]) * 32, bytes([2]) * 32),
        ("hybrid-counting", bytes(range(32)), bytes(range(32, 64))),
        ("hybrid-swapped", bytes(range(32, 64)), bytes(range(32))),
        ("hybrid-zero-mlkem", bytes([0xab]) * 32, bytes(32)),
    ]
    cases = []
    for i, (name, ee, ml) in enumerate(inputs):
        cases.append({
            "id": f"hkdf-hybrid/cases/{i:02d}",
            "name": name,
            "scheme": "hybrid",
            "inputs": {"x25519_shared": ee.hex(), "mlkem_shared": ml.hex()},
            "expect": data_keys("hybrid", ee, ml, None),
        })
    doc = {
        "primitive": "hkdf",
        "generator": "tools/vectors/gen_hkdf_hybrid.py (Python hmac/hashlib); construction "
                     f"checked against {n_ref} cases of the reference hkdf.json",
        "cases": cases,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"checked {n_ref} reference cases; wrote {len(cases)} hybrid cases to {OUT}")


if __name__ == "__main__":
    main()
