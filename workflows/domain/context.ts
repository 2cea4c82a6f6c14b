// The one object every phase of the domain workflow works on: where the domain stands, what the
// run carries over to the next one, its counters and the signals not yet acted on, plus the few
// moves every phase makes (record a transition, wait, show what it waits for).
import {
  CancellationScope, condition, isCancellation, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { domainTransitions, type DomainTransitionName } from '../../model/domain-status.ts';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../../contracts/search-attributes.ts';
import { store } from './activity-proxies.ts';
import type { DomainState, DomainWorkflowCarry, DomainWorkflowInput } from '../../contracts/domain-workflow.ts';
import { certificateSignal, deleteSignal, deployedSignal, resumeSignal, stateQuery, suspendSignal, verifySignal, type DomainWorkflowState } from './signals.ts';

/** Histories stay short: a new run every 40 loop turns (or when the server suggests it). */
export const MAX_TURNS_PER_RUN = 40;

export class DomainContext {
  readonly domainId: string;
  readonly hostname: string;
  readonly input: DomainWorkflowInput;
  /** Where the domain stands in Postgres, as this workflow last saw it (set by `attach`). */
  state!: DomainState;
  /** What the next run needs to pick up mid-phase (continue-as-new). */
  readonly carry: DomainWorkflowCarry;
  /** Signals received but not yet acted on (part of the carry). */
  readonly pending: DomainWorkflowCarry['pending'];
  /** What the `state` query answers. */
  readonly query: DomainWorkflowState;
  /**
   * Loop turns of this run: a turn of the main loop, every DNS check while waiting for DNS and
   * every wake-up of an active domain. A worker whose cache holds fewer workflows than are open
   * replays a workflow's whole run on every task, so the run's length is the price of each check
   * (bench:lifecycle, 5,000 waiting).
   */
  turns = 0;
  /** Workflow time of the last DNS check that found DNS right (no second check right after it). */
  dnsVerifiedAt: number | null = null;
  /** Expiry notices asked for in this run, per certificate id (Postgres de-duplicates too). */
  readonly expiryNoticed = new Map<string, number>();
  /** The one-attempt issuance did not finish: the next issuance goes step by step. */
  issueStepByStep = false;
  /** The phase a delete or suspend signal cancels. */
  private phaseScope: CancellationScope | null = null;
  /** Search attribute changes not yet written (see `index`). */
  private readonly unindexed = new Map<string, SearchAttributeUpdatePair>();

  /** Sets the signal and query handlers: call before the workflow's first await. */
  constructor(input: DomainWorkflowInput) {
    this.input = input;
    this.domainId = input.domainId;
    this.hostname = input.hostname;
    this.carry = input.carry ?? {
      dnsWaitStartedAt: null, dnsChecks: 0, certFailures: 0, certificate: null, pending: { verify: false, delete: false, suspend: null, resume: false },
    };
    this.pending = this.carry.pending;
    this.query = { phase: 'starting', verifyRequests: 0, deleteRequested: this.pending.delete };
    const pending = this.pending;
    setHandler(verifySignal, () => { pending.verify = true; this.query.verifyRequests++; });
    setHandler(deployedSignal, () => { pending.deployed = true; });
    setHandler(deleteSignal, () => { pending.delete = true; this.query.deleteRequested = true; this.phaseScope?.cancel(); });
    setHandler(suspendSignal, ({ reason }) => { pending.suspend = reason; this.phaseScope?.cancel(); });
    setHandler(resumeSignal, () => { pending.resume = true; });
    // The customer's own certificate changed: the phase that orders, waits for or renews a
    // certificate starts over with the current one (workflows.ts). A DNS wait is left alone: the
    // check that ends it takes the current certificate in (activities/verify-and-issue.ts).
    setHandler(certificateSignal, () => {
      pending.certificate = true;
      if (this.state?.status === 'pending_certificate' || this.state?.status === 'active') this.phaseScope?.cancel();
    });
    setHandler(stateQuery, () => this.query);
  }

  /** Indexes the domain and learns where it stands (from the carry, else from Postgres). */
  async attach(): Promise<void> {
    this.index([
      { key: HostgateHostname, value: this.hostname },
      { key: HostgateOrganizationId, value: this.input.organizationId },
    ]);
    this.adopt(this.input.carry?.state ?? await CancellationScope.nonCancellable(() => store.attachWorkflow({ domainId: this.domainId })));
  }

  /** Takes `state` as where the domain stands now. */
  adopt(state: DomainState): void {
    this.state = state;
    this.index([{ key: HostgateDomainStatus, value: state.status }]);
  }

  /**
   * Makes the named transition (model/domain-status.ts) if the row still is where we think;
   * either way `state` ends up true to Postgres. True when the domain is where it leads.
   */
  async transition(name: DomainTransitionName, reason: string): Promise<boolean> {
    const result = await CancellationScope.nonCancellable(() => store.transition({ domainId: this.domainId, transition: name, reason, expectedSeq: this.state.seq }));
    this.adopt({ status: result.status, seq: result.seq });
    return result.status === domainTransitions[name].to;
  }

  /** Runs a phase that a delete or suspend signal may interrupt. */
  async interruptible(phase: (ctx: DomainContext) => Promise<void>): Promise<void> {
    this.phaseScope = new CancellationScope();
    try {
      await this.phaseScope.run(() => phase(this));
    } catch (error) {
      if (!isCancellation(error)) throw error;
    } finally {
      this.phaseScope = null;
    }
  }

  /** `condition`, with the search attributes brought up to date first. */
  waitUntil(fn: () => boolean, timeout?: number): Promise<boolean | void> {
    this.flushIndex();
    return timeout === undefined ? condition(fn) : condition(fn, timeout);
  }

  /** What the workflow is doing, for the Web UI and the `state` query. */
  details(text: string): void {
    this.query.phase = text;
    setCurrentDetails(`**${this.hostname}** (${this.domainId}): ${text}`);
  }

  /**
   * Search attributes are on unless the caller says the server cannot index them (the
   * time-skipping test server knows no custom attributes). Changes are collected and written,
   * only what differs from the indexed value, when the workflow is about to wait or end: a verify
   * burst's pending_dns → pending_certificate → active inside one workflow task is one visibility
   * update, not three.
   */
  index(attributes: SearchAttributeUpdatePair[]): void {
    if (this.input.searchAttributes === false) return;
    for (const pair of attributes) this.unindexed.set(pair.key.name, pair);
  }

  flushIndex(): void {
    const indexed = workflowInfo().typedSearchAttributes;
    const changed = [...this.unindexed.values()].filter((pair) => indexed.get(pair.key as never) !== pair.value);
    this.unindexed.clear();
    if (changed.length > 0) upsertSearchAttributes(changed);
  }

  /** Counts a turn; true when this run is long enough to continue as new. */
  turnEndsRun(): boolean {
    return ++this.turns >= MAX_TURNS_PER_RUN || workflowInfo().continueAsNewSuggested;
  }
}
