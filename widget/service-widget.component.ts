// <service-widget>: lets a vendor's customer connect their own domain in three steps (hostname,
// DNS records, live HTTPS status) without the vendor's API key ever reaching the browser. The class
// only; service-widget.ts registers the tag.
//
// Attributes: token (widget session token), api-base (API origin; default: where this script was
// built for, else where it was loaded from), lang (en, fr), demo (local deterministic data, no
// network at all).
//
// @event service:created - {id, hostname} after the domain is created
// @event service:status  - {id, status} after creation and whenever the status changes
// @event service:error   - {code, message} on an error; code is stable, message safe to show
//
// @cssproperty --svc-primary       - accent colour (default #635bff)
// @cssproperty --svc-background    - background (default #ffffff)
// @cssproperty --svc-color         - text colour (default #111827)
// @cssproperty --svc-border-radius - corner radius (default 14px)
//
// @csspart base - the card; steps - the step indicator; form, label, input - hostname entry;
// button - every button (secondary ones also have `secondary`); error - error messages;
// records, record - the DNS record table and its rows; copy-button - copy buttons;
// verification - the last DNS check (found vs expected); hint - what to fix;
// status - the HTTPS status panel; badge - the status badge; live - the screen-reader live region
import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { httpApi, newIdempotencyKey, WidgetApiError, type DnsRecord, type WidgetApi, type WidgetDomain } from './api.ts';
import { demoApi } from './demo.ts';
import { checkHostname } from './hostname.ts';
import { HostgateElement } from './hostgate-element.ts';
import { format, keyFor, langOf, reasonKey, statusTextKey, type Key, type Lang } from './localize.ts';
import { PollingController, type PollOutcome } from './polling-controller.ts';
import { styles } from './styles.ts';

/** Set by widget/build.ts when the API lives elsewhere than the script. */
declare const __HOSTGATE_API_ORIGIN__: string | undefined;

/** Spec: the widget polls GET /widget/domains/{id} every 10 seconds. */
export const POLL_INTERVAL_MS = 10_000;
const DEMO_INTERVAL_MS = 3_000;
/** decisions.md: polling stops at these. */
const TERMINAL = new Set(['active', 'failed', 'deleted', 'suspended']);
/** Errors a new token can cure: polling pauses on them and resumes when `token` changes. */
const TOKEN_ERRORS = new Set(['missing_token', 'invalid_widget_token', 'widget_token_expired', 'origin_forbidden', 'widget_domain_not_found']);
/** Codes the element reports as they are (spec section 7, and rate_limited); others become widget_request_failed. */
const EVENT_CODES = new Set([...TOKEN_ERRORS, 'destination_not_found', 'domain_conflict', 'widget_request_failed', 'rate_limited']);

type Step = 1 | 2 | 3;

export class ServiceWidget extends HostgateElement {
  static override styles = styles;
  static override properties = {
    token: { type: String },
    apiBase: { type: String, attribute: 'api-base' },
    lang: { type: String },
    demo: { type: Boolean },
    _step: { state: true },
    _domain: { state: true },
    _busy: { state: true },
    _error: { state: true },
    _inputError: { state: true },
    _announcement: { state: true },
    _copied: { state: true },
  };

  declare token: string | undefined;
  declare apiBase: string | undefined;
  declare lang: string;
  declare demo: boolean;
  declare _step: Step;
  declare _domain: WidgetDomain | null;
  declare _busy: '' | 'create' | 'verify';
  declare _error: { code: string; message: string } | null;
  declare _inputError: string | null;
  declare _announcement: string;
  declare _copied: string | null;

