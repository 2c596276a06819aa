import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { executionScoped } from '../executionScope';
import { asObject, listIn } from './answerShapes';
import type { RequestFor } from './serviceRequest';
import { serviceRequest, WITHOUT_ITEM } from './serviceRequest';
import type { ServiceContext } from './session';

/**
 * Every list the node reads from the service. The API page leaves a list's shape, paging and order open, and the real
 * service pages it (../shared/notes/real-service.md), so a list is read in windows, each an ordinary request (retries,
 * Timeout, Stop, the run's pace), and each record is given once, by what identifies it (a registration's id):
 *
 * - The first window starts at the list's start. **Every later window starts at a record already read**: the service
 *   counts pages as `(page - 1) × limit`, so the node picks `page` and `limit` to make each window overlap the last. A
 *   window that holds a record already read continues the list without a gap, whatever was added or deleted before
 *   it meanwhile (a deletion moves the later records one place up, so pages that do not overlap can skip one). A
 *   window that holds none is asked for again further back (or on, when the service's total grew by more than a
 *   window), a few times, before the read ends saying that the list changed too much while it was read.
 * - A bare array (the API page's reading) has no pages: one answer is the list. The API page reads an answer without
 *   `limit` as every match, but a service may give a default page then, so the answer to a `limit` and the one
 *   without are compared and the longer taken; where `limit` gives more, it is raised until an answer falls short of
 *   it. A bare array shorter than any page a service gives (MIN_PAGE_SIZE) is all there is, in one request.
 * - The read ends when a Limit is reached, when a window reaches the service's `total`, when a window is shorter than
 *   the service has shown it gives (so it is the list's end, not the service's page size), or when `page` turns out
 *   to be ignored (a window asked for further on gives the list's start again). Without a `total`, a read may take one
 *   window more to be sure. A read of several windows of 100 from the list's start then looks at its newest end again
 *   in small windows (the real service's pages of 100 were seen to leave its newest out).
 * - A read that cannot be sure it holds every record that existed while it was read says why (`gap`): the service
 *   listed fewer than its total, ignores `page`, gives a fixed page size that windows cannot overlap, or changed
 *   too much. Callers show it (Get Many) or do not trust the list to prove a registration absent (If Already
 *   Registered, a lost create).
 *
 * Each window is chosen from what the run has learned of the service (ListHabits), shared by every list of the run.
 */

/** The most records a window asks for: the most the real service gives. */
export const PAGE_SIZE = 100;
/**
 * More windows than this (a million records at 100 a window, more than one n8n execution holds) are taken for a
 * service that never stops answering new records.
 */
export const MAX_PAGES = 10_000;
/**
 * The fewest records a service is taken to give in one answer when it holds them (the real service: 20 unless asked,
 * up to 100): an answer shorter than this is the list's end, not the service's page size.
 */
export const MIN_PAGE_SIZE = 10;
/** Windows in a row that do not carry the read on (the list moving under it) before the read gives up. */
const MAX_REANCHORS = 5;

export interface ListRequest {
	/** Path below `/api/`, e.g. `registrations`. */
	path: string;
	/** The filters; `page` and `limit` are added. */
	qs?: IDataObject;
	/** The key an answer that is an object may hold its records under besides `data` and `items`, e.g. `registrations`. */
	resourceKey: string;
	/** What is listed, in words, for messages: "registrations for ann@example.com". */
	what: string;
	/** The list is not on every service (GET /api/forms): a 404 reads as `absent` instead of failing. */
	mayBeAbsent?: boolean;
	/** What identifies a record (a registration's id: registrations.ts); one without it is identified by all of it. */
	identify: (record: IDataObject) => string | undefined;
}

