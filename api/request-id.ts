import { randomToken } from '../security/tokens.ts';

const SANE = /^[\x21-\x7e]{1,128}$/;

/** The incoming X-Request-Id when it is 1–128 visible ASCII characters, else a fresh one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && SANE.test(value) ? value : `req_${randomToken(24)}`;
}