  readonly #poll: PollingController;
  #demo: WidgetApi | null = null;
  /** The token of the session that owns the current domain (handed over when `token` changes). */
  #owner: string | undefined;
  #draft = '';
  #focusStep = false;
  #copiedTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.demo = false;
    this._step = 1;
    this._domain = null;
    this._busy = '';
    this._error = null;
    this._inputError = null;
    this._announcement = '';
    this._copied = null;
    this.#poll = new PollingController(this, {
      task: (signal) => this.#pollOnce(signal),
      interval: () => (this.demo ? DEMO_INTERVAL_MS : POLL_INTERVAL_MS),
    });
  }

  /** The polling state (idle, running, paused, stopped); for hosts and tests. */
  get pollState() {
    return this.#poll.state;
  }

  get #lang(): Lang {
    return langOf(this.lang);
  }

  #t(key: Key, vars?: Record<string, string | number>): string {
    return format(this.#lang, key, vars);
  }

  #api(): WidgetApi {
    if (this.demo) return (this.#demo ??= demoApi());
    const built = typeof __HOSTGATE_API_ORIGIN__ === 'string' ? __HOSTGATE_API_ORIGIN__ : '';
    return httpApi(this.apiBase || built || new URL(import.meta.url).origin, this.token ?? '');
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#copiedTimer);
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('token') && changed.get('token') !== undefined) void this.#tokenChanged();
    if (this.#focusStep) {
      this.#focusStep = false;
      this.renderRoot.querySelector<HTMLElement>('h2')?.focus();
    }
  }

  // ---- Actions -------------------------------------------------------------------------------

  async #submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this._busy) return;
    const check = checkHostname(this.#draft);
    if (!check.ok) {
      this._inputError = this.#t(reasonKey(check.reason));
      this.renderRoot.querySelector('input')?.focus();
      return;
    }
    this._inputError = null;
    this._error = null;
    if (!this.demo && !this.token) {
      this.#fail(new WidgetApiError('missing_token', 'no token attribute'));
      return;
    }
    const token = this.token;
    const key = newIdempotencyKey(); // one per user action, reused by the retries below
    this._busy = 'create';
    try {
      const domain = await this.#retrying(() => this.#api().create(check.hostname, key));
      this.#owner = token;
      this._domain = null;
      this.emit('service:created', { id: domain.id, hostname: domain.hostname });
      this.#apply(domain);
      this.#goto(2);
      if (!TERMINAL.has(domain.status)) this.#poll.start();
    } catch (error) {
      this.#fail(error);
    } finally {
      this._busy = '';
    }
  }

  async #checkNow(): Promise<void> {
    const domain = this._domain;
    if (!domain || this._busy) return;
    const key = newIdempotencyKey();
    this._busy = 'verify';
    try {
      const next = await this.#retrying(() => this.#api().verify(domain.id, key));
      this.#clearTokenError();
      this.#apply(next);
      if (TERMINAL.has(next.status)) this.#poll.stop();
      else if (this.#poll.state === 'paused') this.#poll.resume();
      else this.#poll.restart();
    } catch (error) {
      if (this.#failed(error) === 'pause') this.#poll.pause();
    } finally {
      this._busy = '';
    }
  }

  /** A new token: hand the domain over to the new session, then poll again. */
  async #tokenChanged(): Promise<void> {
    if (this.demo) return;
    this.#clearTokenError();
    const domain = this._domain;
    if (!domain || !this.token || TERMINAL.has(domain.status)) return;
    if (this.token === this.#owner || !this.#owner) {
      this.#poll.resume();
      return;
    }
    const previous = this.#owner;
    const token = this.token;
    const key = newIdempotencyKey();
    try {
      const next = await this.#retrying(() => this.#api().handover(domain.id, previous, key));
      this.#owner = token;
      this.#apply(next);
      if (TERMINAL.has(next.status)) this.#poll.stop();
      else if (this.#poll.state === 'paused') this.#poll.resume();
      else this.#poll.restart(0);
    } catch (error) {
      if (this.#failed(error) === 'pause') this.#poll.pause();
    }
  }

  async #pollOnce(signal: AbortSignal): Promise<PollOutcome> {
    const domain = this._domain;
    if (!domain) return 'stop';
    try {
      const next = await this.#api().get(domain.id, signal);
      if (this._error?.code === 'network') this._error = null;
      this.#apply(next);
      return TERMINAL.has(next.status) ? 'stop' : 'continue';
    } catch (error) {
      return this.#failed(error, true);
    }
  }

  #restart(): void {
    this.#poll.stop();
    this._domain = null;
    this.#owner = undefined;
    this._error = null;
    this.#goto(1);
  }

  async #copy(text: string, id: string): Promise<void> {
    const ok = await navigator.clipboard.writeText(text).then(() => true, () => false);
    this._announcement = this.#t(ok ? 'copied' : 'copyFailed');
    this._copied = ok ? id : null;
    clearTimeout(this.#copiedTimer);
    this.#copiedTimer = setTimeout(() => { this._copied = null; }, 2000);
  }

  // ---- State ---------------------------------------------------------------------------------

  #apply(next: WidgetDomain): void {
    const previous = this._domain;
    this._domain = next;
    if (previous?.status === next.status) return;
    this.emit('service:status', { id: next.id, status: next.status });
    this._announcement = this.#t('statusIs', { status: this.#t(keyFor('s_', next.status) ?? 's_pending_dns') });
    if (this._step === 2 && next.status !== 'pending_dns') this.#goto(3);
  }

  #goto(step: Step): void {
    this._step = step;
    this.#focusStep = true;
  }

  #clearTokenError(): void {
    if (this._error && (TOKEN_ERRORS.has(this._error.code) || this._error.code === 'network')) this._error = null;
  }

  /** Retries a call after network failures and 5xx, with the same Idempotency-Key. */
  async #retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof WidgetApiError) || !error.transient || attempt >= 3 || this.demo) throw error;
        await new Promise((r) => setTimeout(r, attempt * 1000));
      }
    }
  }

  /** Reports a failed call and says what polling should do about it. */
  #failed(error: unknown, polling = false): PollOutcome {
    if ((error as Error)?.name === 'AbortError') return 'continue';
    const e = error instanceof WidgetApiError ? error : new WidgetApiError('widget_request_failed', String(error));
    if (polling && e.code === 'rate_limited') return { retryAfterMs: e.retryAfter * 1000 };
    // A flaky network while polling: say so once, keep polling.
    if (polling && e.transient && this._error?.code === 'network') return 'continue';
    this.#fail(e);
    return TOKEN_ERRORS.has(e.code) ? 'pause' : 'continue';
  }

  #fail(error: unknown): void {
    const e = error instanceof WidgetApiError ? error : new WidgetApiError('widget_request_failed', String(error));
    const code = EVENT_CODES.has(e.code) ? e.code : 'widget_request_failed';
    let message = this.#t(keyFor('e_', code) ?? 'e_widget_request_failed');
    if (e.transient && e.status === 0) message = this.#t('e_network');
    // The server refused the hostname: show why, in the customer's language, next to the field.
    if (e.reason && this._step === 1) {
      this._inputError = this.#t(reasonKey(e.reason));
      message = this._inputError;
    } else {
      this._error = { code: e.status === 0 ? 'network' : code, message };
    }
    this.emit('service:error', { code, message });
  }

  // ---- Rendering -----------------------------------------------------------------------------

  override render(): TemplateResult {
    const step = this._step;
    const body = step === 1 ? this.#renderEntry() : step === 2 ? this.#renderDns() : this.#renderStatus();
    return html`<div part="base" lang=${this.#lang}>
      ${this.demo ? html`<p class="m">${this.#t('demo')}</p>` : nothing}
      <ol part="steps" aria-label=${this.#t('steps')}>
        ${([1, 2, 3] as const).map((n) => html`<li class=${n <= step ? 'on' : ''} aria-current=${n === step ? 'step' : nothing}>
          ${this.#t(`step${n}` as Key)}${n < step ? html`<span class="sr">, ${this.#t('done')}</span>` : nothing}</li>`)}
      </ol>
      ${body}
      ${this._error ? html`<p part="error" role="alert">${this._error.message}</p>` : nothing}
      <div class="sr" role="status" part="live">${this._announcement}</div>
    </div>`;
  }

  #renderEntry(): TemplateResult {
    const error = this._inputError;
    const busy = this._busy === 'create';
    return html`<h2 tabindex="-1">${this.#t('title')}</h2>
      <form part="form" novalidate @submit=${(e: Event) => this.#submit(e)}>
        <label part="label" for="hostname">${this.#t('hostnameLabel')}</label>
        <p class="m" id="hint">${this.#t('hostnameHint')}</p>
        <input part="input" id="hostname" name="hostname" type="text" inputmode="url" autocomplete="off"
          autocapitalize="none" spellcheck="false" .value=${this.#draft} aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? 'hint herr' : 'hint'} @input=${(e: Event) => { this.#draft = (e.target as HTMLInputElement).value; }}>
        ${error ? html`<p part="error" id="herr" role="alert">${error}</p>` : nothing}
        <div class="row">
          <button part="button" type="submit" ?disabled=${busy}>${busy ? this.#t('working') : this.#t('continue')}</button>
        </div>
      </form>`;
  }

  #copyButton(text: string, id: string, label: Key): TemplateResult {
    return html`<button type="button" class="g c" part="button secondary copy-button" aria-label=${this.#t(label, { v: text })}
      @click=${() => this.#copy(text, id)}>${this._copied === id ? this.#t('copied') : this.#t('copy')}</button>`;
  }

  #renderDns(): TemplateResult {
    const d = this._domain!;
    return html`<h2 tabindex="-1">${this.#t('dnsTitle')}</h2>
      <p>${this.#t('dnsIntro', { zone: d.zone })}</p>
      <div class="t"><table part="records">
        <caption class="sr">${this.#t('records')}</caption>
        <thead><tr><th scope="col">${this.#t('type')}</th><th scope="col">${this.#t('name')}</th><th scope="col">${this.#t('value')}</th></tr></thead>
        <tbody>${d.dns_records.map((r, i) => html`<tr part="record">
          <td><code>${r.type}</code></td>
          <td><div class="cell"><code>${r.relative_name ?? r.name}</code>${this.#copyButton(r.relative_name ?? r.name, `n${i}`, 'copyName')}</div>
            <div class="m">${this.#t('fqdn', { name: r.name })}</div></td>
          <td><div class="cell"><code>${r.value}</code>${this.#copyButton(r.value, `v${i}`, 'copyValue')}</div></td>
        </tr>`)}</tbody>
      </table></div>
      ${this.#renderVerification(d)}
      <div class="row">
        <button part="button" type="button" @click=${() => { this.#goto(3); void this.#checkNow(); }}>${this.#t('added')}</button>
        <button part="button secondary" type="button" class="g" @click=${() => this.#restart()}>${this.#t('change')}</button>
      </div>`;
  }

  #hint(problem: { code: string; message: string }): string {
    if (problem.code === 'proxied_by_cdn' && /cloudflare/i.test(problem.message)) return this.#t('h_cloudflare');
    if (problem.code.startsWith('challenge_') || problem.code === 'certificate_refused') return this.#t('h_certificate');
    return this.#t(keyFor('h_', problem.code) ?? 'h_other');
  }

  #time(iso: string): string {
    return new Intl.DateTimeFormat(this.#lang, { timeStyle: 'medium' }).format(new Date(iso));
  }

  #records(list: DnsRecord[] | null): string {
    return list && list.length ? list.map((r) => `${r.type} ${r.value}`).join(', ') : '—';
  }

  #renderVerification(d: WidgetDomain): TemplateResult {
    const v = d.verification;
    return html`<section part="verification" aria-labelledby="vt">
      <h3 id="vt">${this.#t('checkTitle')}</h3>
      ${v.checked_at === null ? html`<p class="m">${this.#t('notChecked')}</p>` : html`
        <p class="m">${this.#t('checkedAt', { time: this.#time(v.checked_at) })}</p>
        ${v.problem ? html`<p part="hint">${this.#hint(v.problem)}</p>` : html`<p>${this.#t('dnsOk')}</p>`}
        <table>
          <tr><th scope="row">${this.#t('expected')}</th><td><code>${this.#records(v.expected.length ? v.expected : d.dns_records)}</code></td></tr>
          <tr><th scope="row">${this.#t('found')}</th><td><code>${this.#records(v.found)}</code></td></tr>
        </table>
`}
    </section>`;
  }

  #renderStatus(): TemplateResult {
    const d = this._domain!;
    const status = d.status;
    const terminal = TERMINAL.has(status);
    const tone = status === 'active' ? 'ok' : ['failed', 'suspended', 'deleted', 'deleting'].includes(status) ? 'bad' : '';
    const dnsOk = status === 'pending_certificate' || status === 'active';
    const stage = (ok: boolean, key: Key) => html`<li class=${ok ? 'ok' : ''}>${this.#t(key)}<span class="sr">, ${ok ? this.#t('done') : '…'}</span></li>`;
    const busy = this._busy === 'verify';
    return html`<h2 tabindex="-1">${this.#t('statusTitle')}</h2>
      <p><strong>${d.hostname}</strong></p>
      <div part="status">
        <span part="badge" class=${tone}>${terminal ? nothing : html`<span class="spin" aria-hidden="true"></span>`}${this.#t(keyFor('s_', status) ?? 's_pending_dns')}</span>
        <p>${this.#t(statusTextKey(status), { host: d.hostname })}</p>
        <ul>${stage(dnsOk, 'stage1')}${stage(status === 'active', 'stage2')}${stage(status === 'active', 'stage3')}</ul>
        ${d.verification.problem && !terminal ? html`<p part="hint">${this.#hint(d.verification.problem)}</p>` : nothing}
        <p class="m">${this.#t('updatedAt', { time: this.#time(d.verification.checked_at ?? d.updated_at) })}</p>
      </div>
      <div class="row">
        ${terminal ? nothing : html`<button part="button" type="button" ?disabled=${busy} @click=${() => this.#checkNow()}>${busy ? this.#t('checking') : this.#t('checkNow')}</button>`}
        ${status === 'active' ? html`<a href="https://${d.hostname}" target="_blank" rel="noopener noreferrer">${this.#t('visit', { host: d.hostname })}</a>` : nothing}
        <button part="button secondary" type="button" class="g" @click=${() => this.#goto(2)}>${this.#t('back')}</button>
      </div>`;
  }
}