/** A list as read from the service. */
export interface ListRead {
	/** Each record once, in the order the service listed them. */
	readonly records: IDataObject[];
	/** How many the service last said it holds, when it says. */
	readonly total: number | undefined;
	/** True when the read ended sure that it holds every record that existed while it was read. */
	readonly complete: boolean;
	/** Why the read may not hold every record, in words; undefined when it is sure, or has not ended. */
	readonly gap: string | undefined;
	/** True when the read ended before the list's end: what follows could not be read (`gap` says why). */
	readonly stoppedShort: boolean;
	/** True when the answer held no list at all; `records` then holds that answer as one record. */
	readonly notAList: boolean;
	/** True when a list that `mayBeAbsent` is not on this service (it answered 404). */
	readonly absent: boolean;
}

/** What one run has learned of how the service answers lists; every list the run reads shares it. */
export interface ListHabits {
	/** The service answers bare arrays, which have no pages: lists are asked for whole. */
	bare: boolean;
	/** The most records the service has given in one answer: it gives at least this many when it holds them. */
	largestAnswer: number;
	/** Whether an answer was ever shorter than asked while more followed: the service's page size is `largestAnswer`. */
	capped: boolean;
	/** The service gives this many records whatever `limit` asks, so windows cannot overlap. */
	fixedPageSize?: number;
	/** A window further on has carried a read on: the service honours `page`. */
	pagesHonoured: boolean;
}

const habitsOfRuns = executionScoped<Map<string, ListHabits>>();

/** The run's habits for the lists under `path`; a poll trigger may set them from what it remembers. */
export function listHabits(run: object, path: string): ListHabits {
	const byPath = habitsOfRuns.of(run, () => new Map());
	let habits = byPath.get(path);
	if (habits === undefined) {
		habits = { bare: false, largestAnswer: 0, capped: false, pagesHonoured: false };
		byPath.set(path, habits);
	}
	return habits;
}

/** A window of the list: `limit` records from `offset`, asked for as `page`. */
interface Window {
	page: number;
	limit: number;
	offset: number;
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

interface Page {
	records: IDataObject[];
	total?: number;
	/** Whether the answer was a bare array, rather than an object holding the list (`{ data, ... }`). */
	bare: boolean;
}

function wholeNumberIn(value: unknown): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** A list answer's records and total; `undefined` for an answer that holds no list. */
export function pageOf(body: unknown, resourceKey: string): Page | undefined {
	if (body === undefined || body === null || body === '') return { records: [], bare: true };
	const records = listIn(body, resourceKey)?.map(asObject);
	if (records === undefined) return undefined;
	if (Array.isArray(body)) return { records, bare: true };
	const wrapper = body as IDataObject;
	const meta = wrapper.meta as IDataObject | undefined;
	return { records, total: wholeNumberIn(wrapper.total) ?? wholeNumberIn(meta?.total), bare: false };
}

/** One answer to a list request as the service gave it; `page` is undefined when the answer holds no list. */
async function ask(
	context: ServiceContext,
	list: ListRequest,
	requestFor: RequestFor,
	paging: IDataObject,
): Promise<{ body: unknown; page: Page | undefined; absent: boolean; answeredAt?: number }> {
	const { statusCode, body, answeredAt } = await serviceRequest.call(
		context,
		{ method: 'GET', path: list.path, qs: { ...list.qs, ...paging }, mayBeAbsent: list.mayBeAbsent },
		requestFor,
	);
	return { body, page: pageOf(body, list.resourceKey), absent: statusCode === 404, answeredAt };
}

/** Where a person scrolling through a list has reached. */
export interface ListPosition {
	/** How many records the service has listed before the next page. */
	offset: number;
	/** How many records the service gives a page, as its first page showed: it counts its pages by them. */
	pageSize: number;
	/** The id of the first record the list's first page held: a page further on that holds it starts the list over. */
	listStart?: string;
}

/**
 * One page of a list, for a person scrolling through it (the editor's From List): its records, and where the next
 * page starts when the service holds more. The first page asks for PAGE_SIZE; the service may give fewer (its most,
 * or the same number whatever is asked), and counts its pages by what it gives, so later pages ask for that many.
 * A page further on that holds the list's first record is the list's start again: the service ignores `page`, so
 * what its first page showed is all it shows, and that page adds nothing. A bare array is the whole list, or the
 * first PAGE_SIZE of it.
 */
export async function readListPage(
	this: ServiceContext,
	list: ListRequest,
	position: ListPosition = { offset: 0, pageSize: PAGE_SIZE },
): Promise<{ records: IDataObject[]; next?: ListPosition }> {
	const { offset, pageSize, listStart } = position;
	const { page } = await ask(this, list, WITHOUT_ITEM, { page: Math.floor(offset / pageSize) + 1, limit: pageSize });
	if (page === undefined || page.bare || page.records.length === 0) return { records: page?.records ?? [] };
	const ids = page.records.map(list.identify);
	if (offset > 0 && listStart !== undefined && ids.includes(listStart)) return { records: [] };
	const given = page.records.length;
	const reached = offset + given;
	const more = page.total !== undefined ? reached < page.total : given >= Math.min(pageSize, MIN_PAGE_SIZE);
	// The first page shows the size the service gives; a later page shorter than it is the list's end.
	const next = {
		offset: reached,
		pageSize: offset === 0 ? given : pageSize,
		listStart: offset === 0 ? ids.find((id) => id !== undefined) : listStart,
	};
	return { records: page.records, next: more && (offset === 0 || given >= pageSize) ? next : undefined };
}

/** Where a read that does not start at the list's start begins (a poll trigger reading the list's newest end). */
export interface ReadFrom {
	/** Roughly where: the first window starts at or before this offset. */
	offset: number;
	/**
	 * Whether a window (as the service listed it) starts before what is to be read: its first record, and every one
	 * listed before it, are outside it. The first window must; otherwise it is asked for again further back.
	 */
	startsBefore: (window: IDataObject[]) => boolean;
}

export interface ReadOptions {
	/** At most this many records (Get Many's Limit). */
	limit?: number;
	/** The size of the first window from the list's start, when a small one often shows all that is wanted (a poll). */
	firstWindow?: number;
	from?: ReadFrom;
}

/**
 * A list being read from the service a window at a time, by the rules above: what has been read so far. Those who need
 * the whole list call readList; those who decide after a window (If Already Registered, the poll trigger) read on here.
 */
export class PagedList implements ListRead {
	private readonly byIdentity = new Map<string, IDataObject>();

