// What every benchmark script needs around its measurements: cleanup steps run in reverse order
// (also on Ctrl-C), a scratch database URL, free loopback ports.
export { freePort } from '../../test/support/ports.ts';

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
export const onCleanup = (name: string, run: () => Promise<unknown>) => { cleanups.push({ name, run }); };
let cleaning: Promise<void> | null = null;
/** True once cleanup has begun (an exiting child is then expected, not a failure). */
export const isCleaningUp = () => cleaning !== null;

/** Runs every registered cleanup once, newest first; a step that hangs is abandoned after 30 s. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([step.run(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out after 30 s')), 30_000); })]);
      } catch (error) {
        console.error(`cleanup: ${step.name}: ${errorText(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  })();
  return cleaning;
}

let interrupted = false;
export const isInterrupted = () => interrupted;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.log(`\n${signal}: stopping and cleaning up…`);
    void cleanup().then(() => process.exit(130));
  });
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** An integer command-line argument within bounds; anything else exits 2 with the reason. */
export function intArg(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return n;
}
