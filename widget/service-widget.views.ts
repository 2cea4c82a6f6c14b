// The templates of <service-widget> (service-widget.component.ts), one function per part of a
// step: entry (step 1), DNS records and the last check (step 2), HTTPS status and a move's tracks
// (step 3). Each reads the element's state through `WidgetView` and returns a template; nothing
// here keeps state, and the handlers it binds only call the element's actions. The element keeps
// its public surface (attributes, events, `--svc-*`, parts) and the documentation of it.
import { html, nothing, type TemplateResult } from 'lit';
import type { DnsRecord, Track, WidgetDomain } from './api.ts';
import { keyFor, statusTextKey, type Key, type Lang } from './localize.ts';

export type Step = 1 | 2 | 3;

/** decisions.md: polling stops at these (the element's poll), and no spinner or "Check now" shows. */
export const TERMINAL = new Set(['active', 'failed', 'deleted', 'suspended']);

/** What the templates read from the element, and the actions its buttons call. */
export interface WidgetView {
  readonly demo: boolean;
  readonly _lang: Lang;
  readonly _step: Step;
  readonly _domain: WidgetDomain | null;
  readonly _list: WidgetDomain[];
  readonly _left: string;
  readonly _busy: '' | 'create' | 'verify';
  readonly _error: { code: string; message: string } | null;
  readonly _inputError: string | null;
  readonly _announcement: string;
  readonly _copied: string;
  /** The hostname field as typed; the field's input handler writes it. */
  _draft: string;
  _t(key: Key, vars?: Record<string, string | number>): string;
  _submit(event: Event): Promise<void>;
  _open(domain: WidgetDomain): void;
  _restart(): void;
  _goto(step: Step): void;
  _checkNow(): Promise<void>;
  _copy(text: string, id: string, button: HTMLElement): Promise<void>;
}

/** A hostname or DNS value that may wrap only between labels (after a dot), never inside one. */
export const host = (name: string) => name.split('.').map((label, i, all) => i < all.length - 1
  ? html`<span class="l">${label}.</span><wbr>` : html`<span class="l">${label}</span>`);

/** The card: demo notice, step indicator, the current step, the error and the live region. */
export function widget(v: WidgetView): TemplateResult {
  const step = v._step;
  const active = v._domain?.status === 'active' && step === 3;
  const body = step === 1 ? entryStep(v) : step === 2 ? dnsStep(v) : statusStep(v);
  return html`<div part="base" lang=${v._lang}>
      ${v.demo ? html`<p class="m">${v._t('demo')}</p>` : nothing}
      <ol part="steps" aria-label=${v._t('steps')}>
        ${([1, 2, 3] as const).map((n) => {
          const done = n < step || active;
          return html`<li class=${done ? 'on d' : n === step ? 'on' : ''} aria-current=${n === step ? 'step' : nothing}>${v._t(`step${n}` as Key)}${done ? html`<span class="sr">, ${v._t('done')}</span>` : nothing}</li>`;
        })}
      </ol>
      ${body}
      ${v._error ? html`<p part="error" role="alert">${v._error.message}</p>` : nothing}
      <div class="sr" role="status" part="live">${v._announcement}</div>
    </div>`;
}

function badge(v: WidgetView, status: string): TemplateResult {
  const tone = status === 'active' ? 'ok' : ['failed', 'suspended', 'deleted', 'deleting'].includes(status) ? 'bad' : '';
  return html`<span part="badge" class=${tone}>${TERMINAL.has(status) ? nothing : html`<span class="spin" aria-hidden="true"></span>`}${v._t(keyFor('s_', status) ?? 's_pending_dns')}</span>`;
}

