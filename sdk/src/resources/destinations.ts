import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { Destination, DestinationCreateParams, DestinationListParams, DestinationUpdateParams } from '../types.ts';
import { pathOf, Resource } from './resource.ts';

/** Your application's HTTPS origins (`https://host[:443|8443]`) that domains point at. */
export class Destinations extends Resource {
  /** POST /v1/destinations (scope destinations:write). */
  async create(params: DestinationCreateParams, options: WriteOptions): Promise<WithResponse<Destination>> {
    return this.one({ method: 'POST', path: '/v1/destinations', body: params, idempotencyKey: options?.idempotencyKey, options });
  }

  /** GET /v1/destinations: newest first. */
  list(params?: DestinationListParams, options?: ReadOptions): PageList<Destination> {
    return this.pages('/v1/destinations', params, options);
  }

  /** GET /v1/destinations/{id}. */
  async retrieve(id: string, options?: ReadOptions): Promise<WithResponse<Destination>> {
    return this.one({ method: 'GET', path: pathOf('destinations', id), options });
  }

  /** PATCH /v1/destinations/{id}: a new `url` (same rules as creation); its domains re-route within 2 s. */
  async update(id: string, params: DestinationUpdateParams, options: WriteOptions): Promise<WithResponse<Destination>> {
    return this.one({ method: 'PATCH', path: pathOf('destinations', id), body: params, idempotencyKey: options?.idempotencyKey, options });
  }

  /** DELETE /v1/destinations/{id}: refused with 409 `destination_in_use` while a domain points at it. */
  async delete(id: string, options: WriteOptions): Promise<WithResponse<Destination>> {
    return this.one({ method: 'DELETE', path: pathOf('destinations', id), idempotencyKey: options?.idempotencyKey, options });
  }
}
