/**
 * <service-widget>: lets a vendor's customer connect their own domain in three steps (hostname,
 * DNS records, live HTTPS status) without the vendor's API key ever reaching the browser. The class
 * only; service-widget.ts registers the tag. On load (and when `token` changes) it lists the
 * customer's domains and returns to the step the latest one is at.
 *
 * Attributes: token (widget session token), api-base (API origin; default: where this script was
 * built for, else where it was loaded from), lang (en, fr), demo (local deterministic data, no
 * network at all).
 *
 * @event service:created - {id, hostname, hostname_unicode} after the domain is created
 * @event service:status  - {id, status, hostname, hostname_unicode} after creation, after a resume and whenever the status changes
 * @event service:error   - {code, message} on an error; code is stable, message safe to show. Setup
 *   mistakes (missing_token, invalid_widget_token, origin_forbidden, destination_not_found) also
 *   log what to fix on the console.
 *
 * @cssprop --svc-primary       - accent: buttons, current step, links (default #635bff; dark #a5a0ff)
 * @cssprop --svc-on-primary    - text on the accent (default #ffffff; dark #17181f)
 * @cssprop --svc-background    - surface (default #ffffff; dark #17181f)
 * @cssprop --svc-color         - text (default #111827; dark #eceef4)
 * @cssprop --svc-muted         - secondary text (default: 70% text on the surface)
 * @cssprop --svc-border        - borders and separators (default: 20% text on the surface)
 * @cssprop --svc-danger        - errors (default #b42318; dark #ff9c94)
 * @cssprop --svc-success       - done marks, the active badge (default #067647; dark #5fe0a0)
 * @cssprop --svc-focus-ring    - keyboard focus outline (default: the accent)
 * @cssprop --svc-border-radius - corner radius (default 14px)
 *
 * @csspart base - the card
 * @csspart steps - the step indicator
 * @csspart form - hostname entry
 * @csspart label - the hostname label
 * @csspart input - the hostname field
 * @csspart button - every button (secondary ones also `secondary`)
 * @csspart error - error messages
 * @csspart records - the DNS records list
 * @csspart record - one DNS record (a card)
 * @csspart copy-button - copy buttons
 * @csspart verification - the last DNS check (found vs expected)
 * @csspart hint - what to fix
 * @csspart tracks - a zero-downtime move's ownership and certificate tracks (while DNS points elsewhere)
 * @csspart status - the HTTPS status panel
 * @csspart badge - the status badge
 * @csspart link - the link to the live site
 * @csspart domains - the customer's other domains (step 1)
 * @csspart live - the screen-reader live region
 */
import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { httpApi, newIdempotencyKey, WidgetApiError, type DnsRecord, type Track, type WidgetApi, type WidgetDomain } from './api.ts';
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
/** Polling after failures backs off up to this. */
const MAX_BACKOFF_MS = 60_000;
/** decisions.md: polling stops at these. */
const TERMINAL = new Set(['active', 'failed', 'deleted', 'suspended']);
/** Mistakes of the vendor's integration: the customer cannot fix them, the console says what to do. */
const SETUP_ERRORS = new Set(['missing_token', 'invalid_widget_token', 'origin_forbidden', 'destination_not_found']);
/** Errors a new token can cure: polling pauses on them and resumes when `token` changes. */
const TOKEN_ERRORS = new Set([...SETUP_ERRORS, 'widget_token_expired', 'widget_domain_not_found']);
/** Codes the element reports as they are (spec section 7, and rate_limited); others become widget_request_failed. */
const EVENT_CODES = new Set([...TOKEN_ERRORS, 'domain_conflict', 'widget_request_failed', 'rate_limited']);
/** Errors that a later successful call makes obsolete. */
const PASSING = new Set(['network', 'rate_limited', 'widget_request_failed']);

type Step = 1 | 2 | 3;

/** A hostname or DNS value that may wrap only between labels (after a dot), never inside one. */
export const host = (name: string) => name.split('.').map((label, i, all) => i < all.length - 1
  ? html`<span class="l">${label}.</span><wbr>` : html`<span class="l">${label}</span>`);

