// Keys the API authenticated, kept in memory for a few seconds (HOSTGATE_API_KEY_CACHE_TTL_MS,
// default 2 s): a create was three round trips to Postgres, one of them the key's lookup
// (docs/scale.md, "Creates of one organization"). Revocation stays prompt: migration 024 notifies
// a key's id on `hostgate_api_keys` when it is revoked, changed or deleted, from whatever
// connection did it (the CLI, another API process), and the entry is evicted as the notification
// arrives — milliseconds after the revoke's commit. The TTL bounds the one case that would keep a
// revoked key alive longer: a notification lost while the connection stayed up.
//
// Fail safe: nothing is served from memory unless the LISTEN connection is up. When it is lost the
// whole cache is dropped (notifications may be missed from then on) and every request looks its
// key up until the LISTEN is back. Only found keys are cached; an unknown or revoked key is looked
// up every time, so the failed-authentication budget (api/auth-failure-limit.ts) sees each one.
//
// A lookup that was in flight when a notification (or a loss) came in is not cached: it may have
// read the key before the change committed. An epoch counter, bumped by every notification and
// loss, tells; notifications are rare (a revocation), so discarding a few results costs nothing.
import { listenForApiKeyChanges, type ApiKeyRow } from '../db/repositories/api-keys.ts';
import type { ChannelListener } from '../db/channel-listener.ts';
import type { Logger } from '../logging/logger.ts';
import { apiKeyCacheLookups } from '../metrics/http.ts';
import { sha256 } from '../security/tokens.ts';

/** Keys kept at most; past it the oldest entry goes (an API serves a few vendors' keys, not thousands). */
export const MAX_CACHED_KEYS = 10_000;

export interface ApiKeyCache {
  /** The live key with this secret, or null: from memory when cached and the feed is up, else looked up. */
  authenticate(secret: string): Promise<ApiKeyRow | null>;
  /** Starts the revocation feed (LISTEN); until it listens, nothing is cached. */
  start(): void;
  /** Whether entries are kept and served now (the feed listens and the TTL is above 0). */
  readonly caching: boolean;
  readonly size: number;
  close(): Promise<void>;
}

interface Entry { key: ApiKeyRow; expiresAt: number }

export function createApiKeyCache(o: {
  lookup: (secret: string) => Promise<ApiKeyRow | null>;
  ttlMs: number;
  /** Without it (or with ttlMs 0) there is no feed, so no cache: every request looks its key up. */
  databaseUrl: string | undefined;
  logger: Logger;
  now?: () => number;
}): ApiKeyCache {
  const now = o.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const digestOfKey = new Map<string, string>();
  let epoch = 0;
  let feed: ChannelListener | null = null;
  let listening = false;
  let closed = false;

  const forget = (keyId: string) => {
    epoch++;
    const digest = digestOfKey.get(keyId);
    if (digest === undefined) return;
    digestOfKey.delete(keyId);
    entries.delete(digest);
  };
  const forgetAll = () => {
    epoch++;
    entries.clear();
    digestOfKey.clear();
  };
  const remember = (digest: string, key: ApiKeyRow, expiresAt: number) => {
    if (entries.size >= MAX_CACHED_KEYS && !entries.has(digest)) {
      const oldest = entries.keys().next().value as string;
      const evicted = entries.get(oldest)!;
      entries.delete(oldest);
      digestOfKey.delete(evicted.key.id);
    }
    entries.set(digest, { key, expiresAt });
    digestOfKey.set(key.id, digest);
  };

  return {
    get caching() { return listening && o.ttlMs > 0; },
    get size() { return entries.size; },
    async authenticate(secret) {
      const digest = sha256(secret).toString('base64');
      const startedAt = now();
      const caching = listening && o.ttlMs > 0;
      if (caching) {
        const entry = entries.get(digest);
        if (entry && entry.expiresAt > startedAt) {
          apiKeyCacheLookups.inc({ outcome: 'hit' });
          return entry.key;
        }
        if (entry) {
          // Expired, not changed: no epoch bump, lookups in flight may still cache what they read.
          entries.delete(digest);
          digestOfKey.delete(entry.key.id);
        }
      }
      apiKeyCacheLookups.inc({ outcome: caching ? 'miss' : 'off' });
      const seen = epoch;
      const key = await o.lookup(secret);
      // Still listening, and no notification or loss since the lookup began: the row read is
      // newer than any change the feed has announced. The TTL counts from before the lookup.
      if (key && caching && listening && epoch === seen) remember(digest, key, startedAt + o.ttlMs);
      return key;
    },
    start() {
      if (feed || closed || !o.databaseUrl || o.ttlMs <= 0) return;
      feed = listenForApiKeyChanges(o.databaseUrl, {
        onKeyChanged: forget,
        onListening: () => {
          forgetAll();
          listening = true;
          o.logger.info('API key cache on: its revocation feed (LISTEN hostgate_api_keys) listens');
        },
        onLost: (error) => {
          listening = false;
          forgetAll();
          o.logger.warn({ err: String(error) }, 'API key cache off: its revocation feed (LISTEN hostgate_api_keys) was lost; every request looks its key up until it reconnects');
        },
      });
    },
    async close() {
      closed = true;
      listening = false;
      forgetAll();
      const f = feed;
      feed = null;
      if (f) await f.close();
    },
  };
}
