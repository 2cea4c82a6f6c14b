// Phase 2, validation: tell the CA the HTTP-01 challenges are ready and wait (polling, with a
// heartbeat per poll in a regular activity) until the order leaves `pending`.
import type { Authorization, Client, Order } from 'acme-client';
import { CaProblemError } from '../../acme/errors.ts';
import type { OrderRow } from '../../db/repositories/acme-orders.ts';
import type { IssuanceContext } from './context.ts';
import { caStillBusy, refused } from './failures.ts';
import type { OrderPhase } from './order.ts';

/** Right after telling the CA something, asking at once mostly gets the old status back. */
export const FIRST_POLL_PAUSE_MS = 25;
/** The first pause between polls; each next one is 1.5× longer, up to maxPollIntervalMs. */
const FIRST_POLL_INTERVAL_MS = 50;

export function createValidationPhase(ctx: IssuanceContext, orderPhase: OrderPhase) {
  const { orders, logger, waiting } = ctx;
  const { caOf, fetchOrder, storeChallenges, failInvalid } = orderPhase;

  /**
   * Polls the order until it leaves `pending` (validation) or `processing` (issuance), with a
   * heartbeat per poll. Past the wait budget it fails retryably; a re-run continues the wait.
   */
  async function waitWhile(client: Client, order: OrderRow, states: readonly string[], what: string, firstPauseMs = 0): Promise<Order> {
    const deadline = waiting.deadline();
    let interval = FIRST_POLL_INTERVAL_MS;
    if (firstPauseMs > 0) await waiting.pause(firstPauseMs);
    for (;;) {
      const caOrder = await fetchOrder(client, order);
      waiting.heartbeat({ orderUrl: order.order_url, status: caOrder.status });
      if (!states.includes(caOrder.status)) return caOrder;
      if (Date.now() >= deadline) throw caStillBusy(`${what} of ${order.hostname} is still ${caOrder.status}; stopped waiting`);
      await waiting.pause(interval);
      interval = Math.min(Math.round(interval * 1.5), waiting.maxPollIntervalMs);
    }
  }

  /**
   * Answers the challenges whose URLs were stored with the order (their tokens were stored with
   * it too), without reading the order and its authorizations back from the CA first. False when
   * the CA refuses (e.g. a re-run finds a challenge no longer pending): the caller then takes the
   * path that reads the order's state.
   */
  async function answerStoredChallenges(client: Client, order: OrderRow, urls: readonly string[]): Promise<boolean> {
    for (const url of urls) {
      try {
        await client.completeChallenge({ url } as Authorization['challenges'][number]);
      } catch (error) {
        if (error instanceof CaProblemError) {
          logger.info({ domainId: order.domain_id, url, type: error.problem?.type }, 'stored challenge not answerable; reading the order');
          return false;
        }
        throw await (await caOf(order)).failed('answer challenge', error);
      }
    }
    return true;
  }

  /** Moves an order through validation until it is ready, processing or valid. */
  async function validate(client: Client, order: OrderRow): Promise<Order> {
    let caOrder = await fetchOrder(client, order);
    if (caOrder.status === 'pending') {
      // Tokens first (a re-run after they were lost re-stores them), then tell the CA.
      const ca = await caOf(order);
      const challenges = await storeChallenges(ca, client, order.domain_id, caOrder, order.hostname);
      for (const { authz, challenge } of challenges) {
        if (authz.status === 'pending' && challenge && challenge.status === 'pending') {
          await ca.ca('answer challenge', () => client.completeChallenge(challenge));
        }
      }
      caOrder = await waitWhile(client, order, ['pending'], 'Validation');
    }
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    await orders.setStatus(order.order_url, caOrder.status);
    return caOrder;
  }

  /** Validation of a loaded order; `record` writes the status reached (the step-by-step path). */
  async function validateOrder(order: OrderRow, record: boolean): Promise<string> {
    if (order.status === 'completed') return 'valid';
    if (order.status === 'invalid' || order.status === 'abandoned') throw refused('order_closed', `The ACME order for ${order.hostname} is ${order.status}; a new order is needed`);
    const client = await (await caOf(order)).client();
    if (order.status === 'pending' && order.challenge_urls?.length && await answerStoredChallenges(client, order, order.challenge_urls)) {
      const caOrder = await waitWhile(client, order, ['pending'], 'Validation', FIRST_POLL_PAUSE_MS);
      if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
      if (record) await orders.setStatus(order.order_url, caOrder.status);
      return caOrder.status;
    }
    return (await validate(client, order)).status;
  }

  return { waitWhile, validate, validateOrder };
}

export type ValidationPhase = ReturnType<typeof createValidationPhase>;
