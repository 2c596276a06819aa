import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { asObject, listIn } from '../helpers/values';
import { serviceRequest } from './serviceRequest';
import type { ServiceContext } from './session';

/**
 * Every list the node reads from the service, page by page. The service answers a list in one of two readings: the API
 * document's, a bare array of every match (`limit` cuts it); and the real service's, one page at a time, wrapped as
 * `{ data, total }` (`page` counted from 1, a small page when `limit` is absent, at most 100). Pages are asked for
 * with `page` and `limit` in both readings, one after the other, each an ordinary request (retries, Timeout, Stop
 * and the run's pace), and each record is given once, by `id`: the real service lists the newest first, so a record
 * that arrives while the list is read pushes the others one place on.
 *
 * Reading stops, in this order of checks on each page:
 * 1. the records wanted (a Limit) are in hand;
 * 2. the page is empty;
 * 3. the page brings no record not seen before: the service ignores `page`. A bare array is then asked for once more
 *    without `page`, which the API document's reading answers with every record;
 * 4. `total` is known (the newest page's) and as many records are in hand — or, without a `total`, the page holds
 *    fewer records than asked for;
 * 5. past MAX_PAGES pages, which ends in an error rather than a loop.
 */

/** Records asked for per page: the most the real service gives. */
export const PAGE_SIZE = 100;
/**
 * More pages than this (a million records at 100 a page, more than one n8n execution holds) are taken for a service
 * that never stops answering new records.
 */
export const MAX_PAGES = 10_000;

export interface ListRequest {
	/** Path below `/api/`, e.g. `registrations`. */
	path: string;
	/** The filters; `page` and `limit` are added. */
	qs?: IDataObject;
	/** The key a wrapped answer may hold its records under besides `data` and `items`, e.g. `registrations`. */
	resourceKey: string;
	/** What is listed, in words, for messages: "registrations for ann@example.com". */
	what: string;
	/** The list is not on every service (GET /api/forms): a 404 reads as `absent` instead of failing. */
	mayBeAbsent?: boolean;
}

/** A list as read from the service. */
export interface ListRead {
	/** Each record once, in the order the service listed them. */
	readonly records: IDataObject[];
	/** How many the service last said it holds, when it says. */
	readonly total: number | undefined;
	/** False when fewer records came back than `total` said, or the service repeated a full page without a total. */
	readonly complete: boolean;
	/** True when the answer held no list at all; `records` then holds that answer as one record. */
	readonly notAList: boolean;
	/** True when a list that `mayBeAbsent` is not on this service (it answered 404). */
	readonly absent: boolean;
}

interface Page {
	records: unknown[];
	total?: number;
	/** Whether the answer was wrapped (the real service's reading) rather than a bare array. */
	wrapped: boolean;
}

function wholeNumberIn(value: unknown): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** A list answer's records and total; `undefined` for an answer that holds no list. */
export function pageOf(body: unknown, resourceKey: string): Page | undefined {
	if (body === undefined || body === null || body === '') return { records: [], wrapped: false };
	const records = listIn(body, resourceKey);
	if (records === undefined) return undefined;
	if (Array.isArray(body)) return { records, wrapped: false };
	const wrapper = body as IDataObject;
	const meta = wrapper.meta as IDataObject | undefined;
	return { records, total: wholeNumberIn(wrapper.total) ?? wholeNumberIn(meta?.total), wrapped: true };
}

/** What identifies a record: its `id`, or for a record without one, all of it. */
function identity(record: unknown): string {
	const id = (record as IDataObject | null)?.id;
	return typeof id === 'string' || typeof id === 'number' ? `id:${id}` : `json:${JSON.stringify(record)}`;
}

/** One page of a list as the service answered it; `page` is undefined when the answer holds no list. */
async function askForPage(
	context: ServiceContext,
	list: ListRequest,
	itemIndex: number,
	paging: IDataObject,
): Promise<{ body: unknown; page: Page | undefined; absent: boolean }> {
	const { statusCode, body } = await serviceRequest.call(
		context,
		{ method: 'GET', path: list.path, qs: { ...list.qs, ...paging }, mayBeAbsent: list.mayBeAbsent },
		itemIndex,
	);
	return { body, page: pageOf(body, list.resourceKey), absent: statusCode === 404 };
}

/**
 * One page of a list, for a person scrolling through it (the editor's From List) or a look at its newest records
 * (the poll trigger): its records, whether the service holds more after it, and whether it answered in pages at all
 * (a bare array is the whole list, or the first `pageSize` of it).
 */
export async function readListPage(
	this: ServiceContext,
	list: ListRequest,
	pageNumber: number,
	pageSize = PAGE_SIZE,
): Promise<{ records: IDataObject[]; more: boolean; wrapped: boolean }> {
	const { page } = await askForPage(this, list, 0, { page: pageNumber, limit: pageSize });
	if (page === undefined) return { records: [], more: false, wrapped: false };
	const more =
		page.wrapped && (page.total !== undefined ? pageNumber * pageSize < page.total : page.records.length >= pageSize);
	return { records: page.records.map(asObject), more, wrapped: page.wrapped };
}

