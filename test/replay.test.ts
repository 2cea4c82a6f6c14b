// Recorded histories of real runs replay against today's workflow code: a change that would make
// running workflows non-deterministic fails here, before deploy. Changes that alter the command
// sequence go through `patched()`. Two generations of the domain workflow's fast path are kept:
// runs recorded with `patched(FAST_PATH_PATCH)` (domain-patched-*.json) and runs recorded by
// today's code, which calls `deprecatePatch(FAST_PATH_PATCH)` (the other domain-*.json, written by
// `npm run record:histories`). Histories from before the fast path were retired on 2026-11-26;
// only fast-path histories are replayed. The replay runs in its own Node process (`npm run
// replay`), outside jest's module sandbox, exactly as the pre-deploy check does.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { MOVES_PATCH } from '../workflows/domain/phases/wait-for-dns.ts';
import { CUSTOM_CERTIFICATE_PATCH } from '../workflows/domain/phases/custom-certificate.ts';
import { FAST_PATH_PATCH } from '../workflows/domain/workflows.ts';
import { LOCAL_FIRST_ATTEMPT_PATCH } from '../workflows/webhook-delivery/workflows.ts';

const dir = new URL('./histories/', import.meta.url);

interface HistoryEvent { eventType: string; markerRecordedEventAttributes?: { markerName: string; details: Record<string, { payloads: { data: string }[] }> } }

/** The patch markers a recorded history holds: which patch, and whether it was deprecated. */
function patchMarkers(file: string): { id: string; deprecated: boolean }[] {
  const history = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { events: HistoryEvent[] };
  return history.events
    .filter((e) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED' && e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details['patch-data']!.payloads[0]!.data, 'base64').toString('utf8')) as { id: string; deprecated: boolean });
}

describe('workflow replay', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const domain = files.filter((f) => f.startsWith('domain-'));
  const patchedGeneration = domain.filter((f) => f.startsWith('domain-patched-'));
  const currentGeneration = domain.filter((f) => !f.startsWith('domain-patched-'));

  it('keeps both fast-path generations of the domain workflow, and nothing from before the fast path', () => {
    expect(domain.filter((f) => f.startsWith('domain-before-fast-path-'))).toEqual([]);
    expect(patchedGeneration.length).toBeGreaterThanOrEqual(4);
    expect(currentGeneration.length).toBeGreaterThanOrEqual(4);
    // Each generation is what its name says: recorded with patched() / with deprecatePatch().
    for (const f of patchedGeneration) expect([f, patchMarkers(f)]).toEqual([f, [{ id: FAST_PATH_PATCH, deprecated: false }]]);
    // (Later patches — the DNS task queue's, issue 14; the move step, issue 17 — add markers of
    // their own to runs recorded since: only the fast path's marker tells the generation.)
    for (const f of currentGeneration) expect([f, patchMarkers(f).filter((m) => m.id === FAST_PATH_PATCH)]).toEqual([f, [{ id: FAST_PATH_PATCH, deprecated: true }]]);
  });

  it('keeps runs of zero-downtime moves (test/zero-downtime-moves.test.ts), recorded with the move patch', () => {
    const moves = currentGeneration.filter((f) => f.startsWith('domain-move-'));
    expect(moves.length).toBeGreaterThanOrEqual(2);
    for (const f of moves) expect([f, patchMarkers(f)]).toEqual([f, expect.arrayContaining([{ id: MOVES_PATCH, deprecated: false }])]);
  });

  it("keeps runs that took the customer's own certificate in (test/custom-certificate-edge.test.ts), recorded with its patch", () => {
    const custom = currentGeneration.filter((f) => f.startsWith('domain-custom-'));
    expect(custom.length).toBeGreaterThanOrEqual(2);
    for (const f of custom) expect([f, patchMarkers(f)]).toEqual([f, expect.arrayContaining([{ id: CUSTOM_CERTIFICATE_PATCH, deprecated: false }])]);
  });

  it('keeps delivery runs from before and after the local first attempt (test/webhook-delivery.test.ts)', () => {
    const before = files.filter((f) => f.startsWith('webhook-delivery-activity-first-'));
    const after = files.filter((f) => f.startsWith('webhook-delivery-local-first-'));
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(after.length).toBeGreaterThanOrEqual(3);
    for (const f of before) expect([f, patchMarkers(f)]).toEqual([f, []]);
    for (const f of after) expect([f, patchMarkers(f)]).toEqual([f, [{ id: LOCAL_FIRST_ATTEMPT_PATCH, deprecated: false }]]);
  });

  it('replays every recorded history without non-determinism', () => {
    const result = spawnSync(process.execPath, ['worker/replay.ts', 'test/histories'], { encoding: 'utf8', timeout: 120_000 });
    expect(result.stdout).toContain(`replayed ${files.length} histories from test/histories: ${files.length} ok, 0 failed`);
    expect(result.status).toBe(0);
  }, 150_000);
});
