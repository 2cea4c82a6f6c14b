// DNS-01 through a delegated CNAME (zero-downtime moves, docs/zero-downtime-moves.md): the
// customer's `_acme-challenge.<hostname>` is a CNAME to `<label>.<challenge zone>`, a name our
// PowerDNS answers from Postgres. One order from start to stored certificate: publish the value
// acme-client hands us (already hashed for dns-01), check that OUR server answers it (acme-client's
// own pre-check would follow the CNAME with the system resolver: skipped, machine-facts.md), tell
// the CA, wait, finalize, store. The TXT is withdrawn whatever happens — only the value this attempt
// published: an attempt that overran its time (the workflow gave up on it and retried) may still
// be finishing while its retry's value sits at the same name, and deleting every TXT there would
// make the CA find nothing for the retry. A cancelled attempt (`signal`: the local activity timed
// out or was cancelled) stops at its next wait instead of running on beside its retry.
//
// Not resumable step by step like the HTTP-01 path (activities/certificates/order.ts): an attempt
// that stops half-way is abandoned and the next check places a new order, which the abuse limits
// count (activities/moves.ts).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Authorization, Client, Order } from 'acme-client';
import { CaProblemError, classifyAcmeError, classifyProblem, isProblem, shortType } from '../../acme/errors.ts';
import { certificateKeyContext, newPrivateKeyPem } from '../../acme/keys.ts';
import { newId } from '../../db/ids.ts';
import type { CertificatesRepository } from '../../db/repositories/certificates.ts';
import type { ChallengeZoneRepository } from '../../db/repositories/challenge-zone.ts';
import type { Logger } from '../../logging/logger.ts';
import { delegationTarget } from '../../model/domain-moves.ts';
import { createCsrPem } from '../../security/csr.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Problem } from '../../model/problem.ts';

export type Dns01Outcome =
  | { ok: true; certificateId: string; notBefore: string; notAfter: string }
  /** `refused`: the CA said no (counts as a failed validation); else it could not finish. */
  | ({ ok: false; refused: boolean } & Problem);

export interface Dns01Deps {
  client(): Promise<Client>;
  zone: ChallengeZoneRepository;
  challengeZone: string;
  /** Asks OUR authoritative server only (HOSTGATE_CHALLENGE_DNS_SERVER). */
  ourServer: Resolver;
  certificates: CertificatesRepository;
  secretBox: SecretBox;
  logger: Logger;
  /** How long one attempt may wait on the CA (validation + issuance) before it is abandoned. */
  waitBudgetMs: number;
  /** How long our own server may take to answer a value just written (it answers at once). */
  publishBudgetMs?: number;
  /** The CA forgot our account (a test CA restarted): register again on the next attempt. */
  accountForgotten?: () => Promise<void>;
  /** The configured CA's name, kept on the certificate row (issue 22). */
  caName?: string;
}

/** The attempt was given up by its caller (the activity's cancellation). */
const ABANDONED = { ok: false, refused: false, code: 'attempt_abandoned', message: 'The certificate attempt was given up (it overran its time); the next check tries again' } as const;

class Stop extends Error {
  readonly outcome: Extract<Dns01Outcome, { ok: false }>;
  constructor(outcome: Extract<Dns01Outcome, { ok: false }>) { super(outcome.message); this.outcome = outcome; }
}

