export class PageList {
    #fetchPage;
    #cursor;
    #options;
    constructor(fetchPage, cursor, options) {
        this.#fetchPage = fetchPage;
        this.#cursor = cursor;
        this.#options = options;
    }
    /** The first page (from `cursor` when one was given): one request. */
    firstPage() {
        return this.#fetchPage(this.#cursor, this.#options);
    }
    /** Every page in turn, newest first, until `has_more` is false. */
    async *[Symbol.asyncIterator]() {
        let cursor = this.#cursor;
        for (;;) {
            const page = await this.#fetchPage(cursor, this.#options);
            yield page;
            if (!page.has_more || !page.next_cursor)
                return;
            cursor = page.next_cursor;
        }
    }
    /** Every item of every page in turn. */
    async *items() {
        for await (const page of this)
            yield* page.data;
    }
    /** The items of all pages in one array, refusing to collect more than `max` (default 10 000). */
    async toArray(max = 10_000) {
        const out = [];
        for await (const item of this.items()) {
            if (out.length >= max)
                throw new RangeError(`the list has more than ${max} items; iterate it instead, or raise the limit`);
            out.push(item);
        }
        return out;
    }
}
