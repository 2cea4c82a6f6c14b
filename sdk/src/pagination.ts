// Lists are keyset-paginated: each page carries `has_more` and an opaque `next_cursor`, passed back
// as `cursor` for the next page. A `PageList` walks them lazily, one request per page:
//
//   for await (const page of hostgate.domains.list({ limit: 100 })) handle(page.data);
//   for await (const domain of hostgate.domains.list().items()) …;     // item by item
//   const page = await hostgate.domains.list({ limit: 10 }).firstPage(); // one page
//   const next = await hostgate.domains.list({ limit: 10, cursor: page.next_cursor! }).firstPage();
import type { PageBody } from './types.ts';
import type { ReadOptions, WithResponse } from './transport.ts';

export type Page<T> = WithResponse<PageBody<T>>;

export type PageFetcher<T> = (cursor: string | undefined, options: ReadOptions | undefined) => Promise<Page<T>>;

export class PageList<T> implements AsyncIterable<Page<T>> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #cursor: string | undefined;
  readonly #options: ReadOptions | undefined;

  constructor(fetchPage: PageFetcher<T>, cursor: string | undefined, options: ReadOptions | undefined) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
    this.#options = options;
  }

  /** The first page (from `cursor` when one was given): one request. */
  firstPage(): Promise<Page<T>> {
    return this.#fetchPage(this.#cursor, this.#options);
  }

  /** Every page in turn, newest first, until `has_more` is false. */
  async *[Symbol.asyncIterator](): AsyncIterator<Page<T>> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor, this.#options);
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** Every item of every page in turn. */
  async *items(): AsyncGenerator<T, void, undefined> {
    for await (const page of this) yield* page.data;
  }

  /** The items of all pages in one array, refusing to collect more than `max` (default 10 000). */
  async toArray(max = 10_000): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this.items()) {
      if (out.length >= max) throw new RangeError(`the list has more than ${max} items; iterate it instead, or raise the limit`);
      out.push(item);
    }
    return out;
  }
}
