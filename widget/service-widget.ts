// The script a page loads (`{cdn_url}/widget/v1/service-widget.js`, as a module): registers
// <service-widget>. Importing the class alone (service-widget.component.ts) registers nothing.
import { ServiceWidget } from './service-widget.component.ts';

export { ServiceWidget };
export type { ServiceCreatedDetail, ServiceErrorDetail, ServiceStatusDetail } from './events.ts';

declare global {
  interface HTMLElementTagNameMap { 'service-widget': ServiceWidget }
}

if (!customElements.get('service-widget')) customElements.define('service-widget', ServiceWidget);
