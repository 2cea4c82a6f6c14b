// Answers that Node's HTTP parser or a closing server gives before any route runs: a request
// sent too slowly (408), headers too large (431), bytes that are not HTTP (400), and requests
// that arrive while the server drains (503). Fastify answers these with its own JSON shape
// (`{"error":"Request Timeout","statusCode":408}`); here they get the API's envelope, a request
// id and, for 503, Retry-After, like every other answer.
//
// What cannot be done (documented in docs/api-decisions.md, "Bounded waits"): at the parser
// level there is no request yet, so no X-Request-Id sent by the client can be echoed (its headers
// were never parsed; a fresh id is minted and logged), and the connection is always closed
// afterwards (the stream is in an unknown state). A socket that never sends a byte gets the same
// 408 once the timeout passes (Node treats it as a request whose headers never came).
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody, ApiError } from '../errors.ts';
import { requestIdFrom } from '../request-id.ts';

/** Which parser error becomes which code. */
function classify(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'the request (headers and body) was not received in time; send it at once, without pauses');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', 'the request headers are larger than 16 KiB');
    default:
      return new ApiError('invalid_request', 'the request is not valid HTTP/1.1');
  }
}

/** Fastify's `clientErrorHandler` (called with the instance as `this`): the envelope on the raw socket, then close it. */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or an already closed socket: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = classify(error);
  const requestId = requestIdFrom(undefined);
  this.log.info({ reqId: requestId, code: apiError.code, parserError: error.code }, 'request rejected by the HTTP parser');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(apiError, requestId));
    socket.write(`HTTP/1.1 ${apiError.status} ${reasonPhrase(apiError.status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

function reasonPhrase(status: number): string {
  return ({ 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' } as Record<number, string>)[status] ?? 'Error';
}

/** How often Node checks requests against requestTimeout/headersTimeout (its default is 30 s). */
export function connectionsCheckingInterval(requestTimeoutMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(requestTimeoutMs / 4)));
}

/** Seconds a client should wait before retrying a request refused while the server drains. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 2;
