import net from 'node:net';

/**
 * Ports this process has handed out. The kernel gives a just-closed port back to the next
 * `listen(0)` more often than not, so two calls in a row (Pebble's directory and management
 * ports, seen on CI: both 44729, "address already in use") could name the same port.
 */
const handedOut = new Set<number>();

/** A TCP port that was free a moment ago on 127.0.0.1, and not handed out before in this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/**
 * A port held open until `release()`: for a server whose port must be known long before it
 * listens (a URL baked into its configuration, then seconds of setup). `freePort` leaves that
 * whole setup as a window in which another process can take the port (seen on CI: EADDRINUSE
 * at listen). Release it right before listening.
 */
export async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return { port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
