// Traffic analytics (issue 24, docs/analytics.md): a domain's series of buckets and the
// organization's totals with its top hostnames. Percentiles come from mergeable histograms of
// fixed log buckets (model/analytics-counters.ts): within 2.5 % of the true value.
import { Type } from 'typebox';
import { named, StringEnum, Timestamp } from './common.ts';

export const AnalyticsInterval = named('AnalyticsInterval', StringEnum(['minute', 'hour', 'day'], { description: 'Bucket width: minute (range ≤ 48 h, kept 48 h), hour (range ≤ 31 days), day (range ≤ 400 days; hours and days kept 400 days)' }));
export const AnalyticsSort = named('AnalyticsSort', StringEnum(['requests', 'errors', 'bytes'], { description: 'requests, errors (4xx + 5xx) or bytes (in + out), descending' }));

const count = (description: string) => Type.Integer({ minimum: 0, description });
const ms = (description: string) => Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description });

const counterFields = {
  requests: count('Requests answered or ended in the bucket (one HAProxy log line each)'),
  status_2xx: count('Answers with a 2xx status'),
  status_3xx: count('Answers with a 3xx status'),
  status_4xx: count('Answers with a 4xx status'),
  status_5xx: count('Answers with a 5xx status'),
  edge_answers: count('Answers the edge made itself, without an answer from the origin (502 origin unreachable, 503 suspended, 504 timeout, 508 loop); also counted in their status class'),
  no_answer: count('Requests that ended without an answer (the client went away first)'),
  bytes_in: count('HTTP bytes received from clients, headers included'),
  bytes_out: count('HTTP bytes sent to clients, headers included'),
  http1: count('Requests over HTTP/1.x'),
  http2: count('Requests over HTTP/2'),
  tls12: count('Requests over TLS 1.2'),
  tls13: count('Requests over TLS 1.3'),
  origin_ms_p50: ms('Median time until the origin\'s response headers, in ms (null: no origin answer in the bucket)'),
  origin_ms_p95: ms('95th percentile of the origin time, in ms'),
  origin_ms_p99: ms('99th percentile of the origin time, in ms'),
  total_ms_mean: ms('Mean time from the request\'s first byte to the answer\'s last, in ms'),
};

export const AnalyticsTotals = named('AnalyticsTotals', Type.Object(counterFields, { description: 'Traffic counters summed over a range (and over every edge)' }));

export const AnalyticsBucket = named('AnalyticsBucket', Type.Object({
  start: { ...Timestamp, description: 'Start of the bucket (UTC, aligned to its interval)' },
  ...counterFields,
}, { description: 'Traffic of one domain in one bucket, summed over every edge' }));

export const DomainAnalytics = named('DomainAnalytics', Type.Object({
  domain_id: Type.String({ description: 'The domain' }),
  hostname: Type.String({ description: 'Its hostname' }),
  start: { ...Timestamp, description: 'Start of the range (the `from` asked, inclusive, aligned down to the interval)' },
  end: { ...Timestamp, description: 'End of the range (the `to` asked, exclusive, aligned up to the interval)' },
  interval: AnalyticsInterval,
  totals: AnalyticsTotals,
  buckets: Type.Array(AnalyticsBucket, { description: 'Buckets with traffic, oldest first (a bucket without traffic is absent)' }),
}, { description: "A domain's traffic over a range: totals and a series of buckets" }));

export const TopHostname = named('TopHostname', Type.Object({
  domain_id: Type.String({ description: 'The domain' }),
  hostname: Type.String({ description: 'Its hostname' }),
  requests: count('Requests in the range'),
  errors: count('4xx and 5xx answers in the range'),
  bytes: count('Bytes in and out in the range'),
  status_4xx: count('4xx answers'),
  status_5xx: count('5xx answers'),
  bytes_in: count('Bytes received from clients'),
  bytes_out: count('Bytes sent to clients'),
}, { description: 'One hostname of the top list' }));

export const OrganizationAnalytics = named('OrganizationAnalytics', Type.Object({
  start: { ...Timestamp, description: 'Start of the range (the `from` asked, inclusive, aligned down to the interval)' },
  end: { ...Timestamp, description: 'End of the range (the `to` asked, exclusive, aligned up to the interval)' },
  interval: AnalyticsInterval,
  sort: AnalyticsSort,
  totals: AnalyticsTotals,
  top: Type.Array(TopHostname, { description: 'This page of the hostnames with traffic, by `sort` descending (ties by domain id)' }),
  has_more: Type.Boolean({ description: 'True when another page of the top list follows' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` (with the same from, to, interval and sort) for the next page; null on the last page.' }),
}, { description: "The organization's traffic over a range: totals and its top hostnames" }));

const range = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the range, RFC 3339 (default: `to` minus 24 h)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'End of the range, RFC 3339 (default: now)' })),
  interval: Type.Optional(Type.Unsafe<'minute' | 'hour' | 'day'>({ type: 'string', enum: ['minute', 'hour', 'day'], default: 'hour', description: 'Bucket width: minute (range ≤ 48 h), hour (≤ 31 days), day (≤ 400 days)' })),
};

export const DomainAnalyticsQuery = Type.Object(range);
export const OrganizationAnalyticsQuery = Type.Object({
  ...range,
  sort: Type.Optional(Type.Unsafe<'requests' | 'errors' | 'bytes'>({ type: 'string', enum: ['requests', 'errors', 'bytes'], default: 'requests', description: 'Order of the top list: requests, errors (4xx + 5xx) or bytes (in + out), descending' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Hostnames per page, 1–100' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The `next_cursor` of the previous page' })),
});
