// What every resource does with the transport: unwrap `{data}`, attach the response metadata,
// build list pagers, and put ids into paths safely.
import { PageList, type Page } from '../pagination.ts';
import { attachResponse, type ReadOptions, type Request, type Transport, type WithResponse } from '../transport.ts';
import type { ListParams, PageBody } from '../types.ts';

export abstract class Resource {
  protected readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }

  /** A single resource: the answer's `data`, with `lastResponse`. */
  protected async one<T>(req: Request): Promise<WithResponse<T>> {
    const { body, meta } = await this.transport.request<{ data: T }>(req);
    return attachResponse(body.data, meta);
  }

  /** A lazy list over `path` with `params` (whose `cursor`, if any, is where it starts). */
  protected pages<T, P extends ListParams>(path: string, params: P | undefined, options: ReadOptions | undefined): PageList<T> {
    const { cursor, ...rest } = (params ?? {}) as P;
    return new PageList<T>(async (at, opts) => {
      const { body, meta } = await this.transport.request<PageBody<T>>({ method: 'GET', path, query: { ...(rest as Record<string, string | number | undefined>), cursor: at }, options: opts });
      return attachResponse(body, meta) as Page<T>;
    }, cursor, options);
  }
}

/** `/v1/<collection>/<id>` with the id checked and percent-encoded. */
export function pathOf(collection: string, id: unknown, suffix = ''): string {
  if (typeof id !== 'string' || id.length === 0) throw new TypeError(`expected an id string for ${collection}, got ${JSON.stringify(id)}`);
  return `/v1/${collection}/${encodeURIComponent(id)}${suffix}`;
}
