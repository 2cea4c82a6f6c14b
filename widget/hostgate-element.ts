// Base class of Hostgate's elements: `emit` dispatches a typed CustomEvent that bubbles and is
// composed by default (it crosses the shadow boundary to the host page), as Shoelace's does.
import { LitElement } from 'lit';
import type { ServiceWidgetEventMap } from './events.ts';

type DetailOf<K extends keyof ServiceWidgetEventMap> = ServiceWidgetEventMap[K] extends CustomEvent<infer D> ? D : never;

export class HostgateElement extends LitElement {
  emit<K extends keyof ServiceWidgetEventMap>(name: K, detail: DetailOf<K>): CustomEvent<DetailOf<K>> {
    const event = new CustomEvent(name, { bubbles: true, composed: true, detail });
    this.dispatchEvent(event);
    return event;
  }
}
