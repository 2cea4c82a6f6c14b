// Stripe when STRIPE_SECRET_KEY is set, else the built-in local provider (decisions.md).
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { createLocalProvider } from './local-provider.ts';
import type { BillingProvider } from './provider.ts';
import { createStripeProvider } from './stripe-provider.ts';

export function createBillingProvider(config: Pick<Config, 'billing' | 'publicUrl'>, db: Db, onEvent?: (outboxId: number) => void): BillingProvider {
  if (config.billing.stripe) return createStripeProvider({ db, config: config.billing.stripe, publicUrl: config.publicUrl, ...(onEvent ? { onEvent } : {}) });
  return createLocalProvider({ db, publicUrl: config.publicUrl, ...(onEvent ? { onEvent } : {}) });
}
