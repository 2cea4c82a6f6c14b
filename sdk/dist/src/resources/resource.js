// What every resource does with the transport: unwrap `{data}`, attach the response metadata,
// build list pagers, and put ids into paths safely.
import { PageList } from "../pagination.js";
import { attachResponse } from "../transport.js";
export class Resource {
    constructor(transport) {
        this.transport = transport;
    }
    /** A single resource: the answer's `data`, with `lastResponse`. */
    async one(req) {
        const { body, meta } = await this.transport.request(req);
        return attachResponse(body.data, meta);
    }
    /** A lazy list over `path` with `params` (whose `cursor`, if any, is where it starts). */
    pages(path, params, options) {
        const { cursor, ...rest } = (params ?? {});
        return new PageList(async (at, opts) => {
            const { body, meta } = await this.transport.request({ method: 'GET', path, query: { ...rest, cursor: at }, options: opts });
            return attachResponse(body, meta);
        }, cursor, options);
    }
}
/** `/v1/<collection>/<id>` with the id checked and percent-encoded. */
export function pathOf(collection, id, suffix = '') {
    if (typeof id !== 'string' || id.length === 0)
        throw new TypeError(`expected an id string for ${collection}, got ${JSON.stringify(id)}`);
    return `/v1/${collection}/${encodeURIComponent(id)}${suffix}`;
}