export class ServiceWidget extends HostgateElement {
  static override styles = styles;
  static override properties = {
    token: { type: String },
    apiBase: { type: String, attribute: 'api-base' },
    lang: { type: String },
    demo: { type: Boolean },
    _step: { state: true },
    _domain: { state: true },
    _list: { state: true },
    _left: { state: true },
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
  /** The customer's domains (from the API), for going back to one from step 1. */
  declare _list: WidgetDomain[];
  /** The hostname left behind by "Use another domain", said to be kept. */
  declare _left: string;
  declare _busy: '' | 'create' | 'verify';
  declare _error: { code: string; message: string } | null;
  declare _inputError: string | null;
  declare _announcement: string;
  /** The copy button that just succeeded, or failed (prefixed with '!'). */
  declare _copied: string;

  readonly _poll: PollingController;
  _demoApi: WidgetApi | null = null;
  _draft = '';
  _focusStep = false;
  _hadFocus = false;
  _failures = 0;
  _copiedTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.demo = false;
    this._step = 1;
    this._domain = null;
    this._list = [];
    this._left = '';
    this._busy = '';
    this._error = null;
    this._inputError = null;
    this._announcement = '';
    this._copied = '';
    this._poll = new PollingController(this, {
      task: (signal) => this._pollOnce(signal),
      interval: () => (this.demo ? DEMO_INTERVAL_MS : POLL_INTERVAL_MS),
    });
  }

  /** The polling state (idle, running, paused, stopped); for hosts and tests. */
  get pollState() {
    return this._poll.state;
  }

  get _lang(): Lang {
    return langOf(this.lang);
  }

  _t(key: Key, vars?: Record<string, string | number>): string {
    return format(this._lang, key, vars);
  }

