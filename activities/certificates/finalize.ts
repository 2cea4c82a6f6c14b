// Phase 3, finalize and store: finalize a ready order with its certificate key (generated and
// sealed before the CSR leaves), wait for issuance, download the chain, check it and store it
// once — with what the certificate means for the domain (FinalizeInput.then).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Order } from 'acme-client';
import { CaProblemError, shortType } from '../../acme/errors.ts';
import { certificateKeyContext, newPrivateKeyPem, orderKeyContext } from '../../acme/keys.ts';
import { newId } from '../../db/ids.ts';
import type { OrderRow } from '../../db/repositories/acme-orders.ts';
import { createCsrPem } from '../../security/csr.ts';
import type { DomainState } from '../../contracts/domain-workflow.ts';
import type { IssuanceContext } from './context.ts';
import { caStillBusy, refused } from './failures.ts';
import type { OrderPhase } from './order.ts';
import { FIRST_POLL_PAUSE_MS, type ValidationPhase } from './validate.ts';
import { requestedTransition, type FinalizeInput, type IssuedCertificate } from './types.ts';

function splitPemChain(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

export function createFinalizePhase(ctx: IssuanceContext, orderPhase: OrderPhase, validation: ValidationPhase) {
  const { orders, certificates, domains, secretBox, logger } = ctx;
  const { loadOrder, caOf, fetchOrder, failInvalid } = orderPhase;
  const { validate, waitWhile } = validation;

  async function storedCertificate(certificateId: string): Promise<IssuedCertificate> {
    const cert = await certificates.byId(certificateId);
    return { certificateId: cert.id, serial: cert.serial, notBefore: cert.not_before, notAfter: cert.not_after, answeredAt: new Date().toISOString() };
  }

  /**
   * What a stored certificate means for its domain: the transition the workflow named
   * (`certificate_issued`) or the problem cleared. Where an edge must serve it first
   * (HOSTGATE_EDGE_DEPLOYMENT=required) the transition is `certificate_deployed`, made once an
   * edge reports (workflows/domain/phases/await-deployment.ts): the domain stays in pending_certificate.
   */
  async function afterIssuance(domainId: string, then: NonNullable<FinalizeInput['then']>): Promise<DomainState | undefined> {
    const requested = requestedTransition(then);
    if (!requested || !ctx.activateOnIssue) {
      await domains.setProblem(domainId, null);
      return undefined;
    }
    const moved = await domains.transition(domainId, requested.transition, 'certificate issued', { expectedSeq: requested.expectedSeq, problem: null });
    if (!moved.domain) throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
    return { status: moved.domain.status, seq: moved.domain.status_seq };
  }

  /** The order's certificate key: generated and sealed once, before any CSR leaves. */
  async function orderKey(order: OrderRow): Promise<{ keyPem: string; order: OrderRow }> {
    if (!order.private_key_enc || !order.key_id) {
      const stored = await orders.storeKeyIfAbsent(order.order_url, secretBox.seal(await newPrivateKeyPem(), orderKeyContext(order.order_url)));
      if (!stored.private_key_enc || !stored.key_id) throw new Error(`order ${order.order_url} lost its key (status ${stored.status})`);
      order = stored;
    }
    return { keyPem: secretBox.open({ keyId: order.key_id!, ciphertext: order.private_key_enc! }, orderKeyContext(order.order_url)).toString('utf8'), order };
  }

  /**
   * Stores the certificate, completes the order and removes the tokens, all in one transaction,
   * together with what `then` asks for (see FinalizeInput).
   */
  async function store(order: OrderRow, chainPem: string, keyPem: string, then: FinalizeInput['then']): Promise<IssuedCertificate> {
    const chain = splitPemChain(chainPem);
    if (chain.length === 0) throw ApplicationFailure.create({ type: 'CaUnavailable', message: `The certificate download for ${order.hostname} held no certificate` });
    const leaf = new X509Certificate(chain[0]!);
    if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) throw refused('certificate_key_mismatch', `The certificate issued for ${order.hostname} does not match the key we requested it for`);
    if (!leaf.checkHost(order.hostname)) throw refused('certificate_name_mismatch', `The certificate issued does not name ${order.hostname}`);
    const serial = leaf.serialNumber.toLowerCase();
    const notBefore = new Date(leaf.validFrom).toISOString();
    const notAfter = new Date(leaf.validTo).toISOString();
    const id = newId('certificate');
    const certificateId = await certificates.storeForOrder(order.order_url, {
      id, domainId: order.domain_id, serial, issuer: leaf.issuer.split('\n').join(', '), notBefore, notAfter, caName: ctx.cas.byUrl(order.directory_url)?.dir.name ?? null,
      chainPem: chain.join('\n') + '\n', sealedKey: secretBox.seal(keyPem, certificateKeyContext(id)),
    });
    // Its history row (issued or renewed, with hostname.certificate_renewed), once however often
    // this runs; a lifetime under the floor is flagged there too.
    const recorded = await ctx.lifecycle.recordStored(certificateId, ctx.limits.minLifetimeMs);
    if (recorded?.belowFloor) logger.warn({ domainId: order.domain_id, hostname: order.hostname, certificateId, notBefore, notAfter }, 'certificate lifetime below HOSTGATE_CERT_MIN_LIFETIME_SECONDS');
    // After the certificate is stored, not with it: a crash in between leaves a completed order,
    // and the re-run (finalize finds it completed) records this then.
    const state = then ? await afterIssuance(order.domain_id, then) : undefined;
    logger.info({ domainId: order.domain_id, hostname: order.hostname, certificateId, serial, notAfter }, 'certificate stored');
    // Same serial stored by an earlier run: that row's dates are the same certificate's.
    return { certificateId, serial, notBefore, notAfter, answeredAt: new Date().toISOString(), ...(state ? { state } : {}) };
  }

  /**
   * Finalizes a ready order with the stored key (created and sealed first), waits for issuance,
   * downloads the chain and stores it once; a re-run returns the stored certificate.
   */
  async function finalize({ domainId, orderUrl, then }: FinalizeInput, validatedReady = false): Promise<IssuedCertificate> {
    // The usual case in one statement: the open order, with its certificate key stored if it had
    // none yet (generated here first; a re-run that finds one keeps that one), and `ready` when
    // the caller just saw the CA say so.
    const candidate = secretBox.seal(await newPrivateKeyPem(), orderKeyContext(orderUrl));
    const keyed = await orders.keyOpenOrder(domainId, orderUrl, candidate, validatedReady);
    const loaded = keyed ?? await loadOrder(domainId, orderUrl);
    if (loaded.status === 'completed' && loaded.certificate_id) {
      // Stored by an earlier run (its transaction also did `then`; doing it again is a no-op).
      const stored = await storedCertificate(loaded.certificate_id);
      const state = then ? await afterIssuance(domainId, then) : undefined;
      return { ...stored, ...(state ? { state } : {}) };
    }
    if (loaded.status === 'invalid' || loaded.status === 'abandoned') throw refused('order_closed', `The ACME order for ${loaded.hostname} is ${loaded.status}; a new order is needed`);
    const { keyPem, order } = await orderKey(loaded);
    const ca = await caOf(order);
    const client = await ca.client();

    // Validation left the order `ready` and its finalize URL is known: finalize without asking the
    // CA for the order first. If the CA disagrees (orderNotReady), it is asked below.
    let caOrder: Order = order.status === 'ready' && order.finalize_url
      ? { url: order.order_url, finalize: order.finalize_url, status: 'ready' } as Order
      : await fetchOrder(client, order);
    if (caOrder.status === 'pending') caOrder = await validate(client, order);
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    if (caOrder.status === 'ready') {
      const csr = createCsrPem(order.hostname, keyPem);
      try {
        caOrder = await client.finalizeOrder(caOrder, csr);
      } catch (error) {
        // A finalize that reached the CA before we crashed (or raced) leaves it processing/valid.
        if (!(error instanceof CaProblemError && shortType(error.problem?.type) === 'orderNotReady')) throw await ca.failed('finalize order', error);
        caOrder = await fetchOrder(client, order);
        if (caOrder.status === 'pending') caOrder = await validate(client, order);
        if (caOrder.status === 'ready') throw caStillBusy(`The CA says the order for ${order.hostname} is ready but not ready for finalization`, '5s');
      }
    }
    if (caOrder.status === 'processing') caOrder = await waitWhile(client, order, ['processing'], 'Issuance', FIRST_POLL_PAUSE_MS);
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    if (caOrder.status !== 'valid') throw caStillBusy(`The ACME order for ${order.hostname} is ${caOrder.status}`);
    const finalOrder = caOrder;
    const chainPem = await ca.ca('download certificate', () => client.getCertificate(finalOrder));
    return store(order, chainPem, keyPem, then);
  }

  return { finalize };
}
