// A real authoritative DNS server on loopback (dns2) whose zone a test edits as it goes: the
// resolver under test and Pebble's validation both query it over UDP (and TCP), exactly as they
// would query the internet.
import { Resolver } from 'node:dns/promises';
import dns2 from 'dns2';
import { freePort } from './ports.ts';

const { Packet } = dns2;

export type TestRecord =
  | { type: 'A'; value: string }
  | { type: 'AAAA'; value: string }
  | { type: 'CNAME'; value: string }
  | { type: 'CAA'; flags?: number; tag: 'issue' | 'issuewild' | 'iodef'; value: string }
  | { type: 'TXT'; value: string }
  | { type: 'NS'; value: string };

export interface TestDnsServer {
  address: string;
  port: number;
  /** `host:port`, the form node:dns `Resolver.setServers` and Pebble's `-dnsserver` take. */
  server: string;
  set(name: string, records: TestRecord[]): void;
  remove(name: string): void;
  /** Every question received, in order. */
  queries: { name: string; type: string }[];
  /**
   * Answers questions about matching names late: `delayMs` gives the delay for a (lower-case,
   * no trailing dot) name, 0 or less for none; null answers everything at once again. A slow
   * resolver for some zones while others answer at once (issue 14's slow-DNS mode).
   */
  setDelay(delayMs: ((name: string) => number) | null): void;
  /**
   * Answers names in `zone` by asking `server` (a real authoritative server, e.g. PowerDNS for the
   * challenge zone): a CNAME chain that leads into that zone is completed with its answers, as a
   * recursive resolver following the delegation would.
   */
  forwardZone(zone: string, server: string): void;
  /** Questions received and not answered yet (delayed). */
  delayed(): number;
  close(): Promise<void>;
}

const typeName = (code: number) => Object.entries(Packet.TYPE).find(([, c]) => c === code)?.[0] ?? String(code);

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, TestRecord[]>();
  const forwards: { zone: string; resolver: Resolver }[] = [];
  const forwardFor = (name: string) => forwards.find((f) => name === f.zone || name.endsWith(`.${f.zone}`));
  const queries: { name: string; type: string }[] = [];
  const norm = (n: string) => n.toLowerCase().replace(/\.$/, '');
  // A name "exists" when it or any name below it has records (so parents answer NODATA, not NXDOMAIN).
  const exists = (name: string) => [...zone.keys()].some((k) => k === name || k.endsWith(`.${name}`));
  let delayOf: ((name: string) => number) | null = null;
  const pending = new Set<NodeJS.Timeout>();

  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: async (request: any, send: (r: any) => void) => {
      // dns2's typings want Resource instances; plain records encode the same way.
      const response: any = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const qname = norm(question.name);
      const qtype = typeName(question.type);
      queries.push({ name: qname, type: qtype });
      response.header.aa = 1;
      const push = (name: string, r: TestRecord) => {
        const base = { name, class: Packet.CLASS.IN, ttl: 60 };
        switch (r.type) {
          case 'A': response.answers.push({ ...base, type: Packet.TYPE.A, address: r.value }); break;
          case 'AAAA': response.answers.push({ ...base, type: Packet.TYPE.AAAA, address: r.value }); break;
          case 'CNAME': response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: r.value }); break;
          case 'CAA': response.answers.push({ ...base, type: Packet.TYPE.CAA, flags: r.flags ?? 0, tag: r.tag, value: r.value }); break;
          case 'TXT': response.answers.push({ ...base, type: Packet.TYPE.TXT, data: r.value }); break;
          case 'NS': response.answers.push({ ...base, type: Packet.TYPE.NS, ns: r.value }); break;
        }
      };
      // Follow CNAMEs inside our zone, as a recursive resolver would, adding each step.
      let name = qname;
      for (let hops = 0; hops < 10; hops++) {
        // Records set here win over forwarding (a test can make the CA see another answer than
        // our own server gives).
        const forward = zone.has(name) ? undefined : forwardFor(name);
        if (forward) {
          // Only TXT is needed (DNS-01); other types answer NODATA from here.
          if (qtype === 'TXT') {
            try {
              for (const parts of await forward.resolver.resolveTxt(name)) push(name, { type: 'TXT', value: parts.join('') });
            } catch (error) {
              if ((error as { code?: string }).code !== 'ENODATA' && (error as { code?: string }).code !== 'ENOTFOUND') response.header.rcode = 2;
            }
          }
          break;
        }
        // A wildcard record (`*.<parent>`) answers a name that does not exist (RFC 4592).
        const records = zone.get(name) ?? (exists(name) ? undefined : zone.get(`*.${name.slice(name.indexOf('.') + 1)}`));
        if (!records) {
          if (!exists(name)) response.header.rcode = hops === 0 ? 3 : 0; // NXDOMAIN only for the asked name
          break;
        }
        const cname = records.find((r) => r.type === 'CNAME');
        if (cname && qtype !== 'CNAME') {
          push(name, cname);
          name = norm(cname.value);
          continue;
        }
        for (const r of records) if (r.type === qtype) push(name, r);
        break;
      }
      const delay = delayOf ? delayOf(qname) : 0;
      if (delay <= 0) return send(response);
      const timer = setTimeout(() => { pending.delete(timer); send(response); }, delay);
      timer.unref();
      pending.add(timer);
    },
  });
  const port = await freePort();
  await server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } });
  return {
    address: '127.0.0.1',
    port,
    server: `127.0.0.1:${port}`,
    set: (name, records) => { zone.set(norm(name), records); },
    remove: (name) => { zone.delete(norm(name)); },
    queries,
    setDelay: (fn) => { delayOf = fn; },
    forwardZone: (z, server) => {
      // Generous: a lost answer here would make the CA refuse the challenge (a shared, busy machine).
      const resolver = new Resolver({ timeout: 2000, tries: 3 });
      resolver.setServers([server]);
      forwards.push({ zone: norm(z), resolver });
    },
    delayed: () => pending.size,
    // Answers still waiting would be sent on closed sockets: dropped instead.
    close: async () => { for (const t of pending) clearTimeout(t); pending.clear(); await server.close(); },
  };
}
