import type { PageBody } from './types.ts';
import type { ReadOptions, WithResponse } from './transport.ts';
export type Page<T> = WithResponse<PageBody<T>>;
export type PageFetcher<T> = (cursor: string | undefined, options: ReadOptions | undefined) => Promise<Page<T>>;
export declare class PageList<T> implements AsyncIterable<Page<T>> {
    #private;
    constructor(fetchPage: PageFetcher<T>, cursor: string | undefined, options: ReadOptions | undefined);
    /** The first page (from `cursor` when one was given): one request. */
    firstPage(): Promise<Page<T>>;
    /** Every page in turn, newest first, until `has_more` is false. */
    [Symbol.asyncIterator](): AsyncIterator<Page<T>>;
    /** Every item of every page in turn. */
    items(): AsyncGenerator<T, void, undefined>;
    /** The items of all pages in one array, refusing to collect more than `max` (default 10 000). */
    toArray(max?: number): Promise<T[]>;
}
