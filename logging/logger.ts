import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino blanks out wherever they appear, so a secret that slips into a log object is never
 * written. Callers still must not log secrets on purpose; this is the safety net.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey', 'api_key', 'token', 'secret', 'password', 'privateKey', 'private_key',
  '*.apiKey', '*.api_key', '*.token', '*.secret', '*.password', '*.privateKey', '*.private_key',
];

export function loggerOptions(level: string, name: string): LoggerOptions {
  return { level, name, redact: { paths: redactPaths, censor: '[redacted]' } };
}

export function createLogger(level: string, name: string): Logger {
  return pino(loggerOptions(level, name));
}

export type { Logger };
