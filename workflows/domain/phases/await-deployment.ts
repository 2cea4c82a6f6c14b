// pending_certificate with a certificate stored: the domain is `active` only once an edge serves
// it ("active means served"). The edge agent's report records each new deployment in Postgres
// and, in the same transaction, an outbox row wakes this wait with a `deployed` signal
// (edge/agent/deployment-report.ts); the check also runs on a backoff, so a lost wake-up costs
// seconds, not the activation. A deployment that is overdue is
// shown in `verification.problem` (`edge_not_deployed`, set by the activity), never waited for
// in silence.
import { CancellationScope } from '@temporalio/workflow';
import { store } from '../activity-proxies.ts';
import { backoff } from '../../../model/domain-backoff.ts';
import type { DomainContext } from '../context.ts';

const CHECK_FIRST_MS = 1_000;
const CHECK_CAP_MS = 30_000;

export async function awaitDeployment(ctx: DomainContext): Promise<void> {
  const { pending, domainId } = ctx;
  for (let checks = 1; ; checks++) {
    pending.verify = false;
    pending.deployed = false;
    const result = await CancellationScope.nonCancellable(() => store.activateIfDeployed({ domainId, expectedSeq: ctx.state.seq }));
    ctx.adopt(result.state);
    if (result.state.status !== 'pending_certificate') return;
    const delay = backoff(checks, CHECK_FIRST_MS, CHECK_CAP_MS);
    ctx.details(`certificate issued; waiting for an edge to serve it${result.overdue ? ' (overdue: is the edge agent running?)' : ''}; next check in ${Math.round(delay / 1000)} s or when an edge reports`);
    await ctx.waitUntil(() => pending.verify || pending.deployed === true, delay);
  }
}
