// `demo` mode: the same interface as the HTTP client, answered locally and deterministically, so
// a page can show all three steps without a token and without a single network request. Each
// read or verify moves the story on by one stage: not checked → name not found → proxied by
// Cloudflare (to show that hint) → DNS correct, certificate being issued → active.

import { WidgetApiError, type DnsRecord, type WidgetApi, type WidgetDomain } from './api.ts';

const TARGET = 'edge.hostgate.example';
const EPOCH = Date.UTC(2025, 0, 15, 9, 30);
const STATUSES = ['pending_dns', 'pending_dns', 'pending_dns', 'pending_certificate', 'active'];
const PROBLEMS: (readonly [string, string] | null)[] = [null, ['nxdomain', 'does not exist in DNS yet'], ['proxied_by_cdn', 'is served through Cloudflare, another CDN'], null, null];

export function demoApi(): WidgetApi {
  let domain: WidgetDomain | null = null;
  let stage = 0;

  function snapshot(): WidgetDomain {
    const d = domain!;
    const at = new Date(EPOCH + stage * 60_000).toISOString();
    const expected: DnsRecord[] = d.dns_records.map(({ type, name, value }) => ({ type, name, value }));
    const problem = PROBLEMS[stage];
    d.status = STATUSES[stage]!;
    d.updated_at = at;
    d.verification = {
      checked_at: stage ? at : null,
      expected,
      found: stage === 2 ? [{ type: 'A', name: d.hostname, value: '104.16.1.1' }] : stage > 2 ? expected : null,
      problem: problem ? { code: problem[0], message: `${d.hostname} ${problem[1]}.` } : null,
      verify_requested_at: null,
    };
    return structuredClone(d);
  }

  const advance = async (id: string) => {
    if (domain?.id !== id) throw new WidgetApiError('widget_domain_not_found', 'not found', 404);
    stage = Math.min(stage + 1, STATUSES.length - 1);
    return snapshot();
  };

  return {
    list: async () => [],
    async create(hostname, _key, typed) {
      const zone = hostname.split('.').slice(-2).join('.');
      const at = new Date(EPOCH).toISOString();
      domain = {
        id: 'dom_demo', hostname, hostname_unicode: typed, zone, zone_unicode: typed.split('.').slice(-2).join('.'), status: '', created_at: at, updated_at: at,
        dns_records: [{ type: 'CNAME', name: hostname, relative_name: hostname === zone ? '@' : hostname.slice(0, -zone.length - 1), value: TARGET }],
        verification: { checked_at: null, expected: [], found: null, problem: null, verify_requested_at: null },
      };
      stage = 0;
      return { domain: snapshot(), created: true };
    },
    get: advance,
    verify: advance,
  };
}
