import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { Destination, DestinationCreateParams, DestinationListParams, DestinationUpdateParams } from '../types.ts';
import { Resource } from './resource.ts';
/** Your application's HTTPS origins (`https://host[:443|8443]`) that domains point at. */
export declare class Destinations extends Resource {
    /** POST /v1/destinations (scope destinations:write). */
    create(params: DestinationCreateParams, options: WriteOptions): Promise<WithResponse<Destination>>;
    /** GET /v1/destinations: newest first. */
    list(params?: DestinationListParams, options?: ReadOptions): PageList<Destination>;
    /** GET /v1/destinations/{id}. */
    retrieve(id: string, options?: ReadOptions): Promise<WithResponse<Destination>>;
    /** PATCH /v1/destinations/{id}: a new `url` (same rules as creation); its domains re-route within 2 s. */
    update(id: string, params: DestinationUpdateParams, options: WriteOptions): Promise<WithResponse<Destination>>;
    /** DELETE /v1/destinations/{id}: refused with 409 `destination_in_use` while a domain points at it. */
    delete(id: string, options: WriteOptions): Promise<WithResponse<Destination>>;
}
