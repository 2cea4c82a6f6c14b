export default async function globalTeardown(): Promise<void> {
  const handles = (globalThis as { __hostgateTestHandles?: { stop(): Promise<void> }[] }).__hostgateTestHandles ?? [];
  for (const h of handles.reverse()) await h.stop().catch(() => undefined);
}
