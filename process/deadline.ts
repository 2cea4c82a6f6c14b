// A wait on another process, bounded: the work's own result, or the caller's error once `ms` have
// passed. The timer never outlives the race. (The work itself is not cancelled — callers that can
// cancel it, a socket or a gRPC call, do so with their own means.)

export function rejectAfter<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(error()), Math.max(0, ms)); });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `rejectAfter` with the usual message: "<what> did not answer within <ms> ms". */
export function answerWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return rejectAfter(work, ms, () => new Error(`${what} did not answer within ${ms} ms`));
}