/** Step 1: the hostname field, and the customer's domains to go back to. */
function entryStep(v: WidgetView): TemplateResult {
  const error = v._inputError;
  const busy = v._busy === 'create';
  const others = v._list;
  return html`<h2 tabindex="-1">${v._t('title')}</h2>
      ${v._left ? html`<p><strong>${host(v._left)}</strong> ${v._t('kept')}</p>` : nothing}
      <form part="form" novalidate @submit=${(e: Event) => v._submit(e)}>
        <label part="label" for="hostname">${v._t('hostnameLabel')}</label>
        <p class="m" id="hint">${v._t('hostnameHint')}</p>
        <input part="input" id="hostname" name="hostname" type="text" inputmode="url" autocomplete="off"
          autocapitalize="none" spellcheck="false" .value=${v._draft} aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? 'hint herr' : 'hint'} @input=${(e: Event) => { v._draft = (e.target as HTMLInputElement).value; }}>
        ${error ? html`<p part="error" id="herr" role="alert">${error}</p>` : nothing}
        <div class="row">
          <button part="button" type="submit" aria-disabled=${busy}>${busy ? v._t('working') : v._t('continue')}</button>
        </div>
      </form>
      ${others.length ? html`<section part="domains" aria-labelledby="yd"><h3 id="yd">${v._t('yours')}</h3>
        <ul>${others.map((d) => html`<li><button type="button" class="g" part="button secondary" @click=${() => v._open(d)}>
          <span>${host(d.hostname_unicode)}</span>${badge(v, d.status)}</button></li>`)}</ul></section>` : nothing}`;
}

function copyButton(v: WidgetView, text: string, id: string, label: Key): TemplateResult {
  const state = v._copied === id ? 'copied' : v._copied === `!${id}` ? 'copyFailed' : '';
  return html`<button type="button" class="g c ${state === 'copyFailed' ? 'x' : ''}" part="button secondary copy-button" aria-label=${v._t(label, { v: text })}
      @click=${(e: Event) => v._copy(text, id, e.currentTarget as HTMLElement)}>${v._t(state || 'copy')}</button>`;
}

/** The records to set, as cards (stacked on narrow widths, in three columns on wide ones). */
function records(v: WidgetView, d: WidgetDomain): TemplateResult {
  return html`<ul part="records" aria-label=${v._t('records')}>${d.dns_records.map((r, i) => {
    const name = r.relative_name ?? r.name;
    // The names as typed; DNS itself needs punycode, shown beside and copied.
    const unicode = name === '@' ? name : r.name === d.hostname ? d.hostname_unicode.slice(0, name === r.name ? undefined : -d.zone_unicode.length - 1) : name;
    return html`<li part="record"><dl>
        <div><dt>${v._t('type')}</dt><dd><code>${r.type}</code></dd></div>
        <div><dt>${v._t('name')}</dt><dd><code>${host(unicode)}</code>${copyButton(v, name, `n${i}`, 'copyName')}
          ${unicode === name ? nothing : html`<small class="m">${v._t('dnsForm')} <code>${host(name)}</code></small>`}
          <small class="m">${v._t('fullName')} ${host(r.name === d.hostname ? d.hostname_unicode : r.name)}</small></dd></div>
        <div><dt>${v._t('value')}</dt><dd><code>${host(r.value)}</code>${copyButton(v, r.value, `v${i}`, 'copyValue')}</dd></div>
      </dl></li>`;
  })}</ul>`;
}

/** Step 2: the records to set and the last DNS check. */
function dnsStep(v: WidgetView): TemplateResult {
  const d = v._domain!;
  return html`<h2 tabindex="-1">${v._t('dnsTitle')}</h2>
      <p>${v._t('dnsIntro')} <strong>${host(d.zone_unicode)}</strong></p>
      ${records(v, d)}
      ${verification(v, d)}
      <div class="row">
        <button part="button" type="button" @click=${() => { v._goto(3); void v._checkNow(); }}>${v._t('added')}</button>
        <button part="button secondary" type="button" class="g" @click=${() => v._restart()}>${v._t('change')}</button>
      </div>`;
}

/**
 * A zero-downtime move (the service has it on): ownership and certificate, each with its state
 * and what blocks it, so the customer knows when switching the first record loses no traffic.
 */
