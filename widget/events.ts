// The DOM events of <service-widget> (spec section 6, "Widget browser events"). All bubble and are
// composed, so a listener on the element, or on any ancestor outside its shadow root, hears them.

// `hostname` is the name as DNS knows it (punycode for an internationalised name, as in webhooks
// and the server API); `hostname_unicode` is the same name as the customer typed it.
export interface ServiceCreatedDetail { id: string; hostname: string; hostname_unicode: string }
export interface ServiceStatusDetail { id: string; status: string; hostname: string; hostname_unicode: string }
export interface ServiceErrorDetail { code: string; message: string }

export interface ServiceWidgetEventMap {
  'service:created': CustomEvent<ServiceCreatedDetail>;
  'service:status': CustomEvent<ServiceStatusDetail>;
  'service:error': CustomEvent<ServiceErrorDetail>;
}

declare global {
  // Typed listeners: el.addEventListener('service:status', (e) => e.detail.status)
  interface HTMLElementEventMap extends ServiceWidgetEventMap {}
}
