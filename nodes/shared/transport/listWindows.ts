import type { IDataObject } from 'n8n-workflow';

/** What a list read is asked for, and where its windows lie: `(page − 1) × limit` is where the service starts a page. */

export interface ReadOptions {
	/** At most this many records (Get Many's Limit). */
	limit?: number;
	/**
	 * A read that goes on where an earlier one stopped (a poll cut short): at the offset it reached, from the last record
	 * it read (`after`, as `identify` gives it) and the total its answer gave, or the read starts over.
	 */
	goOnAt?: { offset: number; after: string; total?: number };
	/** The read goes on to the list's end or the Limit, so windows may be asked before their turn (pagedList.ts, rule 7). */
	readAhead?: boolean;
}

/** A window as the service answered it: its records in the list's order, where it starts, and its `Date`. */
export interface ReadWindow {
	records: IDataObject[];
	offset: number;
	answeredAt?: number;
}

/** A window of the list: `limit` records from `offset`, asked for as `page`. */
export interface Window {
	page: number;
	limit: number;
	offset: number;
}

/** Whether two windows are the same request (`page` and `limit`). */
export function sameWindow(one: Window, other: Window): boolean {
	return one.page === other.page && one.limit === other.limit;
}

/**
 * The window of at most `size` records (and at least half as many) that starts at or before `end - 1` — so it overlaps
 * what was read up to `end` — and reaches furthest. `(page - 1) × limit` must land at or before `end - 1`.
 */
export function overlappingWindow(end: number, size: number): Window {
	let best: Window = { page: 1, limit: size, offset: 0 };
	for (let limit = size; limit >= Math.ceil(size / 2); limit--) {
		const page = Math.floor(Math.max(0, end - 1) / limit) + 1;
		const offset = (page - 1) * limit;
		if (offset + limit > best.offset + best.limit) best = { page, limit, offset };
	}
	return best;
}