function tracks(v: WidgetView, { ownership: o, certificate: c }: WidgetDomain): TemplateResult | typeof nothing {
  const line = (label: Key, t: Track, ok: boolean) => html`<li>${v._t(label)}: ${v._t(ok ? 't_ok' : t.status === 'issued' ? 't_issued' : 't_wait')}${t.problem ? html`<p part="hint">${hint(v, t.problem)}</p>` : nothing}</li>`;
  return o && c && o.status !== 'not_required' ? html`<ul part="tracks">${line('o_label', o, o.status === 'verified')}${line('c_label', c, c.status === 'deployed')}</ul>` : nothing;
}

function hint(v: WidgetView, problem: { code: string; message: string }): string {
  // A move's limits (docs/zero-downtime-moves.md); its other codes get the generic hint.
  if (problem.code.endsWith('_limit')) return v._t('e_rate_limited');
  if (problem.code === 'proxied_by_cdn' && /cloudflare/i.test(problem.message)) return v._t('h_cloudflare');
  if (problem.code.startsWith('challenge_') || problem.code === 'certificate_refused') return v._t('h_certificate');
  return v._t(keyFor('h_', problem.code) ?? 'h_other');
}

function time(v: WidgetView, iso: string): string {
  return new Intl.DateTimeFormat(v._lang, { timeStyle: 'medium' }).format(new Date(iso));
}

function found(list: DnsRecord[] | null): TemplateResult | string {
  return list?.length ? html`${list.map((r, i) => html`${i ? ', ' : ''}${r.type} ${host(r.value)}`)}` : '—';
}

function verification(v: WidgetView, d: WidgetDomain): TemplateResult {
  const c = d.verification;
  return html`<section part="verification" aria-labelledby="vt">
      <h3 id="vt">${v._t('checkTitle')}</h3>
      ${c.checked_at === null ? html`<p class="m">${v._t('notChecked')}</p>` : html`
        <p class="m">${v._t('checkedAt', { time: time(v, c.checked_at) })}</p>
        ${c.problem ? html`<p part="hint">${hint(v, c.problem)}</p>` : html`<p>${v._t('dnsOk')}</p>`}
        <table>
          <tr><th scope="row">${v._t('expected')}</th><td><code>${found(c.expected.length ? c.expected : d.dns_records)}</code></td></tr>
          <tr><th scope="row">${v._t('found')}</th><td><code>${found(c.found)}</code></td></tr>
        </table>
`}
    </section>`;
}

/** Step 3: the HTTPS status, its stages, what to fix, and the link once active. */
function statusStep(v: WidgetView): TemplateResult {
  const d = v._domain!;
  const status = d.status;
  const terminal = TERMINAL.has(status);
  const dnsOk = status === 'pending_certificate' || status === 'active';
  const stage = (ok: boolean, key: Key) => html`<li class=${ok ? 'd' : ''}>${v._t(key)}<span class="sr">, ${ok ? v._t('done') : '…'}</span></li>`;
  const busy = v._busy === 'verify';
  return html`<h2 tabindex="-1">${v._t('statusTitle')}</h2>
      <p><strong>${host(d.hostname_unicode)}</strong></p>
      <div part="status">
        ${badge(v, status)}
        <p>${v._t(statusTextKey(status))}</p>
        <ul class="st">${stage(dnsOk, 'stage1')}${stage(status === 'active', 'stage2')}${stage(status === 'active', 'stage3')}</ul>
        ${status === 'pending_dns' ? records(v, d) : nothing}
        ${status === 'pending_dns' ? tracks(v, d) : nothing}
        ${d.verification.problem && !terminal ? html`<p part="hint">${hint(v, d.verification.problem)}</p>` : nothing}
        <p class="m">${v._t('updatedAt', { time: time(v, d.verification.checked_at ?? d.updated_at) })}</p>
      </div>
      <div class="row">
        ${terminal ? nothing : html`<button part="button" type="button" aria-disabled=${busy} @click=${() => v._checkNow()}>${busy ? v._t('checking') : v._t('checkNow')}</button>`}
        ${status === 'active' ? html`<a part="link" href="https://${d.hostname}" target="_blank" rel="noopener noreferrer">${v._t('visit')} <span>https://${host(d.hostname_unicode)}</span></a>` : nothing}
        <button part="button secondary" type="button" class="g" @click=${() => v._goto(2)}>${v._t('back')}</button>
      </div>`;
}
