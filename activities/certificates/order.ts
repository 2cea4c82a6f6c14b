// Phase 1, the order: place one for the domain's hostname with its HTTP-01 key authorizations
// stored (what edge/ answers the CA with), or resume the order already in flight. Also what
// every phase needs about an order: reading it from the CA, closing it, why it became invalid.
import { ApplicationFailure } from '@temporalio/common';
import type { Authorization, Client, Order } from 'acme-client';
import { CaProblemError, classifyProblem, isProblem, type AcmeProblem } from '../../acme/errors.ts';
import type { OrderRow } from '../../db/repositories/acme-orders.ts';
import { CERTIFICATE_REFUSED } from '../../model/certificate-issuance.ts';
import { brakeProblem } from '../../model/certificate-lifetime.ts';
import type { CaHandle } from './cas.ts';
import type { IssuanceContext } from './context.ts';
import { refused } from './failures.ts';
import { isWildcard } from '../../model/wildcards.ts';

/** The challenge a hostname's orders answer: DNS-01 for a wildcard (HTTP-01 cannot validate one). */
const challengeType = (hostname: string): 'http-01' | 'dns-01' => (isWildcard(hostname) ? 'dns-01' : 'http-01');
import { createPlacement } from './placement.ts';

/** An open order this close to its expiry is not resumed: a new one is placed. */
const ORDER_EXPIRY_MARGIN_MS = 10 * 60_000;
/** The per-domain brake's window. */
const HOUR_MS = 60 * 60_000;

type PendingChallenges = {
  all: Array<{ authz: Authorization; challenge: Authorization['challenges'][number] | undefined }>;
  rows: Array<{ token: string; keyAuthorization: string; url: string }>;
};

