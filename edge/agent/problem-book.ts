// The rows the agent could not serve, by domain: what the heartbeat reports (edge_nodes.problems)
// and the log says once per read. A full read replaces the book; a targeted read replaces the
// entries of its domains.
import type { Logger } from '../../logging/logger.ts';
import type { Desired, DomainProblem } from './snapshot.ts';

export class ProblemBook {
  readonly #byDomain = new Map<string, DomainProblem[]>();
  readonly #logger: Logger;
  constructor(logger: Logger) { this.#logger = logger; }

  note(desired: Pick<Desired, 'problems' | 'domainIds'>, full: boolean): void {
    if (full) this.#byDomain.clear();
    else for (const id of desired.domainIds) this.#byDomain.delete(id);
    for (const p of desired.problems) {
      const list = this.#byDomain.get(p.domain_id) ?? [];
      list.push(p);
      this.#byDomain.set(p.domain_id, list);
      this.#logger.error({ domainId: p.domain_id, host: p.hostname, code: p.code, problem: p.message }, 'edge: domain row skipped');
    }
  }

  all(): DomainProblem[] {
    return [...this.#byDomain.values()].flat();
  }
}
