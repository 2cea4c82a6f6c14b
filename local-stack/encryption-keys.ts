import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateEncryptionKey } from '../security/secret-box.ts';

/**
 * Development only: a key generated on first start and kept in the data dir (mode 0600), so
 * secrets encrypted by one start can be read by the next. Production passes HOSTGATE_ENCRYPTION_KEYS.
 */
export function localEncryptionKeys(dataDir: string): string {
  const file = path.resolve(dataDir, 'encryption-keys');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const value = `local1:${generateEncryptionKey()}`;
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}
