// Connecting to Temporal and preparing a namespace: the one place that knows how.
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SearchAttributeType } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { allSearchAttributes } from '../contracts/search-attributes.ts';

// @temporalio/proto is CommonJS whose exports Node cannot detect statically.
const { temporal } = proto;

const indexedType: Record<string, number> = {
  [SearchAttributeType.KEYWORD]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.INT]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  [SearchAttributeType.DATETIME]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

export async function connectTemporal(address: string, options: { timeoutMs?: number } = {}): Promise<Connection> {
  return Connection.connect({ address, connectTimeout: options.timeoutMs ?? 10_000 });
}

/** Registers the custom search attributes the workflows set; a no-op when they exist. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = allSearchAttributes.filter((a) => !known.has(a.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((a) => [a.name, indexedType[a.type]!])),
  });
  return missing.map((a) => a.name);
}

/**
 * A client over a NativeConnection (the Rust core's gRPC), connected on first use and again after
 * a failed attempt. The outbox dispatcher sends every start and signal through it: the pure-JS
 * gRPC client cost the API process a few hundred microseconds of CPU per call more.
 */
export function nativeClientProvider(address: string, namespace: string): { get: () => Promise<Client>; close: () => Promise<void> } {
  let connecting: Promise<{ connection: NativeConnection; client: Client }> | null = null;
  const connect = () => {
    connecting ??= NativeConnection.connect({ address })
      .then((connection) => ({ connection, client: new Client({ connection, namespace }) }))
      .catch((error: unknown) => { connecting = null; throw error; });
    return connecting;
  };
  return {
    get: async () => (await connect()).client,
    close: async () => {
      const current = connecting;
      connecting = null;
      if (current) await current.then((c) => c.connection.close(), () => undefined);
    },
  };
}
