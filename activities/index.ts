import { createDomainActivities, type DomainActivityDeps } from './domain.ts';

export type ActivityDeps = DomainActivityDeps;

/** Every activity the worker registers, built once from the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createDomainActivities(deps) };
}
