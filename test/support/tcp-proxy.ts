// A loopback TCP proxy: lets a test cut a real connection path (e.g. the API's route to Postgres)
// and restore it, without touching the shared server.
import net from 'node:net';

export interface TcpProxy { port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const listen = () => new Promise<void>((resolve) => {
    server = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    server.listen(port, '127.0.0.1', () => { port = (server!.address() as net.AddressInfo).port; resolve(); });
  });
  await listen();
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    if (!server) return resolve();
    server.close(() => resolve());
    server = null;
  });
  return { get port() { return port; }, cut: stop, restore: listen, close: stop };
}
