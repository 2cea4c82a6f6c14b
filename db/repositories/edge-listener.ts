// LISTEN on `hostgate_edge` (migration 008's triggers notify a domain id at commit) on a
// connection of its own, reconnecting after a loss (db/channel-listener.ts). `onReconnected`
// tells the caller that notifications may have been missed meanwhile (it then catches up by polling).
import { listenToChannel, type ChannelListener } from '../channel-listener.ts';

export const EDGE_CHANNEL = 'hostgate_edge';

export type EdgeListener = ChannelListener;

export function listenForEdgeChanges(databaseUrl: string, handlers: {
  onDomain: (domainId: string) => void;
  onReconnected: () => void;
  onLost: (error: unknown) => void;
}): EdgeListener {
  return listenToChannel(databaseUrl, EDGE_CHANNEL, {
    onPayload: (payload) => { if (payload) handlers.onDomain(payload); },
    onListening: handlers.onReconnected,
    onLost: handlers.onLost,
  });
}
