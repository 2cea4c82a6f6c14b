// Where a new order goes (issue 22, "A second CA" and "A shared CA budget"): the first configured
// CA that the hostname's CAA allows, that has not refused this domain over CAA lately, that no
// worker paused, and whose account has budget left. A CA that fails for its own reasons (no
// answer, 5xx serverInternal, rateLimited) is paused for every worker — for its Retry-After when
// it gave one — and the next CA is asked at once; a refusal about the hostname is final here
// (the caller's backoff decides). When every usable CA's budget is used up, the order waits its
// turn: a refusal carrying `retryAt` (like the per-domain brake), which the workflow shows as a
// `certificate` problem and waits out — never a failure.
import { ApplicationFailure } from '@temporalio/common';
import type { Client, Order } from 'acme-client';
import { CaConnectionError, CaProblemError, classifyAcmeError, shortType } from '../../acme/errors.ts';
import { budgetProblem } from '../../model/ca-budget.ts';
import type { CaHandle } from './cas.ts';
import type { IssuanceContext } from './context.ts';
import { refused } from './failures.ts';

/** How long a CA that failed without a Retry-After is left alone by every worker. */
export const CA_PAUSE_MS = 30_000;
/** A CA that refused a domain over CAA is not asked for it again for this long. */
const CAA_REFUSAL_MEMORY_MS = 60 * 60_000;

export interface Placed { ca: CaHandle; client: Client; caOrder: Order; placementId: string }

/** The error an ACME call threw, under the Temporal failure our `ca()` wrapper made of it. */
function rawError(error: unknown): unknown {
  return error instanceof ApplicationFailure && error.cause ? error.cause : error;
}

/** A failure that is the CA's (it could not take the order now), not about this hostname. */
function caTrouble(error: unknown): { retryAfterMs: number | undefined; neverSeen: boolean; reason: string } | null {
  const raw = rawError(error);
  if (error instanceof ApplicationFailure && error.type !== 'CaUnavailable' && !(raw instanceof CaConnectionError)) return null;
  const c = classifyAcmeError(raw);
  if (c.kind !== 'retryable') return null;
  // Our account was forgotten (a test CA restarted): the next attempt registers again; not an outage.
  if (raw instanceof CaProblemError && shortType(raw.problem?.type) === 'accountDoesNotExist') return null;
  return { retryAfterMs: c.retryAfterSeconds ? c.retryAfterSeconds * 1000 : undefined, neverSeen: raw instanceof CaConnectionError, reason: c.message };
}

export function createPlacement(ctx: IssuanceContext) {
  const { cas, budget, logger } = ctx;

  /** The CAs to try for this domain, in order, and why the others were left out. */
  async function candidates(domainId: string, hostname: string): Promise<{ allowed: CaHandle[]; usable: CaHandle[]; pausedUntil: number | null }> {
    const allowed = await cas.allowedByCaa(hostname);
    // A CA that marked one of this domain's orders invalid over CAA: its view of CAA differs from ours.
    const refusedByCaa = allowed.length > 1 ? await ctx.orders.directoriesRefusingOverCaa(domainId, CAA_REFUSAL_MEMORY_MS) : [];
    const willing = allowed.filter((ca) => !refusedByCaa.includes(ca.dir.directoryUrl));
    const list = willing.length ? willing : allowed;
    const paused = await budget.paused();
    const usable = list.filter((ca) => !paused.has(ca.dir.directoryUrl));
    const until = list.map((ca) => paused.get(ca.dir.directoryUrl)?.until).filter((t): t is number => t !== undefined);
    return { allowed, usable, pausedUntil: until.length ? Math.min(...until) : null };
  }

  /**
   * Places a new order with the first CA that takes it. Throws a refusal (final, or with
   * `retryAt` when the budget is used up everywhere) or CaUnavailable (every CA paused or
   * failing; with the earliest pause's end as the next retry). `nothingSent` runs before it
   * throws when no CA saw an order (the per-domain brake takes its place back).
   */
  async function place(domainId: string, hostname: string, nothingSent: () => Promise<void>): Promise<Placed> {
    const { allowed, usable, pausedUntil } = await candidates(domainId, hostname);
    if (allowed.length === 0) {
      throw refused('caa_forbids_ca', `The CAA records of ${hostname} allow none of our certificate authorities (${cas.all.flatMap((c) => c.dir.caaIdentities).join(', ')}) to issue for it`);
    }
    let waiting: { retryAt: number; ahead: number; ca: CaHandle } | null = null;
    let lastFailure: unknown = null;
    let sent = false;
    for (const ca of usable) {
      const admission = await budget.admit(ca.dir.directoryUrl, domainId, ca.dir.budget);
      if (!admission.admitted) {
        if (!waiting || admission.retryAt < waiting.retryAt) waiting = { retryAt: admission.retryAt, ahead: admission.ahead, ca };
        continue;
      }
      // Whether the new order left: a client that could not be built (directory, account) sent none.
      let asked = false;
      try {
        const client = await ca.client();
        asked = true;
        const caOrder = await ca.ca('create order', () => client.createOrder({ identifiers: [{ type: 'dns', value: hostname }] }));
        if (ca !== cas.all[0]) logger.info({ domainId, hostname, ca: ca.dir.name }, 'ACME order placed with a fallback CA');
        return { ca, client, caOrder, placementId: admission.placementId };
      } catch (error) {
        const trouble = caTrouble(error);
        if (!asked || trouble?.neverSeen) await budget.release(admission.placementId);
        else sent = true;
        if (!trouble) {
          if (!sent) await nothingSent();
          throw error;
        }
        // The CA's Retry-After holds every worker; an outage without one pauses the CA only when
        // there is another to go to (alone, Temporal's retries pace it as before).
        if (trouble.retryAfterMs !== undefined || cas.all.length > 1) {
          const until = Date.now() + (trouble.retryAfterMs ?? CA_PAUSE_MS);
          await budget.pause(ca.dir.directoryUrl, until, trouble.reason);
          logger.warn({ domainId, hostname, ca: ca.dir.name, pausedUntil: new Date(until).toISOString(), reason: trouble.reason }, 'CA paused; trying the next one');
        }
        lastFailure = error;
      }
    }
    if (!sent) await nothingSent();
    if (waiting) {
      const problem = budgetProblem(waiting.ca.dir.budget, waiting.ahead, waiting.retryAt);
      logger.info({ domainId, hostname, ca: waiting.ca.dir.name, ahead: waiting.ahead, retryAt: new Date(waiting.retryAt).toISOString() }, 'ACME order waits for the CA budget');
      throw refused(problem.code, problem.message, undefined, waiting.retryAt);
    }
    if (lastFailure) throw lastFailure;
    // Every CA is paused (by this worker or another): come back when the first pause ends.
    const delayMs = Math.max(1_000, (pausedUntil ?? Date.now() + CA_PAUSE_MS) - Date.now());
    throw ApplicationFailure.create({
      type: 'CaUnavailable', nextRetryDelay: `${Math.ceil(delayMs / 1000)}s`,
      message: `Every certificate authority we use is paused (rate limit or outage); the next order is tried in ${Math.ceil(delayMs / 1000)} s`,
    });
  }

  return { place };
}