	/** Where in the list each record was when first read (its offset, as the service counted it). */
	private readonly readAt = new Map<string, number>();

	private readonly habits: ListHabits;

	private windowsRead = 0;

	/** Windows in a row that did not carry the read on (asked again elsewhere, or holding only records read). */
	private stalls = 0;

	/**
	 * Set when a window further on than the list's start came back empty (the list ends before it: it shrank, or the
	 * service counts pages by a size of its own), until a window carries the read on.
	 */
	private emptyFurtherOn = false;

	private lastAnswerEmpty = false;

	/** The size of a window that was shorter than asked without a total: the list's end, or the service's page size. */
	private probe: number | undefined;

	/** The offset just past the last record read, as the service counted it in the last window. */
	private end = 0;

	/** The total of the last window that continued the read, to tell arrivals from deletions when one did not. */
	private totalAtEnd: number | undefined;

	/** The identity of the first record read: a window from further on that starts with it means `page` is ignored. */
	private firstIdentity: string | undefined;

	/** Set when windows could not overlap, so the read cannot tell whether a deletion hid a record. */
	unchecked?: string;

	/**
	 * The list's newest end looked at again through a small window, once a read of several large windows from its start
	 * has reached its end: the real service's pages of 100 were seen to leave out its newest registrations, and a
	 * total cannot show it when registrations are deleted meanwhile.
	 */
	private frontCheck: 'due' | 'done' | undefined;

	/** The size of the first window, which decides whether the front is looked at again. */
	private firstWindowSize = 0;

	ended = false;

	gap: string | undefined;

	stoppedShort = false;

	total: number | undefined;

	notAList = false;

	absent = false;

	/** The records of the window read last, in the list's order (those read before included). */
	lastWindow: IDataObject[] = [];

	/** The offset of the window read last, as the service counts it. */
	lastWindowOffset = 0;

