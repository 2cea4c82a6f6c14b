import type { App } from '../../api/app.ts';
import { randomToken } from '../../security/tokens.ts';

/** A small client over `app.inject` that adds auth and a fresh Idempotency-Key to writes. */
export function client(app: App, auth: Record<string, string>) {
  const write = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE') => (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { ...auth, 'idempotency-key': `test-${randomToken(16)}`, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  return {
    get: (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { ...auth, ...headers } }),
    post: write('POST'),
    put: write('PUT'),
    patch: write('PATCH'),
    delete: write('DELETE'),
  };
}
