// A lean transport for acme-client's axios instance: one node:http(s) request per call on the
// agent the request config carries, the body read whole. axios's own http adapter (proxy
// handling, redirects, decompression, streams, progress events) cost more CPU per ACME request
// than signing it did; ACME needs none of that (RFC 8555: JSON and PEM bodies, no redirects).
// axios still runs its request/response transforms and interceptors around this, so acme-client
// and our error classification see the usual response and AxiosError shapes.
import http from 'node:http';
import https from 'node:https';
import { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';

/** Largest response body accepted (a certificate chain is a few KiB; a directory less). */
const MAX_BODY_BYTES = 1024 * 1024;

export const acmeTransport: AxiosAdapter = (config: InternalAxiosRequestConfig) => new Promise<AxiosResponse>((resolve, reject) => {
  let url: URL;
  try {
    url = new URL(config.url ?? '', config.baseURL);
  } catch {
    reject(new AxiosError(`invalid URL ${config.url}`, AxiosError.ERR_INVALID_URL, config));
    return;
  }
  const secure = url.protocol === 'https:';
  const headers = AxiosHeaders.from(config.headers).normalize(true).toJSON() as Record<string, string>;
  const data = config.data;
  const body = data === undefined || data === null ? undefined : typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data);
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  const options: https.RequestOptions = { method: (config.method ?? 'get').toUpperCase(), headers, agent: secure ? config.httpsAgent : config.httpAgent };
  const request = (secure ? https : http).request(url, options, (response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) { request.destroy(new AxiosError('response body too large', AxiosError.ERR_BAD_RESPONSE, config)); return; }
      chunks.push(chunk);
    });
    response.on('error', (error) => reject(AxiosError.from(error, (error as NodeJS.ErrnoException).code, config, request)));
    response.on('end', () => {
      const result: AxiosResponse = {
        data: Buffer.concat(chunks).toString('utf8'),
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        headers: AxiosHeaders.from(response.headers as Record<string, string>),
        config,
        request,
      };
      // As axios's `settle`: a status the config does not accept rejects with the response.
      if (!config.validateStatus || config.validateStatus(result.status)) resolve(result);
      else reject(new AxiosError(`Request failed with status code ${result.status}`, result.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST, config, request, result));
    });
  });
  if (config.timeout) {
    request.setTimeout(config.timeout, () => request.destroy(new AxiosError(`timeout of ${config.timeout} ms exceeded`, AxiosError.ECONNABORTED, config, request)));
  }
  request.on('error', (error) => reject(error instanceof AxiosError ? error : AxiosError.from(error, (error as NodeJS.ErrnoException).code, config, request)));
  if (body !== undefined) request.write(body);
  request.end();
});