	/** When the service gave the read's first answer, by its own clock (its `Date` header), when it says. */
	firstAnsweredAt: number | undefined;

	constructor(
		private readonly context: ServiceContext,
		private readonly list: ListRequest,
		private readonly requestFor: RequestFor,
		private readonly options: ReadOptions = {},
	) {
		this.habits = listHabits(context, list.path);
	}

	get records(): IDataObject[] {
		return [...this.byIdentity.values()];
	}

	get complete(): boolean {
		return this.ended && this.gap === undefined;
	}

	/** Whether the read began at the list's start (not further on). */
	get startedAtListStart(): boolean {
		return (this.options.from?.offset ?? 0) === 0 || this.habits.bare;
	}

	/** The windows still to read by the service's `total` and the window size; undefined without a total. */
	get windowsLeft(): number | undefined {
		if (this.ended) return 0;
		if (this.total === undefined) return undefined;
		return Math.ceil(Math.max(0, this.total - this.end) / (this.windowSize - 1));
	}

	/** Records of a window: the most the service gives (as far as the run knows), at most PAGE_SIZE. */
	private get windowSize(): number {
		const size = this.habits.capped ? Math.min(this.habits.largestAnswer, PAGE_SIZE) : PAGE_SIZE;
		return Math.max(MIN_PAGE_SIZE, Math.min(size, this.probe ?? PAGE_SIZE));
	}

	private get full(): boolean {
		return this.options.limit !== undefined && this.byIdentity.size >= this.options.limit;
	}

	private identity(record: IDataObject): string {
		const id = this.list.identify(record);
		return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
	}

	private add(records: IDataObject[]): void {
		for (const record of records) {
			if (this.full) break;
			const key = this.identity(record);
			this.firstIdentity ??= key;
			if (!this.byIdentity.has(key)) this.byIdentity.set(key, record);
		}
	}

	/** Reads the next window; false once the read has ended, when nothing more is asked for. */
	async readWindow(): Promise<boolean> {
		if (this.ended) return false;
		if (this.windowsRead >= MAX_PAGES) {
			const message = `The service's list of ${this.list.what} did not end after ${MAX_PAGES.toLocaleString('en-US')} pages: the node stopped reading it rather than go on for ever`;
			const description = 'Narrow the list with a filter, or set a Limit.';
			throw new NodeApiError(
				this.context.getNode(),
				{ message },
				{ message, description, itemIndex: this.requestFor.itemIndex },
			);
		}
		if (this.habits.bare) return await this.readBare();
		if (this.frontCheck === 'due') return await this.checkFront();
		const window = this.nextWindow();
		if (this.windowsRead === 0) this.firstWindowSize = window.limit;
		const { body, page, absent, answeredAt } = await ask(this.context, this.list, this.requestFor, {
			page: window.page,
			limit: window.limit,
		});
		this.windowsRead += 1;
		this.firstAnsweredAt ??= answeredAt;
		if (absent || page === undefined) {
			// Not a list: on the first window it is shown as the service sent it; later, it ends the list.
			this.absent = absent;
			if (this.windowsRead === 1 && !absent) {
				this.notAList = true;
				this.add([asObject(body)]);
			}
			return this.windowsRead === 1 || absent
				? this.finish()
				: this.stopShort('the service answered a page with no list');
		}
		if (page.bare) {
			this.habits.bare = true;
			// A bare answer ignores `page`: whatever was asked, it is the list's start.
			return await this.readBare({ records: page.records, limit: window.limit });
		}
		return this.take(page, window);
	}

