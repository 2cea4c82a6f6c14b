import { PageList } from '../pagination.ts';
import { type ReadOptions, type Request, type Transport, type WithResponse } from '../transport.ts';
import type { ListParams } from '../types.ts';
export declare abstract class Resource {
    protected readonly transport: Transport;
    constructor(transport: Transport);
    /** A single resource: the answer's `data`, with `lastResponse`. */
    protected one<T>(req: Request): Promise<WithResponse<T>>;
    /** A lazy list over `path` with `params` (whose `cursor`, if any, is where it starts). */
    protected pages<T, P extends ListParams>(path: string, params: P | undefined, options: ReadOptions | undefined): PageList<T>;
}
/** `/v1/<collection>/<id>` with the id checked and percent-encoded. */
export declare function pathOf(collection: string, id: unknown, suffix?: string): string;
