// HTTP bytes as the edge counts them (docs/edge.md, "Bandwidth": HAProxy's %U / %B and its
// stick-table counters), and one raw HTTPS request that says how many it sent and received —
// for tests and chaos runs that check recorded bandwidth against the bytes that went through.
import tls from 'node:tls';

/** Start line, each header's name and value, the empty line and the body (no ": " and CRLF per header). */
export function httpBytes(message: Buffer): number {
  const text = message.toString('latin1');
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  const headerLines = head.split('\r\n').length - 1;
  return message.length - 4 * headerLines;
}

/** One request on its own TLS connection to 127.0.0.1:`port`; the bytes as HAProxy counts them. */
export function rawRequest(port: number, hostname: string, requestPath: string, timeoutMs = 10_000): Promise<{ sent: number; received: number; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: hostname, rejectUnauthorized: false });
    const request = `GET ${requestPath} HTTP/1.1\r\nHost: ${hostname}\r\nUser-Agent: edge-test\r\nConnection: close\r\n\r\n`;
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('timeout')));
    socket.on('secureConnect', () => socket.write(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      const response = Buffer.concat(chunks);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response.toString('latin1'))?.[1] ?? 0);
      resolve({ sent: httpBytes(Buffer.from(request)), received: httpBytes(response), status });
    });
    socket.on('error', reject);
  });
}