export function createOrderPhase(ctx: IssuanceContext) {
  const { orders, logger, cas } = ctx;
  const placement = createPlacement(ctx);

  /** The CA an order was placed with; an order of a CA no longer configured is abandoned. */
  async function caOf(order: OrderRow): Promise<CaHandle> {
    const ca = cas.byUrl(order.directory_url);
    if (ca) return ca;
    await closeOrder(order, 'abandoned', null);
    throw refused('order_gone', `The certificate authority of this order (${order.directory_url}) is no longer configured; a new order will be placed`);
  }

  async function loadOrder(domainId: string, orderUrl: string): Promise<OrderRow> {
    const order = await orders.ofDomain(domainId, orderUrl);
    if (!order) throw refused('order_not_found', `No ACME order ${orderUrl} for domain ${domainId}; a new order is needed`);
    return order;
  }

  /** Ends an order that can no longer succeed: its tokens go, its key is dropped. */
  const closeOrder = (order: OrderRow, status: 'invalid' | 'abandoned', error: AcmeProblem | null) => orders.close(order, status, error);

  /** The order as the CA sees it now; a CA that no longer knows it abandons our row. */
  async function fetchOrder(client: Client, order: OrderRow): Promise<Order> {
    try {
      return await client.getOrder({ url: order.order_url } as Order);
    } catch (error) {
      if (error instanceof CaProblemError && error.status === 404) {
        await closeOrder(order, 'abandoned', error.problem);
        throw refused('order_gone', 'The certificate authority no longer knows this order; a new one will be placed');
      }
      throw await (await caOf(order)).failed('fetch order', error);
    }
  }

  /**
   * The order's authorizations and the key authorization of every pending one's challenge:
   * HTTP-01, or DNS-01 for a wildcard (the only type a CA offers for one; docs/wildcards.md).
   */
  async function pendingChallenges(ca: CaHandle, client: Client, caOrder: Order, hostname: string): Promise<PendingChallenges> {
    const type = challengeType(hostname);
    const authorizations = await ca.ca('fetch authorizations', () => client.getAuthorizations(caOrder));
    const all = authorizations.map((authz) => ({ authz, challenge: authz.challenges.find((c) => c.type === type) }));
    const rows: PendingChallenges['rows'] = [];
    for (const { authz, challenge } of all) {
      if (authz.status !== 'pending') continue;
      if (!challenge) throw refused(type === 'dns-01' ? 'no_dns01_challenge' : 'no_http01_challenge', `The certificate authority offered no ${type.toUpperCase()} challenge for ${authz.identifier.value}`);
      rows.push({ token: challenge.token, keyAuthorization: await client.getChallengeKeyAuthorization(challenge), url: challenge.url });
    }
    return { all, rows };
  }

  /**
   * Puts the answers where the CA looks: HTTP-01 tokens for edge/'s challenge listener, DNS-01
   * values (already hashed by acme-client) into the challenge zone; returns the HTTP-01 tokens to
   * store (none for DNS-01).
   */
  async function answerAt(domainId: string, hostname: string, rows: PendingChallenges['rows']): Promise<PendingChallenges['rows']> {
    if (challengeType(hostname) === 'http-01') return rows;
    await ctx.dns01.publish(domainId, rows.map((r) => r.keyAuthorization));
    return [];
  }

  /** Stores (publishes) the key authorization of every pending authorization's challenge. */
  async function storeChallenges(ca: CaHandle, client: Client, domainId: string, caOrder: Order, hostname: string): Promise<PendingChallenges['all']> {
    const { all, rows } = await pendingChallenges(ca, client, caOrder, hostname);
    await orders.insertTokens(domainId, await answerAt(domainId, hostname, rows));
    return all;
  }

  /** The problem that made an order invalid: the order's own, else the first failed challenge's. */
  async function invalidReason(client: Client, caOrder: Order): Promise<AcmeProblem | null> {
    // The CA puts the validation error on the failed challenge; the order's own is the fallback.
    try {
      const authorizations = await client.getAuthorizations(caOrder);
      for (const authz of authorizations) {
        for (const challenge of authz.challenges) if (isProblem(challenge.error)) return challenge.error;
      }
    } catch { /* fall back to the order's error */ }
    return isProblem(caOrder.error) ? caOrder.error : null;
  }

  /** Closes an order the CA marked invalid and throws the refusal its problem means. */
  async function failInvalid(client: Client, order: OrderRow, caOrder: Order): Promise<never> {
    const problem = await invalidReason(client, caOrder);
    await closeOrder(order, 'invalid', problem);
    const c = classifyProblem(problem, undefined, undefined);
    const permanent = c.kind === 'permanent' ? c : { code: 'challenge_failed', message: `The certificate authority marked the order for ${order.hostname} invalid`, acmeType: problem?.type };
    logger.info({ domainId: order.domain_id, hostname: order.hostname, code: permanent.code }, 'ACME order invalid');
    throw refused(permanent.code, permanent.message, permanent.acmeType);
  }

  /**
   * Places a new order and records it with its URLs and tokens in one statement; null when the
   * domain already has an open order (the row is not written; the CA's new order just expires).
   */
  async function placeOrder(domainId: string, hostname: string): Promise<OrderRow | null> {
    // The per-domain brake, whatever asked for this order (a loop, a retry, a burst of verifies):
    // held, it is a refusal that says when the window frees (model/certificate-lifetime.ts).
    const { ordersPerHour } = ctx.limits;
    const brake = await ctx.lifecycle.admitOrder(domainId, challengeType(hostname), ordersPerHour, HOUR_MS);
    if (!brake.admitted) {
      const problem = brakeProblem(ordersPerHour, brake.retryAt);
      await ctx.lifecycle.recordTrouble(domainId, 'order_brake', problem.message);
      logger.warn({ domainId, hostname, retryAt: new Date(brake.retryAt).toISOString() }, 'ACME order held by the per-domain brake');
      throw refused(problem.code, problem.message, undefined, brake.retryAt);
    }
    // The CA (failover, CAA, pauses) and the shared budget (placement.ts). No CA saw an order
    // (unreachable, or the budget made it wait): it does not count against the brake.
    const { ca, client, caOrder } = await placement.place(domainId, hostname, () => ctx.lifecycle.releaseOrder(brake.placementId));
    // Reading the authorizations tells the CA nothing; with them the row holds every URL the
    // next steps POST to, and the tokens go in right after it.
    const challenges = caOrder.status === 'pending' ? await pendingChallenges(ca, client, caOrder, hostname) : null;
    const tokens = challenges ? await answerAt(domainId, hostname, challenges.rows) : [];
    const inserted = await orders.insertWithTokens({
      orderUrl: caOrder.url, domainId, directoryUrl: ca.dir.directoryUrl, hostname, status: caOrder.status, expiresAt: caOrder.expires ?? null, finalizeUrl: caOrder.finalize ?? null,
      challengeUrls: challenges ? challenges.rows.map((r) => r.url) : null, tokens,
    });
    if (inserted) logger.info({ domainId, hostname, orderUrl: caOrder.url, ca: ca.dir.name }, 'ACME order placed');
    return inserted;
  }

  /**
   * Places an order for the domain's hostname and stores its HTTP-01 key authorizations, or
   * returns the order already in flight (a re-run after a crash, or a retry of the workflow).
   */
  async function beginOrder(domainId: string, justMoved?: { hostname: string }): Promise<OrderRow> {
    // Right after this worker moved the domain to pending_certificate, the usual case is no open
    // order: place one at once (a conflicting open order sends us down the full path below).
    if (justMoved) {
      const placed = await placeOrder(domainId, justMoved.hostname);
      if (placed) return placed;
    }
    const found = await orders.domainWithOpenOrder(domainId);
    if (!found || found.status === 'deleted') throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
    const { hostname } = found;
    const open = found.open_order_url ? await orders.byUrl(found.open_order_url) : null;
    if (open) {
      // An order with a CA no longer configured, or one paused (its outage or rate limit), is
      // given up: the new order goes to a CA that answers.
      const ca = cas.byUrl(open.directory_url);
      const stale = !ca || open.hostname !== hostname
        || (open.expires_at !== null && Date.parse(open.expires_at) < Date.now() + ORDER_EXPIRY_MARGIN_MS)
        || (cas.all.length > 1 && (await ctx.budget.paused()).has(open.directory_url));
      if (stale || !ca) {
        await closeOrder(open, 'abandoned', null);
      } else {
        const client = await ca.client();
        let caOrder: Order | null = null;
        try {
          caOrder = await fetchOrder(client, open);
        } catch (error) {
          if (!(error instanceof ApplicationFailure && error.type === CERTIFICATE_REFUSED)) throw error;
        }
        if (caOrder && caOrder.status !== 'invalid') {
          if (caOrder.status === 'pending') await storeChallenges(ca, client, domainId, caOrder, open.hostname);
          await orders.setStatus(open.order_url, caOrder.status);
          logger.info({ domainId, hostname, orderUrl: open.order_url, status: caOrder.status }, 'resuming ACME order');
          return { ...open, status: caOrder.status } as OrderRow;
        }
        if (caOrder) await closeOrder(open, 'invalid', await invalidReason(client, caOrder));
      }
    }

    const placed = await placeOrder(domainId, hostname);
    if (placed) return placed;
    // Another attempt won the race for this domain's one open order: continue with that one.
    const other = await orders.openOfDomain(domainId);
    if (other) return other;
    throw new Error(`could not record an ACME order for ${hostname}`);
  }

  return { loadOrder, caOf, fetchOrder, storeChallenges, failInvalid, beginOrder };
}

export type OrderPhase = ReturnType<typeof createOrderPhase>;