function splitPemChain(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

export function createDns01Issuer(deps: Dns01Deps) {
  const { zone, challengeZone, ourServer, certificates, secretBox, logger } = deps;

  /** Throws Stop(abandoned) once the caller gave the attempt up. */
  function checkpoint(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw new Stop(ABANDONED);
  }

  /** A pause that ends early (Stop, abandoned) when the attempt is given up. */
  async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    checkpoint(signal);
    try {
      await sleep(ms, undefined, signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) throw new Stop(ABANDONED);
      throw error;
    }
  }

  /** Whether our server answers `value` at `name` (polled briefly: the write is visible at once). */
  async function answered(name: string, value: string, signal: AbortSignal | undefined): Promise<boolean> {
    const deadline = Date.now() + (deps.publishBudgetMs ?? 5_000);
    for (;;) {
      try {
        const txt = await ourServer.resolveTxt(name);
        if (txt.some((parts) => parts.join('') === value)) return true;
      } catch { /* not yet, or not answering: asked again until the deadline */ }
      if (Date.now() >= deadline) return false;
      await pause(100, signal);
    }
  }

  /** Polls `fetch` until `done`, with pauses growing to 1 s; past the deadline the attempt stops. */
  async function pollUntil<T>(what: string, fetch: () => Promise<T>, done: (v: T) => boolean, deadline: number, signal: AbortSignal | undefined): Promise<T> {
    let wait = 100;
    for (;;) {
      const v = await fetch();
      if (done(v)) return v;
      if (Date.now() >= deadline) throw new Stop({ ok: false, refused: false, code: 'ca_unavailable', message: `The certificate authority did not finish ${what} in time; we will try again` });
      await pause(wait, signal);
      wait = Math.min(wait * 2, 1_000);
    }
  }

  async function authorize(client: Client, order: Order, authz: Authorization, name: string, deadline: number, published: string[], signal: AbortSignal | undefined): Promise<void> {
    if (authz.status === 'valid') return;
    const challenge = authz.challenges.find((c) => c.type === 'dns-01');
    if (!challenge) throw new Stop({ ok: false, refused: true, code: 'no_dns01_challenge', message: `The certificate authority offered no DNS-01 challenge for ${authz.identifier.value}` });
    // For dns-01 acme-client returns the value to publish, already hashed (RFC 8555 §8.4).
    const value = await client.getChallengeKeyAuthorization(challenge);
    checkpoint(signal);
    // Remembered before the write: a publish whose answer is lost still gets withdrawn.
    published.push(value);
    await zone.publish(challengeZone, name, value);
    if (!await answered(name, value, signal)) {
      throw new Stop({ ok: false, refused: false, code: 'challenge_not_published', message: `Our DNS server for ${challengeZone} did not answer the challenge at ${name}; we will try again` });
    }
    checkpoint(signal);
    if (challenge.status === 'pending') await client.completeChallenge(challenge);
    const identifier = authz.identifier.value;
    const final = await pollUntil('validation', async () => (await client.getAuthorizations(order)).find((a) => a.identifier.value === identifier) ?? authz, (a) => a.status !== 'pending', deadline, signal);
    if (final.status === 'valid') return;
    const failed = final.challenges.find((c) => c.type === 'dns-01');
    const problem = isProblem(failed?.error) ? failed!.error : null;
    const c = classifyProblem(problem, undefined, undefined);
    if (c.kind === 'retryable') throw new Stop({ ok: false, refused: false, code: 'ca_unavailable', message: c.message });
    // The CA's "unauthorized"/"incorrectResponse" for DNS-01 means it read a wrong or no TXT.
    const code = c.code === 'challenge_failed' || c.code === 'challenge_dns_failed' ? 'challenge_failed' : c.code;
    throw new Stop({ ok: false, refused: true, code, message: code === 'challenge_failed'
      ? `The certificate authority did not find the expected TXT record at _acme-challenge.${identifier} (through its CNAME to ${name})${problem?.detail ? `: ${problem.detail}` : ''}`
      : c.message });
  }

  return async function issueByDns01({ domainId, hostname, challengeLabel, signal }: { domainId: string; hostname: string; challengeLabel: string; signal?: AbortSignal | undefined }): Promise<Dns01Outcome> {
    const name = delegationTarget(challengeLabel, challengeZone);
    const deadline = Date.now() + deps.waitBudgetMs;
    /** The TXT values this attempt wrote: the only ones it withdraws. */
    const published: string[] = [];
    try {
      checkpoint(signal);
      const client = await deps.client();
      let order = await client.createOrder({ identifiers: [{ type: 'dns', value: hostname }] });
      logger.info({ domainId, hostname, orderUrl: order.url }, 'ACME order placed (dns-01)');
      for (const authz of await client.getAuthorizations(order)) await authorize(client, order, authz, name, deadline, published, signal);
      checkpoint(signal);
      const keyPem = await newPrivateKeyPem();
      order = await client.finalizeOrder(order, createCsrPem(hostname, keyPem));
      order = await pollUntil('issuance', () => client.getOrder(order), (o) => o.status !== 'processing' && o.status !== 'ready', deadline, signal);
      if (order.status !== 'valid') {
        const c = classifyProblem(isProblem(order.error) ? order.error : null, undefined, undefined);
        return { ok: false, refused: c.kind === 'permanent', code: c.kind === 'permanent' ? c.code : 'ca_unavailable', message: c.message };
      }
      const chain = splitPemChain(await client.getCertificate(order));
      if (chain.length === 0) return { ok: false, refused: false, code: 'ca_unavailable', message: `The certificate download for ${hostname} held no certificate` };
      const leaf = new X509Certificate(chain[0]!);
      if (!leaf.checkPrivateKey(createPrivateKey(keyPem)) || !leaf.checkHost(hostname)) {
        return { ok: false, refused: true, code: 'certificate_name_mismatch', message: `The certificate issued does not match ${hostname} or our key` };
      }
      const id = newId('certificate');
      const notBefore = new Date(leaf.validFrom).toISOString();
      const notAfter = new Date(leaf.validTo).toISOString();
      const certificateId = await certificates.storeIssued({
        id, domainId, serial: leaf.serialNumber.toLowerCase(), issuer: leaf.issuer.split('\n').join(', '), notBefore, notAfter,
        chainPem: chain.join('\n') + '\n', sealedKey: secretBox.seal(keyPem, certificateKeyContext(id)), caName: deps.caName ?? null,
      });
      logger.info({ domainId, hostname, certificateId, notAfter }, 'certificate stored (dns-01, before DNS points at us)');
      return { ok: true, certificateId, notBefore, notAfter };
    } catch (error) {
      if (error instanceof Stop) return error.outcome;
      if (error instanceof CaProblemError && shortType(error.problem?.type) === 'accountDoesNotExist') await deps.accountForgotten?.();
      const c = classifyAcmeError(error);
      logger.warn({ domainId, hostname, err: (error as Error)?.message }, 'dns-01 issuance stopped');
      return c.kind === 'permanent'
        ? { ok: false, refused: true, code: c.code, message: c.message }
        : { ok: false, refused: false, code: 'ca_unavailable', message: c.message };
    } finally {
      // Its own values only (see the top of this file). A value left behind by a failed delete is
      // harmless: the CA only accepts the value of a pending challenge.
      for (const value of published) {
        await zone.withdraw(name, value).catch((err: unknown) => logger.warn({ domainId, err: (err as Error)?.message }, 'challenge TXT not withdrawn'));
      }
    }
  };
}
