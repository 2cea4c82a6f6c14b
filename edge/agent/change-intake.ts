// How changes reach the agent: Postgres notifies a domain (LISTEN/NOTIFY, edge-listener.ts) and
// domains notified together are applied in one targeted pass after a short pause; a poll of what
// changed since its last mark catches what a lost notification missed. From the notification on,
// the change counts as in flight (changes-first.ts): a full pass's next slice waits for it.
import type { EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { ChangesFirst } from './changes-first.ts';
import type { HealthTracker } from './health.ts';

// Notified domains are applied together after this pause (a burst of commits → one pass).
const NOTIFY_BATCH_MS = 10;
// Polling looks back this far before its last mark: commits land with an earlier hg_now().
const POLL_OVERLAP_MS = 5_000;

export function createChangeIntake(deps: {
  repo: Pick<EdgeRepository, 'now' | 'changedSince'>; changesFirst: ChangesFirst; health: HealthTracker; logger: Logger;
  /** The targeted pass. */
  applyDomains: (domainIds: string[]) => Promise<number>;
}) {
  const { repo, changesFirst, health, logger, applyDomains } = deps;
  const pending = new Set<string>();
  let flushTimer: NodeJS.Timeout | null = null;
  let notifiedDone: (() => void) | null = null;
  let pollMark: string | null = null;

  return {
    /** A notified domain: applied with the others notified within NOTIFY_BATCH_MS. */
    notified(domainId: string): void {
      pending.add(domainId);
      if (flushTimer) return;
      const done = changesFirst.begin();
      notifiedDone = done;
      flushTimer = setTimeout(() => {
        flushTimer = null;
        notifiedDone = null;
        const ids = [...pending];
        pending.clear();
        applyDomains(ids).catch((error) => logger.warn({ err: error, domains: ids.length }, 'edge: applying notified changes failed; polling retries')).finally(done);
      }, NOTIFY_BATCH_MS);
    },
    /** Applies the domains changed since the last poll (the first call only sets the mark). */
    async poll(): Promise<void> {
      const mark = await repo.now();
      if (pollMark === null) { pollMark = mark; return; }
      const since = new Date(new Date(pollMark).getTime() - POLL_OVERLAP_MS).toISOString();
      const readAt = Date.now();
      const ids = await repo.changedSince(since);
      pollMark = mark;
      if (ids.length > 0) await applyDomains(ids);
      health.noteSynced(readAt, false);
    },
    /** Drops a batch not yet applied (stopping). */
    stop(): void {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      notifiedDone?.();
      notifiedDone = null;
    },
  };
}