  _api(): WidgetApi {
    if (this.demo) return (this._demoApi ??= demoApi());
    const built = typeof __HOSTGATE_API_ORIGIN__ === 'string' ? __HOSTGATE_API_ORIGIN__ : '';
    return httpApi(this.apiBase || built || new URL(import.meta.url).origin, this.token ?? '');
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this._copiedTimer);
  }

  protected override willUpdate(): void {
    this._hadFocus = !!this.shadowRoot?.activeElement;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('token')) void this._resume();
    // A new step, or the focused control went away (e.g. "Check now" once HTTPS is active):
    // focus the heading, or the link to the live site when there is one, never <body>.
    const root = this.renderRoot as ShadowRoot;
    if (this._focusStep || (this._hadFocus && !root.activeElement)) {
      ((!this._focusStep && root.querySelector('a')) || root.querySelector('h2'))?.focus();
      this._focusStep = false;
    }
  }

  // ---- Actions -------------------------------------------------------------------------------

  /** Returns to where the customer was: their latest domain's step (on load and on a new token). */
  async _resume(): Promise<void> {
    const token = this.token;
    if (this.demo || !token) return;
    const before = this._domain;
    try {
      const list = await this._retrying(() => this._api().list());
      if (token !== this.token) return; // superseded by a newer token
      this._clearError(true);
      const known = new Set(this._list.map((d) => d.id));
      this._list = [...this._list, ...list.filter((d) => !known.has(d.id))];
      if (this._domain !== before) return; // the customer moved on meanwhile: stay there
      const current = this._domain;
      // The newest domain, unless it is on its way out.
      const next = current ? list.find((d) => d.id === current.id) : this._left || this._draft ? null : list.find((d) => d.status !== 'deleting');
      // Not on load: never move the page's focus into the element unasked.
      if (current && !next) this._restart(true);
      else if (next) this._open(next, !!current);
    } catch (error) {
      if (this._failed(error) === 'pause') this._poll.pause();
    }
  }

  /** Shows a domain at its step and follows it. */
  _open(domain: WidgetDomain, focus = true): void {
    const same = this._domain?.id === domain.id;
    this._apply(domain);
    if (!same) this._goto(domain.status === 'pending_dns' ? 2 : 3, focus);
    if (TERMINAL.has(domain.status)) this._poll.stop();
    else this._poll.start();
  }

  async _submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this._busy) return;
    const check = checkHostname(this._draft);
    if (!check.ok) {
      this._inputError = this._t(reasonKey(check.reason));
      this.renderRoot.querySelector('input')?.focus();
      return;
    }
    this._inputError = null;
    this._error = null;
    if (!this.demo && !this.token) {
      this._fail(new WidgetApiError('missing_token', 'the token attribute is empty: set it to the token of POST /v1/widget-sessions', 401));
      return;
    }
    const typed = this._draft.trim().toLowerCase().replace(/\.$/, '');
    const key = newIdempotencyKey(); // one per user action, reused by the retries below
    this._busy = 'create';
    try {
      const { domain, created } = await this._retrying(() => this._api().create(check.hostname, key, typed));
      this._error = null;
      this._domain = null;
      this._left = '';
      this._list = [domain, ...this._list.filter((d) => d.id !== domain.id)];
      if (created) this.emit('service:created', { id: domain.id, hostname: domain.hostname, hostname_unicode: domain.hostname_unicode });
      this._open(domain);
    } catch (error) {
      this._fail(error);
    } finally {
      this._busy = '';
    }
  }

  async _checkNow(): Promise<void> {
    const domain = this._domain;
    if (!domain || this._busy) return;
    const key = newIdempotencyKey();
    this._busy = 'verify';
    try {
      const next = await this._retrying(() => this._api().verify(domain.id, key));
      this._clearError(true);
      this._open(next);
    } catch (error) {
      if (this._failed(error) === 'pause') this._poll.pause();
    } finally {
      this._busy = '';
    }
  }

  async _pollOnce(signal: AbortSignal): Promise<PollOutcome> {
    const domain = this._domain;
    if (!domain) return 'stop';
    try {
      const next = await this._api().get(domain.id, signal);
      this._failures = 0;
      this._clearError();
      this._apply(next);
      return TERMINAL.has(next.status) ? 'stop' : 'continue';
    } catch (error) {
      return this._failed(error, true);
    }
  }

  /** "Use another domain" (or a token of another customer: `quiet`). The domain stays, listed in step 1. */
  _restart(quiet = false): void {
    const d = this._domain;
    this._poll.stop();
    if (d && !quiet) {
      this._left = d.hostname_unicode;
      if (!this._list.some((x) => x.id === d.id)) this._list = [d, ...this._list];
    }
    this._domain = null;
    this._error = null;
    this._goto(1, !quiet);
  }

  async _copy(text: string, id: string, button: HTMLElement): Promise<void> {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      // No clipboard (permission refused, insecure page): select the text for a manual copy.
      const code = button.previousElementSibling;
      if (code) getSelection()?.selectAllChildren(code);
    }
    this._announcement = this._t(ok ? 'copied' : 'copyFailed');
    this._copied = ok ? id : `!${id}`;
    clearTimeout(this._copiedTimer);
    this._copiedTimer = setTimeout(() => { this._copied = ''; }, ok ? 2000 : 6000);
  }

  // ---- State ---------------------------------------------------------------------------------

  _apply(next: WidgetDomain): void {
    const previous = this._domain;
    this._domain = next;
    this._list = this._list.map((d) => (d.id === next.id ? next : d));
    if (previous?.id === next.id && previous.status === next.status) return;
    this.emit('service:status', { id: next.id, status: next.status, hostname: next.hostname, hostname_unicode: next.hostname_unicode });
    this._announcement = this._t('statusIs', { status: this._t(keyFor('s_', next.status) ?? 's_pending_dns') });
    if (this._step === 2 && next.status !== 'pending_dns') this._goto(3);
  }

  _goto(step: Step, focus = true): void {
    this._step = step;
    this._focusStep = focus;
  }

  /** A call succeeded: errors it disproves go (`all`: also those a new token cures). */
  _clearError(all = false): void {
    const code = this._error?.code ?? '';
    if (PASSING.has(code) || (all && TOKEN_ERRORS.has(code))) this._error = null;
  }

  /** Retries a call after network failures and 5xx, with the same Idempotency-Key: after 1 s, then 3 s. */
  async _retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof WidgetApiError) || !error.transient || attempt >= 3 || this.demo) throw error;
        this._error = { code: 'network', message: this._t('e_retrying') };
        await new Promise((r) => setTimeout(r, 1000 * 3 ** (attempt - 1)));
      }
    }
  }

  /** Reports a failed call and says what polling should do about it. */
  _failed(error: unknown, polling = false): PollOutcome {
    if ((error as Error)?.name === 'AbortError') return 'continue';
    const e = error instanceof WidgetApiError ? error : new WidgetApiError('widget_request_failed', String(error));
    if (polling && e.code === 'rate_limited') return { retryAfterMs: e.retryAfter * 1000 };
    if (polling && e.transient) {
      // Polling goes on, backing off: say so once per outage.
      const backoff = { retryAfterMs: Math.min(MAX_BACKOFF_MS, POLL_INTERVAL_MS * 2 ** this._failures++) };
      if (this._error?.code !== 'network') this._fail(e, true);
      return backoff;
    }
    this._fail(e);
    return TOKEN_ERRORS.has(e.code) ? 'pause' : 'continue';
  }

  /** Shows an error and emits service:error (`retrying`: polling will try again by itself). */
  _fail(error: unknown, retrying = false): void {
    const e = error instanceof WidgetApiError ? error : new WidgetApiError('widget_request_failed', String(error));
    const code = EVENT_CODES.has(e.code) ? e.code : 'widget_request_failed';
    let message = this._t(SETUP_ERRORS.has(code) ? 'e_setup' : keyFor('e_', code) ?? 'e_widget_request_failed');
    if (e.transient) message = this._t(retrying ? 'e_retrying' : 'e_network');
    // For the vendor: what to change in the integration (the API's words, or the element's).
    if (SETUP_ERRORS.has(code)) console.error(`<service-widget> ${code}: ${e.message}`);
    // The server refused the hostname: show why, in the customer's language, next to the field.
    if (e.reason && this._step === 1) {
      this._inputError = this._t(reasonKey(e.reason));
      message = this._inputError;
    } else {
      this._error = { code: e.transient ? 'network' : code, message };
    }
    this.emit('service:error', { code, message });
  }

  // ---- Rendering -----------------------------------------------------------------------------

  override render(): TemplateResult {
    const step = this._step;
    const active = this._domain?.status === 'active' && step === 3;
    const body = step === 1 ? this._renderEntry() : step === 2 ? this._renderDns() : this._renderStatus();
    return html`<div part="base" lang=${this._lang}>
      ${this.demo ? html`<p class="m">${this._t('demo')}</p>` : nothing}
      <ol part="steps" aria-label=${this._t('steps')}>
        ${([1, 2, 3] as const).map((n) => {
          const done = n < step || active;
          return html`<li class=${done ? 'on d' : n === step ? 'on' : ''} aria-current=${n === step ? 'step' : nothing}>${this._t(`step${n}` as Key)}${done ? html`<span class="sr">, ${this._t('done')}</span>` : nothing}</li>`;
        })}
      </ol>
      ${body}
      ${this._error ? html`<p part="error" role="alert">${this._error.message}</p>` : nothing}
      <div class="sr" role="status" part="live">${this._announcement}</div>
    </div>`;
  }

  _badge(status: string): TemplateResult {
    const tone = status === 'active' ? 'ok' : ['failed', 'suspended', 'deleted', 'deleting'].includes(status) ? 'bad' : '';
    return html`<span part="badge" class=${tone}>${TERMINAL.has(status) ? nothing : html`<span class="spin" aria-hidden="true"></span>`}${this._t(keyFor('s_', status) ?? 's_pending_dns')}</span>`;
  }

  _renderEntry(): TemplateResult {
    const error = this._inputError;
    const busy = this._busy === 'create';
    const others = this._list;
    return html`<h2 tabindex="-1">${this._t('title')}</h2>
      ${this._left ? html`<p><strong>${host(this._left)}</strong> ${this._t('kept')}</p>` : nothing}
      <form part="form" novalidate @submit=${(e: Event) => this._submit(e)}>
        <label part="label" for="hostname">${this._t('hostnameLabel')}</label>
        <p class="m" id="hint">${this._t('hostnameHint')}</p>
        <input part="input" id="hostname" name="hostname" type="text" inputmode="url" autocomplete="off"
          autocapitalize="none" spellcheck="false" .value=${this._draft} aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? 'hint herr' : 'hint'} @input=${(e: Event) => { this._draft = (e.target as HTMLInputElement).value; }}>
        ${error ? html`<p part="error" id="herr" role="alert">${error}</p>` : nothing}
        <div class="row">
          <button part="button" type="submit" aria-disabled=${busy}>${busy ? this._t('working') : this._t('continue')}</button>
        </div>
      </form>
      ${others.length ? html`<section part="domains" aria-labelledby="yd"><h3 id="yd">${this._t('yours')}</h3>
        <ul>${others.map((d) => html`<li><button type="button" class="g" part="button secondary" @click=${() => this._open(d)}>
          <span>${host(d.hostname_unicode)}</span>${this._badge(d.status)}</button></li>`)}</ul></section>` : nothing}`;
  }

  _copyButton(text: string, id: string, label: Key): TemplateResult {
    const state = this._copied === id ? 'copied' : this._copied === `!${id}` ? 'copyFailed' : '';
    return html`<button type="button" class="g c ${state === 'copyFailed' ? 'x' : ''}" part="button secondary copy-button" aria-label=${this._t(label, { v: text })}
      @click=${(e: Event) => this._copy(text, id, e.currentTarget as HTMLElement)}>${this._t(state || 'copy')}</button>`;
  }

  /** The records to set, as cards (stacked on narrow widths, in three columns on wide ones). */
  _renderRecords(d: WidgetDomain): TemplateResult {
    return html`<ul part="records" aria-label=${this._t('records')}>${d.dns_records.map((r, i) => {
      const name = r.relative_name ?? r.name;
      // The names as typed; DNS itself needs punycode, shown beside and copied.
      const unicode = name === '@' ? name : r.name === d.hostname ? d.hostname_unicode.slice(0, name === r.name ? undefined : -d.zone_unicode.length - 1) : name;
      return html`<li part="record"><dl>
        <div><dt>${this._t('type')}</dt><dd><code>${r.type}</code></dd></div>
        <div><dt>${this._t('name')}</dt><dd><code>${host(unicode)}</code>${this._copyButton(name, `n${i}`, 'copyName')}
          ${unicode === name ? nothing : html`<small class="m">${this._t('dnsForm')} <code>${host(name)}</code></small>`}
          <small class="m">${this._t('fullName')} ${host(r.name === d.hostname ? d.hostname_unicode : r.name)}</small></dd></div>
        <div><dt>${this._t('value')}</dt><dd><code>${host(r.value)}</code>${this._copyButton(r.value, `v${i}`, 'copyValue')}</dd></div>
      </dl></li>`;
    })}</ul>`;
  }

  _renderDns(): TemplateResult {
    const d = this._domain!;
    return html`<h2 tabindex="-1">${this._t('dnsTitle')}</h2>
      <p>${this._t('dnsIntro')} <strong>${host(d.zone_unicode)}</strong></p>
      ${this._renderRecords(d)}
      ${this._renderVerification(d)}
      <div class="row">
        <button part="button" type="button" @click=${() => { this._goto(3); void this._checkNow(); }}>${this._t('added')}</button>
        <button part="button secondary" type="button" class="g" @click=${() => this._restart()}>${this._t('change')}</button>
      </div>`;
  }

  /**
   * A zero-downtime move (the service has it on): ownership and certificate, each with its state
   * and what blocks it, so the customer knows when switching the first record loses no traffic.
   */
  _tracks({ ownership: o, certificate: c }: WidgetDomain): TemplateResult | typeof nothing {
    const line = (label: Key, t: Track, ok: boolean) => html`<li>${this._t(label)}: ${this._t(ok ? 't_ok' : t.status === 'issued' ? 't_issued' : 't_wait')}${t.problem ? html`<p part="hint">${this._hint(t.problem)}</p>` : nothing}</li>`;
    return o && c && o.status !== 'not_required' ? html`<ul part="tracks">${line('o_label', o, o.status === 'verified')}${line('c_label', c, c.status === 'deployed')}</ul>` : nothing;
  }

  _hint(problem: { code: string; message: string }): string {
    // A move's limits (docs/zero-downtime-moves.md); its other codes get the generic hint.
    if (problem.code.endsWith('_limit')) return this._t('e_rate_limited');
    if (problem.code === 'proxied_by_cdn' && /cloudflare/i.test(problem.message)) return this._t('h_cloudflare');
    if (problem.code.startsWith('challenge_') || problem.code === 'certificate_refused') return this._t('h_certificate');
    return this._t(keyFor('h_', problem.code) ?? 'h_other');
  }

  _time(iso: string): string {
    return new Intl.DateTimeFormat(this._lang, { timeStyle: 'medium' }).format(new Date(iso));
  }

  _found(list: DnsRecord[] | null): TemplateResult | string {
    return list?.length ? html`${list.map((r, i) => html`${i ? ', ' : ''}${r.type} ${host(r.value)}`)}` : '—';
  }

  _renderVerification(d: WidgetDomain): TemplateResult {
    const v = d.verification;
    return html`<section part="verification" aria-labelledby="vt">
      <h3 id="vt">${this._t('checkTitle')}</h3>
      ${v.checked_at === null ? html`<p class="m">${this._t('notChecked')}</p>` : html`
        <p class="m">${this._t('checkedAt', { time: this._time(v.checked_at) })}</p>
        ${v.problem ? html`<p part="hint">${this._hint(v.problem)}</p>` : html`<p>${this._t('dnsOk')}</p>`}
        <table>
          <tr><th scope="row">${this._t('expected')}</th><td><code>${this._found(v.expected.length ? v.expected : d.dns_records)}</code></td></tr>
          <tr><th scope="row">${this._t('found')}</th><td><code>${this._found(v.found)}</code></td></tr>
        </table>
`}
    </section>`;
  }

  _renderStatus(): TemplateResult {
    const d = this._domain!;
    const status = d.status;
    const terminal = TERMINAL.has(status);
    const dnsOk = status === 'pending_certificate' || status === 'active';
    const stage = (ok: boolean, key: Key) => html`<li class=${ok ? 'd' : ''}>${this._t(key)}<span class="sr">, ${ok ? this._t('done') : '…'}</span></li>`;
    const busy = this._busy === 'verify';
    return html`<h2 tabindex="-1">${this._t('statusTitle')}</h2>
      <p><strong>${host(d.hostname_unicode)}</strong></p>
      <div part="status">
        ${this._badge(status)}
        <p>${this._t(statusTextKey(status))}</p>
        <ul class="st">${stage(dnsOk, 'stage1')}${stage(status === 'active', 'stage2')}${stage(status === 'active', 'stage3')}</ul>
        ${status === 'pending_dns' ? this._renderRecords(d) : nothing}
        ${status === 'pending_dns' ? this._tracks(d) : nothing}
        ${d.verification.problem && !terminal ? html`<p part="hint">${this._hint(d.verification.problem)}</p>` : nothing}
        <p class="m">${this._t('updatedAt', { time: this._time(d.verification.checked_at ?? d.updated_at) })}</p>
      </div>
      <div class="row">
        ${terminal ? nothing : html`<button part="button" type="button" aria-disabled=${busy} @click=${() => this._checkNow()}>${busy ? this._t('checking') : this._t('checkNow')}</button>`}
        ${status === 'active' ? html`<a part="link" href="https://${d.hostname}" target="_blank" rel="noopener noreferrer">${this._t('visit')} <span>https://${host(d.hostname_unicode)}</span></a>` : nothing}
        <button part="button secondary" type="button" class="g" @click=${() => this._goto(2)}>${this._t('back')}</button>
      </div>`;
  }
}