	/**
	 * A bare list: one answer holds it, or its first Limit records. `first` is an answer already given to a `limit`;
	 * without it one is asked for. The API page reads an answer without `limit` as every match, but a service may give
	 * a default page then (no larger than a page): so the list is asked for without `limit` where the answer to a page
	 * filled it, or fell short of its `limit` (which the service may have cut); where that is no longer, `limit` is
	 * raised tenfold while answers fill it. What the answers held together is the list: a registration deleted between
	 * two makes neither the whole.
	 */
	private async readBare(first?: { records: IDataObject[]; limit: number }): Promise<false> {
		const wanted = this.options.limit ?? Infinity;
		let asked = first?.limit ?? Math.min(wanted, PAGE_SIZE);
		let longest = first?.records ?? (await this.askBare({ limit: asked }));
		const answers = [longest];
		if (longest.length < Math.min(asked, MIN_PAGE_SIZE)) return this.finish(undefined, longest);
		if (longest.length >= asked && asked < Math.min(wanted, PAGE_SIZE)) {
			asked = Math.min(wanted, PAGE_SIZE);
			longest = await this.askBare({ limit: asked });
			answers.push(longest);
		}
		if (longest.length < wanted && (wanted === Infinity || longest.length < asked)) {
			const unlimited = await this.askBare({});
			answers.push(unlimited);
			if (unlimited.length > longest.length) return this.finish(undefined, this.together(answers));
		}
		while (longest.length >= asked && asked < wanted && asked < PAGE_SIZE * MAX_PAGES) {
			asked = Math.min(wanted, asked * 10);
			const larger = await this.askBare({ limit: asked });
			answers.push(larger);
			if (larger.length <= longest.length) break;
			longest = larger;
		}
		return this.finish(undefined, this.together(answers));
	}

	/** The records of several answers of one list, each once, in the order first listed. */
	private together(answers: IDataObject[][]): IDataObject[] {
		const byIdentity = new Map<string, IDataObject>();
		for (const record of answers.flat()) {
			const key = this.identity(record);
			if (!byIdentity.has(key)) byIdentity.set(key, record);
		}
		return [...byIdentity.values()];
	}

	private async askBare(paging: IDataObject): Promise<IDataObject[]> {
		const { page, answeredAt } = await ask(this.context, this.list, this.requestFor, paging);
		this.windowsRead += 1;
		this.firstAnsweredAt ??= answeredAt;
		return page?.records ?? [];
	}

	/**
	 * Looks at the list's newest end again in small windows, each overlapping the one before, until one reaches what the
	 * read holds: the registrations that arrived meanwhile lie before it, and those the large windows left out.
	 */
	private async checkFront(): Promise<false> {
		this.frontCheck = 'done';
		const shown: IDataObject[] = [];
		let reached = false;
		for (let end = 0; !reached && shown.length < MAX_REANCHORS * PAGE_SIZE; ) {
			const window = end === 0 ? { page: 1, limit: MIN_PAGE_SIZE, offset: 0 } : overlappingWindow(end, MIN_PAGE_SIZE);
			const { page } = await ask(this.context, this.list, this.requestFor, { page: window.page, limit: window.limit });
			this.windowsRead += 1;
			const records = page?.records ?? [];
			shown.push(...records);
			reached = records.length < window.limit || records.some((record) => this.byIdentity.has(this.identity(record)));
			end = window.offset + records.length;
		}
		// What it shows that was not read is the list's newest: it goes first, where the service lists it.
		const read = [...this.byIdentity];
		const readBefore = new Set(this.byIdentity.keys());
		this.byIdentity.clear();
		this.add(shown.filter((record) => !readBefore.has(this.identity(record))));
		for (const [key, record] of read) this.byIdentity.set(key, record);
		return this.finish(reached ? undefined : 'registrations arrived faster than the list could be read', shown);
	}

	/** The list's end is reached: the read ends, once its newest end is looked at again where that is due. */
	private endOfList(): boolean {
		const severalLargeWindows = this.windowsRead > 1 && this.firstWindowSize >= PAGE_SIZE;
		if (
			severalLargeWindows &&
			this.frontCheck === undefined &&
			this.options.from === undefined &&
			!this.options.limit
		) {
			this.frontCheck = 'due';
			return true;
		}
		return this.finish();
	}

