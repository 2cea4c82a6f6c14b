// Styles of <service-widget>. The public styling interface is the four `--svc-*` custom properties
// (defaults on :host, so a page's own rule on the element wins) and the `::part`s listed in
// service-widget.component.ts. Everything else is internal. Kept terse: it counts toward the
// script's 15 KB budget.
import { css } from 'lit';

export const styles = css`
:host {
  --svc-primary: #635bff;
  --svc-background: #ffffff;
  --svc-color: #111827;
  --svc-border-radius: 14px;
  --l: color-mix(in srgb, var(--svc-color) 16%, var(--svc-background));
  --m: color-mix(in srgb, var(--svc-color) 72%, var(--svc-background));
  --r: calc(var(--svc-border-radius) / 2);
  display: block;
  max-width: 40rem;
  color: var(--svc-color);
  font: 15px/1.5 system-ui, sans-serif;
}
[part~=base] { background: var(--svc-background); border: 1px solid var(--l); border-radius: var(--svc-border-radius); padding: 1.25rem 1.5rem }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; outline: 0 }
p { margin: .5rem 0 }
h3 { font-size: 1rem; margin: 0 }
.m, th { color: var(--m); font-size: .9rem }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0) }
ol { display: flex; gap: .5rem; list-style: none; padding: 0; margin: 0 0 1rem }
ol li { flex: 1; border-top: 3px solid var(--l); color: var(--m) }
ol .on { border-color: var(--svc-primary); color: inherit; font-weight: 600 }
label { display: block; font-weight: 600 }
input, button { font: inherit; border-radius: var(--r); padding: .5rem .75rem; border: 1px solid var(--m) }
input { width: 100%; box-sizing: border-box; color: inherit; background: inherit }
[aria-invalid=true] { border-color: #b42318 }
[part~=error] { color: #b42318 }
button { font-weight: 600; cursor: pointer; border-color: var(--svc-primary); background: var(--svc-primary); color: #fff }
.g { background: none; color: inherit; border-color: var(--l) }
.c { padding: 0 .5rem; font-size: .8rem }
[disabled] { opacity: .65 }
:focus-visible { outline: 3px solid var(--svc-primary); outline-offset: 2px }
.row { display: flex; gap: .75rem; flex-wrap: wrap; align-items: center; margin-top: 1rem }
.t { overflow-x: auto }
table { width: 100%; border-collapse: collapse }
th, td { text-align: left; padding: .4rem; border-bottom: 1px solid var(--l) }
code { font: .9rem ui-monospace, monospace; overflow-wrap: anywhere }
td:first-child code { white-space: nowrap }
.cell { display: flex; gap: .5rem; justify-content: space-between }
section, [part~=status] { border: 1px solid var(--l); border-radius: var(--r); padding: .5rem 1rem; margin-top: 1rem }
[part~=hint] { font-weight: 600 }
[part~=badge] { font-weight: 600; padding: .1rem .6rem; border-radius: 1rem; background: #fffaeb; color: #93370d }
.ok { background: #ecfdf3; color: #05603a }
.bad { background: #fef3f2; color: #b42318 }
.spin { display: inline-block; width: .7em; height: .7em; margin-right: .4em; border: 2px solid; border-right-color: transparent; border-radius: 50%; animation: s 1s linear infinite }
@keyframes s { to { transform: rotate(1turn) } }
ul { list-style: none; padding: 0 }
ul li:before { content: '○ ' }
ul .ok { background: none }
ul .ok:before { content: '✓ ' }
@media (prefers-reduced-motion: reduce) { * { animation: none !important } }
`;
