// How bench:lifecycle writes its figures: counts, seconds, milliseconds and distributions, with
// '—' for a figure that does not exist (no sample, division by zero).
import { distribution, type Distribution } from '../support/stats.ts';

export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
export const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
export const fixed = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
export const ms0 = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '—');

/** A table row: label, count, then p50 / p90 / p99 / max in seconds. */
export const distRow = (label: string, d: Distribution) => [label, String(d.n), secs(d.p50), secs(d.p90), secs(d.p99), secs(d.max)];
/** "p50 / p90" in milliseconds. */
export const pair = (v: number[]) => { const d = distribution(v); return `${ms0(d.p50)} / ${ms0(d.p90)}`; };
