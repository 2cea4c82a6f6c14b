// Styles of <service-widget>. The public styling interface is the `--svc-*` custom properties
// (documented with @cssprop in service-widget.component.ts; defaults on :host, so a page's own rule
// on the element wins, and a dark default theme under prefers-color-scheme) and the `::part`s.
// Every colour comes from one of those properties. Everything else is internal. Mobile first:
// the card's own width (a container query, not the viewport) decides the wide layout. Kept terse:
// it counts toward the script's 16 KiB budget.
import { css } from 'lit';

export const styles = css`
:host {
  --svc-primary: #635bff;
  --svc-on-primary: #ffffff;
  --svc-background: #ffffff;
  --svc-color: #111827;
  --svc-danger: #b42318;
  --svc-success: #067647;
  --svc-muted: color-mix(in srgb, var(--svc-color) 70%, var(--svc-background));
  --svc-border: color-mix(in srgb, var(--svc-color) 20%, var(--svc-background));
  --svc-focus-ring: var(--svc-primary);
  --svc-border-radius: 14px;
  --r: calc(var(--svc-border-radius) / 2);
  display: block;
  max-width: 44rem;
  container-type: inline-size;
  color: var(--svc-color);
  font: 15px/1.5 system-ui, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :host {
    --svc-primary: #a5a0ff;
    --svc-on-primary: #17181f;
    --svc-background: #17181f;
    --svc-color: #eceef4;
    --svc-danger: #ff9c94;
    --svc-success: #5fe0a0;
  }
}
[part~=base] { background: var(--svc-background); border: 1px solid var(--svc-border); border-radius: var(--svc-border-radius); padding: 1rem }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; outline: 0 }
p { margin: .5rem 0 }
h3 { font-size: 1rem; margin: 0 }
.m, th, dt { color: var(--svc-muted); font-size: .9rem }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap }
.l { display: inline-block; max-width: 100%; overflow-wrap: anywhere }
ol { display: flex; gap: .5rem; list-style: none; padding: 0; margin: 0 0 1rem; font-size: .85rem }
ol li { flex: 1; border-top: 3px solid var(--svc-border); color: var(--svc-muted); padding-top: .2rem }
ol .on { border-color: var(--svc-primary); color: inherit; font-weight: 600 }
.d:before { content: '✓ '; color: var(--svc-success); font-weight: 700 }
label { display: block; font-weight: 600 }
input, button, [part~=link] { font: inherit; border-radius: var(--r); padding: .5rem .75rem; border: 1px solid var(--svc-muted); max-width: 100%; box-sizing: border-box }
input { width: 100%; color: inherit; background: inherit }
[aria-invalid=true] { border-color: var(--svc-danger) }
[part~=error], .x { color: var(--svc-danger) }
button, [part~=link] { font-weight: 600; cursor: pointer; border-color: var(--svc-primary); background: var(--svc-primary); color: var(--svc-on-primary); text-align: center }
[part~=link] { text-decoration: none; display: inline-block }
.g { background: none; color: inherit; border-color: var(--svc-border) }
.g.x { color: var(--svc-danger) }
.c { padding: .1rem .5rem; font-size: .8rem; flex: none }
[aria-disabled=true] { cursor: progress }
:focus-visible { outline: 3px solid var(--svc-focus-ring); outline-offset: 2px }
.row { display: flex; gap: .5rem .75rem; flex-wrap: wrap; align-items: center; margin-top: 1rem }
table { width: 100%; border-collapse: collapse }
th, td { text-align: left; padding: .4rem; border-bottom: 1px solid var(--svc-border); vertical-align: top }
code { font: .9rem ui-monospace, monospace }
ul { list-style: none; padding: 0; margin: .5rem 0 }
[part~=records] { display: grid; gap: .5rem }
[part~=record] { border: 1px solid var(--svc-border); border-radius: var(--r); padding: .5rem .75rem }
dl { margin: 0; display: grid; gap: .4rem }
dd { margin: 0; display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .5rem }
dd code { flex: 1 1 auto; min-width: 0 }
dd small { flex-basis: 100% }
section, [part~=status] { border: 1px solid var(--svc-border); border-radius: var(--r); padding: .5rem .75rem; margin-top: 1rem }
[part~=hint] { font-weight: 600 }
[part~=badge] { display: inline-block; font-weight: 600; font-size: .85rem; padding: .1rem .6rem; border-radius: 1rem; background: color-mix(in srgb, var(--svc-primary) 14%, var(--svc-background)); color: var(--svc-color) }
.ok { background: color-mix(in srgb, var(--svc-success) 14%, var(--svc-background)) }
.bad { background: color-mix(in srgb, var(--svc-danger) 14%, var(--svc-background)) }
.spin { display: inline-block; width: .7em; height: .7em; margin-right: .4em; border: 2px solid; border-right-color: transparent; border-radius: 50%; animation: s 1s linear infinite }
@keyframes s { to { transform: rotate(1turn) } }
.st li:not(.d):before { content: '○ '; color: var(--svc-muted) }
[part~=domains] button { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: center; justify-content: space-between; width: 100%; text-align: left; margin-top: .5rem }
@container (min-width: 34rem) {
  [part~=base] { padding: 1.25rem 1.5rem }
  dl { grid-template-columns: 5rem 1fr 1fr; gap: 1rem }
}
@media (prefers-reduced-motion: reduce) { * { animation: none !important } }
`;
