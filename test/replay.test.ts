// Recorded histories of real runs replay against today's workflow code: a change that would make
// running workflows non-deterministic fails here, before deploy. Changes that alter the command
// sequence go through `patched()`; `npm run record:histories` records today's shapes (domain-*.json); keep
// the older ones (domain-before-fast-path-*.json: before FAST_PATH_PATCH) until no workflow
// with the old shape can still be running. The replay runs in its own Node process (`npm run
// replay`), outside jest's module sandbox, exactly as the pre-deploy check does.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

describe('workflow replay', () => {
  it('replays every recorded history without non-determinism', () => {
    const files = readdirSync(new URL('./histories/', import.meta.url)).filter((f) => f.endsWith('.json'));
    // Both generations: runs recorded before the fast path (patched) and on it.
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.filter((f) => f.startsWith('domain-before-fast-path-')).length).toBeGreaterThanOrEqual(4);
    const result = spawnSync(process.execPath, ['worker/replay.ts', 'test/histories'], { encoding: 'utf8', timeout: 120_000 });
    expect(result.stdout).toContain(`replayed ${files.length} histories from test/histories: ${files.length} ok, 0 failed`);
    expect(result.status).toBe(0);
  }, 150_000);
});
