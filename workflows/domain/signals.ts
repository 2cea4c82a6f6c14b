// Messages of the domain workflow, shared by the workflow, the API and the CLI.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** "Check DNS now": cuts the current backoff sleep short. */
export const verifySignal = defineSignal('verify');
/** An edge now serves the domain's newest certificate: check whether it can be `active`. */
export const deployedSignal = defineSignal('deployed');
/** The domain row is already `deleting`; the workflow cancels its phase, cleans up, ends `deleted`. */
export const deleteSignal = defineSignal('delete');
export const suspendSignal = defineSignal<[{ reason: string }]>('suspend');
export const resumeSignal = defineSignal('resume');
/** The customer's own certificate was put in place or removed: look at the current certificate. */
export const certificateSignal = defineSignal('certificate');

export interface DomainWorkflowState {
  phase: string;
  verifyRequests: number;
  deleteRequested: boolean;
}
export const stateQuery = defineQuery<DomainWorkflowState>('state');

export type { DomainSignalName } from '../../contracts/domain-workflow.ts';
