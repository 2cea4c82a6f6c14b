// The DOM events of <service-widget> (spec section 6, "Widget browser events"). All bubble and are
// composed, so a listener on the element, or on any ancestor outside its shadow root, hears them.

export interface ServiceCreatedDetail { id: string; hostname: string }
export interface ServiceStatusDetail { id: string; status: string }
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