	private nextWindow(): Window {
		const fixed = this.habits.fixedPageSize;
		if (this.windowsRead === 0) {
			const start = this.options.from?.offset ?? 0;
			if (fixed !== undefined)
				return { page: Math.floor(start / fixed) + 1, limit: fixed, offset: start - (start % fixed) };
			// Further on, a window no larger than the service is known to give: a service that gives fewer than asked
			// counts its pages by what it gives, and the window would not be where it was asked.
			const sure = this.habits.capped || this.habits.largestAnswer >= PAGE_SIZE ? this.windowSize : MIN_PAGE_SIZE;
			const size = Math.min(this.options.firstWindow ?? PAGE_SIZE, this.options.limit ?? PAGE_SIZE, this.windowSize);
			return start === 0 ? { page: 1, limit: size, offset: 0 } : overlappingWindow(start + 1, Math.min(size, sure));
		}
		if (fixed !== undefined) {
			// Pages of a fixed size cannot overlap: the next one follows.
			const page = Math.floor(this.end / fixed) + 1;
			return { page, limit: fixed, offset: (page - 1) * fixed };
		}
		return overlappingWindow(this.end, this.windowSize);
	}

	/** Takes a window of a list in an object: continues the read, or asks again further back or on when it does not. */
	private take(page: Page, asked: Window): boolean {
		const { records } = page;
		this.lastAnswerEmpty = records.length === 0;
		// More than asked: the service gives a fixed page size, and counted this page's offset by it.
		if (records.length > asked.limit) this.habits.fixedPageSize = records.length;
		const fixed = this.habits.fixedPageSize;
		const window = fixed === undefined ? asked : { ...asked, limit: fixed, offset: (asked.page - 1) * fixed };
		// The service gives at least this many records when it holds them (it has done so, or every service does).
		const sureSize = Math.max(this.habits.largestAnswer, MIN_PAGE_SIZE);
		this.habits.largestAnswer = Math.max(this.habits.largestAnswer, records.length);
		const grewBy = page.total !== undefined && this.totalAtEnd !== undefined ? page.total - this.totalAtEnd : 0;
		this.total = page.total ?? this.total;
		if (!this.continues(records, window)) return this.reanchor(window, grewBy);

		const before = this.byIdentity.size;
		// Half a window more read before than it was placed to overlap (and arrivals moved into it): the service did not
		// start the window where it was asked — it ignores `page`. (A few more are the real service's large pages.)
		const readBefore = records.filter((record) => this.byIdentity.has(this.identity(record))).length;
		const expected = this.end - window.offset + Math.max(0, grewBy);
		const misplaced = this.windowsRead > 1 && readBefore > expected + window.limit / 2;
		const startsOver =
			window.offset > 0 &&
			records.length > 0 &&
			(misplaced ||
				(this.identity(records[0]) === this.firstIdentity && grewBy < window.offset) ||
				this.movedOn(records, window, grewBy));
		records.forEach((record, index) => {
			const key = this.identity(record);
			if (!this.readAt.has(key)) this.readAt.set(key, window.offset + index);
		});
		this.add(records);
		const added = this.byIdentity.size - before;
		this.lastWindow = records;
		this.lastWindowOffset = window.offset;
		this.totalAtEnd = this.total;
		// A window of records all read before lies within the read: arrivals moved the list on by the total's growth.
		this.end =
			added > 0 || this.windowsRead === 1
				? window.offset + records.length
				: Math.max(window.offset + records.length, this.end + Math.max(0, grewBy));

		if (this.full || records.length === 0) return this.finish();
		// A window from further on that gives the list's start again — and not because as many arrived before it.
		if (startsOver) {
			// Whole only if this one answer held the whole list: counting what several held would count the deleted.
			return records.length >= (this.total ?? Infinity) ? this.finish() : this.stopShort('the service ignores page');
		}
		if (window.offset > 0 && added > 0 && this.windowsRead > 1) this.habits.pagesHonoured = true;
		if (records.length < Math.min(window.limit, sureSize)) return this.endOfList();
		// A first window further on reaches the total only where `page` is honoured; elsewhere it was the list's start.
		const placed = this.windowsRead > 1 || window.offset === 0 || this.habits.pagesHonoured;
		if (this.total !== undefined && this.end >= this.total && placed) return this.endOfList();
		if (records.length < window.limit) {
			// The list's end, or the service's page size: with a total, more follow; without, the next window tells.
			if (this.total !== undefined) this.habits.capped = true;
			else this.probe = records.length;
		} else if (this.probe !== undefined && added > 0) {
			this.habits.capped = true;
		}
		// Nothing past the list's start, and its start again shows nothing new: the list is what its start shows.
		if (added === 0 && window.offset === 0 && this.emptyFurtherOn) return this.endOfList();
		this.emptyFurtherOn = false;
		this.stalls = added > 0 ? 0 : this.stalls + 1;
		if (this.stalls > MAX_REANCHORS) return this.stopShort('the list changed too much while it was read');
		return true;
	}