/**
 * A list being read from the service a page at a time, by the rules above: what has been read so far. Those who need
 * the whole list call readList; those who decide after a page (If Already Registered, the poll trigger) read on here.
 */
export class PagedList implements ListRead {
	private readonly byIdentity = new Map<string, IDataObject>();

	private readonly pageSize: number;

	private pagesRead = 0;

	/** The size of the first page the service gave, which may be smaller than asked for. */
	private firstPageSize = 0;

	private ended = false;

	/** Whether reading stopped at a page that brought nothing new and the list could not be read otherwise. */
	private repeated = false;

	total: number | undefined;

	notAList = false;

	absent = false;

	/** The records of the page read last, as the service listed them (those seen before included). */
	lastPage: IDataObject[] = [];

	constructor(
		private readonly context: ServiceContext,
		private readonly list: ListRequest,
		private readonly itemIndex: number,
		private readonly limit?: number,
	) {
		this.pageSize = Math.min(limit ?? PAGE_SIZE, PAGE_SIZE);
	}

	get records(): IDataObject[] {
		return [...this.byIdentity.values()];
	}

	get complete(): boolean {
		if (this.full) return true;
		return this.total !== undefined ? this.byIdentity.size >= this.total : !this.repeated;
	}

	/** The pages still to read, by the service's `total` and the size of page it gives; undefined without a total. */
	get pagesLeft(): number | undefined {
		if (this.ended) return 0;
		if (this.total === undefined) return undefined;
		return Math.ceil(Math.max(0, this.total - this.byIdentity.size) / Math.max(1, this.firstPageSize));
	}

	private get full(): boolean {
		return this.limit !== undefined && this.byIdentity.size >= this.limit;
	}

	/** Adds the records not seen before; returns how many there were. */
	private add(records: unknown[]): number {
		let added = 0;
		for (const record of records) {
			if (this.full) break;
			const key = identity(record);
			if (this.byIdentity.has(key)) continue;
			this.byIdentity.set(key, asObject(record));
			added += 1;
		}
		return added;
	}

	/** Reads the next page; false once the list has ended, when nothing more is asked for. */
	async readPage(): Promise<boolean> {
		if (this.ended) return false;
		const pageNumber = this.pagesRead + 1;
		if (pageNumber > MAX_PAGES) {
			const message = `The service's list of ${this.list.what} did not end after ${MAX_PAGES.toLocaleString('en-US')} pages: the node stopped reading it rather than go on for ever`;
			const description = 'Narrow the list with a filter, or set a Limit.';
			throw new NodeApiError(this.context.getNode(), { message }, { message, description, itemIndex: this.itemIndex });
		}
		const { body, page, absent } = await askForPage(this.context, this.list, this.itemIndex, {
			page: pageNumber,
			limit: this.pageSize,
		});
		this.pagesRead = pageNumber;
		if (absent || page === undefined) {
			// Not a list: on the first page it is shown as the service sent it; later, it ends the list.
			this.absent = absent;
			if (pageNumber === 1 && !absent) {
				this.notAList = true;
				this.add([body]);
			}
			return this.end();
		}
		if (pageNumber === 1) this.firstPageSize = page.records.length;
		this.lastPage = page.records.map(asObject);
		this.total = page.total ?? this.total;
		const added = this.add(page.records);
		if (this.full || page.records.length === 0) return this.end();
		if (added === 0) {
			if (page.wrapped) {
				this.repeated = true;
				return this.end();
			}
			// The API document's reading: no pages, and every record when asked without them.
			const whole = await askForPage(this.context, this.list, this.itemIndex, this.limit ? { limit: this.limit } : {});
			this.lastPage = (whole.page?.records ?? []).map(asObject);
			this.add(this.lastPage);
			return this.end();
		}
		const readAll = this.total !== undefined ? this.byIdentity.size >= this.total : page.records.length < this.pageSize;
		return readAll ? this.end() : true;
	}

	private end(): false {
		this.ended = true;
		return false;
	}
}

/** Reads a whole list (or its first `limit` records) from the service, page by page. */
export async function readList(
	this: ServiceContext,
	list: ListRequest,
	itemIndex: number,
	limit?: number,
): Promise<ListRead> {
	const reader = new PagedList(this, list, itemIndex, limit);
	while (await reader.readPage());
	return reader;
}

/** Says in words how much of a list that came back incomplete was read. */
export function shortfall(list: ListRead, what: string): string {
	return list.total === undefined
		? `The service repeated a page of ${what} instead of giving the next one, so there may be more than the ${list.records.length} read`
		: `The service said it holds ${list.total} ${what} but listed ${list.records.length}: the list changed while it was read, or the service skipped some`;
}
