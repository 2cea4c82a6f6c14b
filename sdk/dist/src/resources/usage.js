import { Resource } from "./resource.js";
/** The plan's usage in the current period (hostnames, overage estimate, bandwidth). */
export class Usage extends Resource {
    /** GET /v1/usage. */
    async retrieve(options) {
        return this.one({ method: 'GET', path: '/v1/usage', options });
    }
}
