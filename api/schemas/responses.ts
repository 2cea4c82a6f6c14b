import { errorStatus, type ErrorCode } from '../errors.ts';
import { ErrorResponse } from './common.ts';

/**
 * Response schemas for the error codes a route can answer, grouped by status, so the OpenAPI
 * document lists every status and, in its description, every code.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, 'internal_error' as const]) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const { $id: _id, ...shape } = ErrorResponse as unknown as Record<string, unknown>;
  const out: Record<number, unknown> = {};
  for (const [status, list] of byStatus) {
    out[status] = { ...shape, description: `Error codes: ${[...new Set(list)].map((c) => `\`${c}\``).join(', ')}` };
  }
  return out;
}