	/**
	 * Whether a window holds a record far further on than where it was read: records move on only as far as others
	 * arrive before them (the total's growth, and as many as were deleted). The list's first record read that far on
	 * means `page` is ignored; any other, half a window of deletions is allowed for.
	 */
	private movedOn(records: IDataObject[], window: Window, grewBy: number): boolean {
		return records.some((record, index) => {
			const key = this.identity(record);
			const readAt = this.readAt.get(key);
			if (readAt === undefined) return false;
			const slack = key === this.firstIdentity ? 0 : window.limit / 2;
			return window.offset + index - readAt > Math.max(0, grewBy) + slack;
		});
	}

	/** Whether a window carries on the read without a gap before it. */
	private continues(records: IDataObject[], window: Window): boolean {
		if (this.windowsRead === 1) {
			const { from } = this.options;
			return from === undefined || window.offset === 0 || from.startsBefore(records);
		}
		if (records.some((record) => this.byIdentity.has(this.identity(record)))) return true;
		// With a fixed page size windows cannot overlap: the next page follows, but nothing proves no record was skipped.
		if (this.habits.fixedPageSize !== undefined && window.offset <= this.end) {
			this.unchecked = `the service gives ${this.habits.fixedPageSize} records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another`;
			return true;
		}
		return false;
	}

	/**
	 * A window that holds no record already read: the list moved under the read. Arrivals at the list's start move
	 * records on (the total grew by more than a window); deletions move them back. The window is asked again there.
	 */
	private reanchor(window: Window, grewBy: number): boolean {
		this.stalls += 1;
		this.emptyFurtherOn ||= window.offset > 0 && this.lastAnswerEmpty;
		const back = Math.ceil(this.windowSize / 2) * 2 ** (this.stalls - 1);
		if (this.byIdentity.size === 0 && this.options.from !== undefined) {
			// The first window did not start before what is to be read: start further back, at worst at the list's start.
			this.options.from = { ...this.options.from, offset: Math.max(0, window.offset - back) };
			this.windowsRead = 0;
			return true;
		}
		if (this.stalls > MAX_REANCHORS) return this.stopShort('the list changed too much while it was read');
		this.end = Math.max(1, grewBy > 0 ? this.end + grewBy : this.end - Math.max(back, -grewBy));
		this.totalAtEnd = this.total;
		return true;
	}

	private stopShort(why: string): false {
		this.stoppedShort = true;
		return this.finish(why);
	}

	private finish(gap?: string, records?: IDataObject[]): false {
		if (records !== undefined) {
			this.add(records);
			this.lastWindow = records;
			this.lastWindowOffset = 0;
		}
		this.ended = true;
		this.gap = gap ?? this.unchecked ?? this.shortOfTotal();
		return false;
	}

	private shortOfTotal(): string | undefined {
		if (this.full || this.total === undefined || this.byIdentity.size >= this.total) return undefined;
		return `the service said it holds ${this.total} but listed ${this.byIdentity.size}: some were added while the list was read, or the service left them out`;
	}
}

/** Reads a whole list (or its first `limit` records) from the service. */
export async function readList(
	this: ServiceContext,
	list: ListRequest,
	requestFor: RequestFor,
	limit?: number,
): Promise<ListRead> {
	const reader = new PagedList(this, list, requestFor, { limit });
	while (await reader.readWindow());
	return reader;
}
