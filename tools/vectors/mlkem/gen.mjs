// Generates tests/vectors/mlkem768.json: ML-KEM-768 (FIPS 203) known answers from an
// implementation independent of the one qeli links (PQClean): @noble/post-quantum, pinned
// exactly in package.json / package-lock.json.
//
//   cd tools/vectors/mlkem && npm ci && node gen.mjs
//
// noble's keygen(seed) takes the 64-byte seed as d ‖ z (FIPS 203 Alg. 16
// ML-KEM.KeyGen_internal(d, z)): d = seed[0..32] feeds K-PKE.KeyGen, z = seed[32..64] is
// the implicit-rejection secret stored at the end of dk. encapsulate(ek, m) is
// Alg. 17 ML-KEM.Encaps_internal(ek, m). Both match qeli's *_derand entry points.
//
// Inputs are fixed, reproducible byte strings (SHA-256 of a label and counter), so a run
// always writes the same file; the test compares every field.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', '..', 'tests', 'vectors', 'mlkem768.json');
const noblePkg = JSON.parse(
  readFileSync(join(here, 'node_modules', '@noble', 'post-quantum', 'package.json'), 'utf8'));

const hex = (b) => Buffer.from(b).toString('hex');
const sha256 = (b) => createHash('sha256').update(b).digest();
// Deterministic input bytes: SHA-256("qeli-mlkem768-vectors/<label>/<i>/<block>") blocks.
function fixedBytes(label, i, n) {
  const parts = [];
  for (let block = 0; parts.length * 32 < n; block++) {
    parts.push(sha256(Buffer.from(`qeli-mlkem768-vectors/${label}/${i}/${block}`)));
  }
  return new Uint8Array(Buffer.concat(parts).subarray(0, n));
}
// J(z ‖ c) = SHAKE256(z ‖ c, 32 bytes), FIPS 203 Alg. 18 line 7, computed with Node's own
// SHAKE256 so the rejection secret is checked by a second, unrelated implementation.
const implicitRejection = (z, c) =>
  createHash('shake256', { outputLength: 32 }).update(z).update(c).digest();

function must(cond, what) {
  if (!cond) throw new Error(`self-check failed: ${what}`);
}

// Seeds: a counting pattern, all-zero, all-0xff, and two hashed ones. Each tampered case
// flips one bit at a different place of the ciphertext (u part start/end, v part end).
const seeds = [
  Uint8Array.from({ length: 64 }, (_, i) => i),
  new Uint8Array(64),
  new Uint8Array(64).fill(0xff),
  fixedBytes('seed', 3, 64),
  fixedBytes('seed', 4, 64),
];
const flips = [0, 959, 1087, 960, 500];

const cases = seeds.map((seed, i) => {
  const { publicKey: ek, secretKey: dk } = ml_kem768.keygen(seed);
  must(ek.length === 1184 && dk.length === 2400, 'key sizes');
  const m = fixedBytes('m', i, 32);
  const { cipherText: ct, sharedSecret: ss } = ml_kem768.encapsulate(ek, m);
  must(ct.length === 1088 && ss.length === 32, 'ciphertext / secret sizes');
  const ss2 = ml_kem768.decapsulate(ct, dk);
  must(hex(ss2) === hex(ss), 'decapsulation gives the encapsulated secret');

  const tampered = Uint8Array.from(ct);
  tampered[flips[i]] ^= 0x01;
  const rejected = ml_kem768.decapsulate(tampered, dk);
  const z = dk.subarray(2400 - 32);
  must(hex(z) === hex(seed.subarray(32)), 'dk ends with z = seed[32..64]');
  must(hex(dk.subarray(1152, 1152 + 1184)) === hex(ek), 'dk embeds ek');
  must(hex(rejected) === hex(implicitRejection(z, tampered)), 'noble rejection = J(z || c)');
  must(hex(rejected) !== hex(ss), 'rejection secret differs from the real one');

  return {
    id: `mlkem768/cases/${String(i).padStart(2, '0')}`,
    seed: hex(seed),
    ek: hex(ek),
    dk_sha256: hex(sha256(dk)),
    m: hex(m),
    ct: hex(ct),
    shared_secret: hex(ss),
    tampered_byte: flips[i],
    tampered_ct: hex(tampered),
    rejection_secret: hex(rejected),
  };
});

const doc = {
  primitive: 'ML-KEM-768 (FIPS 203)',
  generator: `tools/vectors/mlkem/gen.mjs with @noble/post-quantum ${noblePkg.version}`,
  fields: {
    seed: 'd (32) ‖ z (32), the input of ML-KEM.KeyGen_internal',
    ek: 'encapsulation key, 1184 bytes',
    dk_sha256: 'SHA-256 of the 2400-byte decapsulation key dk_PKE ‖ ek ‖ H(ek) ‖ z',
    m: 'the 32-byte randomness of ML-KEM.Encaps_internal',
    ct: 'ciphertext, 1088 bytes',
    shared_secret: 'K from encapsulation; decapsulating ct must give the same',
    tampered_ct: 'ct with bit 0 of byte tampered_byte flipped',
    rejection_secret: 'what decapsulating tampered_ct gives: J(z ‖ tampered_ct)',
  },
  cases,
};
writeFileSync(out, JSON.stringify(doc, null, 1) + '\n');
console.log(`wrote ${cases.length} cases to ${out}`);
