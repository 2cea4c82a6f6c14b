/**
 * <service-widget>: lets a vendor's customer connect their own domain in three steps (hostname,
 * DNS records, live HTTPS status) without the vendor's API key ever reaching the browser. The class
 * only: service-widget.ts registers the tag, service-widget.views.ts holds the templates. On load
 * (and when `token` changes) it lists the customer's domains and returns to the step the latest one
 * is at.
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
import type { PropertyValues, TemplateResult } from 'lit';
// First among the element's modules: it brings Lit into the bundle ahead of them, which gzips
// ≈80 B smaller than Lit after api.ts (the script has a 16 KiB budget, widget/build.ts).
import { TERMINAL, widget, type Step, type WidgetView } from './service-widget.views.ts';
import { httpApi, newIdempotencyKey, WidgetApiError, type WidgetApi, type WidgetDomain } from './api.ts';
import { demoApi } from './demo.ts';
import { checkHostname } from './hostname.ts';
import { HostgateElement } from './hostgate-element.ts';
import { format, keyFor, langOf, reasonKey, type Key, type Lang } from './localize.ts';
import { PollingController, type PollOutcome } from './polling-controller.ts';
import { styles } from './styles.ts';
export { host } from './service-widget.views.ts';

/** Set by widget/build.ts when the API lives elsewhere than the script. */
declare const __HOSTGATE_API_ORIGIN__: string | undefined;

/** Spec: the widget polls GET /widget/domains/{id} every 10 seconds. */
export const POLL_INTERVAL_MS = 10_000;
const DEMO_INTERVAL_MS = 3_000;
/** Polling after failures backs off up to this. */
const MAX_BACKOFF_MS = 60_000;
/** Mistakes of the vendor's integration: the customer cannot fix them, the console says what to do. */
const SETUP_ERRORS = new Set(['missing_token', 'invalid_widget_token', 'origin_forbidden', 'destination_not_found']);
/** Errors a new token can cure: polling pauses on them and resumes when `token` changes. */
const TOKEN_ERRORS = new Set([...SETUP_ERRORS, 'widget_token_expired', 'widget_domain_not_found']);
/** Codes the element reports as they are (spec section 7, and rate_limited); others become widget_request_failed. */
const EVENT_CODES = new Set([...TOKEN_ERRORS, 'domain_conflict', 'widget_request_failed', 'rate_limited']);
/** Errors that a later successful call makes obsolete. */
const PASSING = new Set(['network', 'rate_limited', 'widget_request_failed']);

export class ServiceWidget extends HostgateElement implements WidgetView {
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
      if (this._error?.code !== 'network') this._fail(e, true);
      return { retryAfterMs: Math.min(MAX_BACKOFF_MS, POLL_INTERVAL_MS * 2 ** this._failures++) };
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

  // ---- Rendering: service-widget.views.ts ----------------------------------------------------

  override render(): TemplateResult {
    return widget(this);
  }
}
