// Random bytes from the CSPRNG, drawn from a pool filled in blocks. A create took six small
// `randomBytes` calls (request id, domain and event ids, ownership token, challenge label, the
// idempotent answer's IV), and the CPU profile of bench:api put 6–7 % of the API thread in them:
// each call pays the binding and OpenSSL's per-call overhead, not the bytes (docs/scale.md,
// "Less CPU per create"). Node's own `crypto.randomUUID` caches entropy the same way.
//
// Every byte is handed out once: the offset only moves forward, and the pool is refilled from
// `randomFillSync` when the rest would not cover a request. Bytes handed out are zeroed in the
// pool, so it never holds a copy of an id, token or IV after giving it away.
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `n` fresh random bytes in a Buffer of the caller's own (like `crypto.randomBytes(n)`). */
export function randomBytesPooled(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`randomBytesPooled: ${n} is not a byte count`);
  // Large requests gain nothing from the pool; they take their own block.
  if (n > POOL_BYTES / 4) return randomFillSync(Buffer.allocUnsafe(n));
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = Buffer.allocUnsafe(n);
  pool.copy(out, 0, offset, offset + n);
  pool.fill(0, offset, offset + n);
  offset += n;
  return out;
}
