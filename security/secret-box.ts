// AES-256-GCM envelope for secrets kept at rest (webhook secrets, private keys). The key id is
// stored beside each ciphertext so keys can be rotated: the first configured key encrypts, any
// configured key decrypts.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { EncryptionKey } from '../config/index.ts';
import { randomBytesPooled } from './random.ts';

export interface Sealed { keyId: string; ciphertext: Buffer }

export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #current: EncryptionKey;
  /** The current key as a KeyObject made once: a raw Buffer key is imported again on every seal (each idempotent answer). */
  readonly #currentKey: KeyObject;

  constructor(keys: EncryptionKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one encryption key (HOSTGATE_ENCRYPTION_KEYS)');
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#current = keys[0]!;
    this.#currentKey = createSecretKey(this.#current.key);
  }

  /** Layout: 12-byte IV ‖ 16-byte tag ‖ ciphertext. `context` binds the ciphertext to its row. */
  seal(plaintext: string | Buffer, context: string): Sealed {
    const iv = randomBytesPooled(12);
    const cipher = createCipheriv('aes-256-gcm', this.#currentKey, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: this.#current.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]) };
  }

  open(sealed: Sealed, context: string): Buffer {
    const key = this.#keys.get(sealed.keyId);
    if (!key) throw new Error(`encryption key "${sealed.keyId}" is not configured; add it to HOSTGATE_ENCRYPTION_KEYS`);
    const iv = sealed.ciphertext.subarray(0, 12);
    const tag = sealed.ciphertext.subarray(12, 28);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.ciphertext.subarray(28)), decipher.final()]);
  }
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}
