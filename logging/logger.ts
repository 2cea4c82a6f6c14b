import { pino, type Logger, type LoggerOptions } from 'pino';
import { redactUrl } from './url-redaction.ts';

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

interface LoggedRequest { method?: string; url?: string; hostname?: string; ip?: string; socket?: { remotePort?: number }; id?: string }

/**
 * The request as Fastify logs it ("incoming request"), with credentials in its URL redacted: a key
 * sent as `?api_key=…` is refused (api_key_in_query) but the line announcing the request is
 * written before any hook runs.
 */
function requestSerializer(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function loggerOptions(level: string, name: string): LoggerOptions {
  return { level, name, redact: { paths: redactPaths, censor: '[redacted]' }, serializers: { req: requestSerializer, res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }) } };
}

export function createLogger(level: string, name: string): Logger {
  return pino(loggerOptions(level, name));
}

export type { Logger };
