import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { executionScoped } from '../executionScope';
import { asObject, listIn } from './answerShapes';
import type { RequestFor } from './serviceRequest';
import { serviceRequest, WITHOUT_ITEM } from './serviceRequest';
import type { ServiceContext } from './session';

/**
 * Every list the node reads from the service: in windows (`page` from 1, `limit`; the service starts a page at
 * `(page − 1) × limit`), each an ordinary request, each record kept once by what identifies it. The API page leaves a
 * list's shape, paging and order open; the real service pages it (../shared/notes/real-service.md). The rules:
 * 1. What an answer shows is learned once a run: a bare array or a page, and the most records one answer held.
 * 2. A pass starts at the list's start, asking for PAGE_SIZE (ten times more each new pass). Where that answer holds
 *    fewer than the service's total, page 1 is read again through a small window: the real service's pages of 100 leave
 *    out its newest, which go first. Each later window overlaps what was read, so a deletion hides nothing.
 * 3. Past page 1, a window asks for no more than one answer has held: the service counts its pages by what it gives.
 * 4. A window that does not carry the pass on (none of its records read in this pass; or, past page 1 and full, only
 *    those) starts a new pass; after MAX_PASSES the read ends and says why (`gap`).
 * 5. A pass ends at a window shorter than asked and than a page holds (the list's end), at the total, or at the Limit.
 * 6. A bare array (the API page's reading) has no pages: without `limit` it is every match, unless that answer is a
 *    default page (no larger than a page), so `limit` is then raised tenfold until an answer falls short of it.
 * 7. An answer larger than asked means the service ignores `limit`: its pages follow one another, cannot overlap, and
 *    a read of several says that a deletion could have hidden a record.
 */

/** The most records a window asks for: the most the real service gives a page. */
export const PAGE_SIZE = 100;
/**
 * The small window that reads page 1 again (rule 2), and the fewest records a page is taken to hold when there are
 * more: the real service's default page is 20 (its notes: "assume it is small"); windows of fewer could not overlap
 * and move on.
 */
export const MIN_PAGE_SIZE = 10;
/**
 * Passes over a list that moves under them (rule 4); page 1 then asks 100, 1,000 and 10,000 records, so a service that
 * ignores `page` but gives as many as asked is read whole in one answer.
 */
const MAX_PASSES = 3;
/** Windows of one read: a million records at 100 a window, more than one n8n execution holds. */
const MAX_WINDOWS = 10_000;

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
	/** True when the answer held no list at all; `records` then holds that answer as one record. */
	readonly notAList: boolean;
	/** True when a list that `mayBeAbsent` is not on this service (it answered 404). */
	readonly absent: boolean;
}

/** What one run has learned of how the service answers lists (rule 1); every list of the run shares it. */
export interface ListHabits {
	/** The service answers bare arrays. */
	bare: boolean;
	/** The most records the service has given in one answer. */
	largestAnswer: number;
	/** The service gives this many records a page whatever `limit` asks (rule 7). */
	fixedPageSize?: number;
}

const habitsOfRuns = executionScoped<Map<string, ListHabits>>();

/** The run's habits for the lists under `path`; a poll trigger may set them from what it remembers. */
export function listHabits(run: object, path: string): ListHabits {
	const byPath = habitsOfRuns.of(run, () => new Map());
	let habits = byPath.get(path);
	if (habits === undefined) {
		habits = { bare: false, largestAnswer: 0 };
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

export interface ReadOptions {
	/** At most this many records (Get Many's Limit). */
	limit?: number;
	/** A small first window, where it often holds all that is wanted (a poll of a quiet shop). */
	firstWindow?: number;
	/**
	 * A read that goes on where an earlier one stopped (a poll cut short): its first window must overlap what that read
	 * read (`known`, as `identify` gives it), or the read starts over from the list's start.
	 */
	goOnAt?: { offset: number; known: Iterable<string> };
}

/** One pass over the list from its start (rule 4), or on from where an earlier read stopped. */
interface Pass {
	number: number;
	/** What identifies each record read in this pass (and, going on from an earlier read, those it read). */
	read: Set<string>;
	/** The offset just past the last record read, as the service counted it. */
	end: number;
	/** The windows of page 1 still to ask for, by their `limit`, and whether the small one of rule 2 is due. */
	pageOne: number[];
	newestDue?: boolean;
	/** The service's total at the pass's first answer. */
	totalAtStart?: number;
}

/** How a read ended: why it may not hold every record (`gap`), and whether it could not read on. */
interface ReadEnding {
	gap?: string;
	stoppedShort?: boolean;
	notAList?: boolean;
	absent?: boolean;
}

/** A window as the service answered it: its records in the list's order, where it starts, and when it was answered. */
export interface ReadWindow {
	records: IDataObject[];
	offset: number;
	/** The answer's `Date` (ms since the epoch), when it had one. */
	answeredAt?: number;
}

/**
 * A list being read from the service a window at a time, by the rules above. Those who need the whole list call
 * readList; those who decide after each window (If Already Registered, the poll trigger) read on here.
 */
export class PagedList implements ListRead {
	private readonly byIdentity = new Map<string, IDataObject>();

	private readonly habits: ListHabits;

	private pass: Pass;

	private windowsRead = 0;

	total: number | undefined;

	/** How the read ended; undefined while it goes on. */
	private ending: ReadEnding | undefined;

	/** The window read last. */
	lastWindow: ReadWindow = { records: [], offset: 0 };

	/** See ReadOptions. */
	constructor(
		private readonly context: ServiceContext,
		private readonly list: ListRequest,
		private readonly requestFor: RequestFor,
		private readonly options: ReadOptions = {},
	) {
		this.habits = listHabits(context, list.path);
		const goOn = options.goOnAt;
		this.pass = this.passFromStart(0);
		if (goOn !== undefined) {
			const known = [...goOn.known].map((id) => `id:${id}`);
			this.pass = { number: 0, read: new Set(known), end: goOn.offset, pageOne: [] };
		}
	}

	/** Rule 2: a pass reads page 1 first, large; a small first window (`firstWindow`) is read before it. */
	private passFromStart(number: number): Pass {
		const large = Math.min(this.wanted, PAGE_SIZE * 10 ** number);
		const first = this.options.firstWindow;
		return { number, read: new Set(), end: 0, pageOne: first === undefined || first >= large ? [large] : [first, large] };
	}

	/** The records read, in the list's order; at most the Limit. */
	get records(): IDataObject[] {
		return [...this.byIdentity.values()].slice(0, this.wanted);
	}

	get ended(): boolean {
		return this.ending !== undefined;
	}

	get gap(): string | undefined {
		return this.ending?.gap;
	}

	get complete(): boolean {
		return this.ending !== undefined && this.ending.gap === undefined;
	}

	/** Whether the read ended before the list's end, unable to read what follows (`gap` says why). */
	get stoppedShort(): boolean {
		return this.ending?.stoppedShort === true;
	}

	get notAList(): boolean {
		return this.ending?.notAList === true;
	}

	get absent(): boolean {
		return this.ending?.absent === true;
	}

	/** Whether the read started at the list's start (not where an earlier one stopped). */
	get fromListStart(): boolean {
		return this.options.goOnAt === undefined;
	}

	/** The offset just past the last record read, as the service counted it: where a read stopped short goes on. */
	get readUpTo(): number {
		return this.pass.end;
	}

	/** The windows still to read by the service's `total`; undefined without a total. */
	get windowsLeft(): number | undefined {
		if (this.ended) return 0;
		if (this.total === undefined) return undefined;
		return Math.ceil(Math.max(0, this.total - this.pass.end) / (this.pageSize - 1));
	}

	/** Records a window past page 1 asks for (rule 3). */
	private get pageSize(): number {
		return Math.min(PAGE_SIZE, Math.max(MIN_PAGE_SIZE, this.habits.largestAnswer));
	}

	private get wanted(): number {
		return this.options.limit ?? Infinity;
	}

	private get full(): boolean {
		return this.byIdentity.size >= this.wanted;
	}

	private identity(record: IDataObject): string {
		const id = this.list.identify(record);
		return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
	}

	/** Reads the next window; false once the read has ended, when nothing more is asked for. */
	async readWindow(): Promise<boolean> {
		if (this.ended) return false;
		if (this.windowsRead >= MAX_WINDOWS) {
			const message = `The service's list of ${this.list.what} did not end after ${MAX_WINDOWS.toLocaleString('en-US')} pages: the node stopped reading it rather than go on for ever`;
			const description = 'Narrow the list with a filter, or set a Limit.';
			throw new NodeApiError(
				this.context.getNode(),
				{ message },
				{ message, description, itemIndex: this.requestFor.itemIndex },
			);
		}
		if (this.habits.bare) return await this.readBare();
		const window = this.nextWindow();
		const { body, page, absent, answeredAt } = await this.askFor({ page: window.page, limit: window.limit });
		if (absent) return this.finish({ absent });
		if (page === undefined) {
			// Not a list: on the first window it is shown as the service sent it; later, it ends the list.
			if (this.windowsRead > 1) return this.finish({ gap: 'the service answered a page with no list', stoppedShort: true });
			this.byIdentity.set('answer', asObject(body));
			return this.finish({ notAList: true });
		}
		if (page.bare) {
			this.habits.bare = true;
			return await this.readBare({ records: page.records, limit: window.limit });
		}
		return this.take(page, window, answeredAt);
	}

	/** Rules 2, 3 and 7: page 1 as the pass asks for it, then windows that overlap (or pages that follow). */
	private nextWindow(): Window {
		const { end, pageOne } = this.pass;
		if (this.pass.newestDue) {
			this.pass.newestDue = false;
			return { page: 1, limit: MIN_PAGE_SIZE, offset: 0 };
		}
		const fixed = this.habits.fixedPageSize;
		if (fixed !== undefined && end > 0) {
			const page = Math.floor(end / fixed) + 1;
			return { page, limit: fixed, offset: (page - 1) * fixed };
		}
		const limit = pageOne.shift();
		return limit === undefined ? overlappingWindow(end, this.pageSize) : { page: 1, limit, offset: 0 };
	}

	/** Takes a window of a list in an object: carries the pass on, ends it (rule 5), or starts a new one (rule 4). */
	private take(page: Page, asked: Window, answeredAt: number | undefined): boolean {
		const { records } = page;
		if (records.length > asked.limit) this.habits.fixedPageSize = records.length;
		const fixed = this.habits.fixedPageSize;
		const window = fixed === undefined ? asked : { ...asked, limit: fixed, offset: (asked.page - 1) * fixed };
		// The service gives at least this many records when it holds them (it has done so, or every service does).
		const holdsAtLeast = Math.max(this.habits.largestAnswer, MIN_PAGE_SIZE);
		this.habits.largestAnswer = Math.max(this.habits.largestAnswer, records.length);
		this.total = page.total ?? this.total;
		this.pass.totalAtStart ??= page.total;
		// Rule 2: a large first answer short of the total may have left out the newest; a small window shows them.
		if (this.pass.read.size === 0 && asked.limit >= PAGE_SIZE && records.length < (page.total ?? 0))
			this.pass.newestDue = true;

		const { read } = this.pass;
		const identities = records.map((record) => this.identity(record));
		const readBefore = identities.filter((identity) => read.has(identity)).length;
		const short = records.length < Math.min(window.limit, holdsAtLeast);
		// Pages of a fixed size follow one another (rule 7); a window of another size must overlap (rule 2).
		const overlaps = read.size === 0 || readBefore > 0 || (fixed !== undefined && window.offset <= this.pass.end);
		const movesOn = readBefore < records.length || window.offset === 0 || short;
		if (!overlaps || !movesOn) return this.startOver();

		this.keep(records, identities, window.offset);
		// A window of page 1 read again (rule 2) does not take the pass back.
		this.pass.end = Math.max(this.pass.end, window.offset + records.length);
		this.lastWindow = { records, offset: window.offset, answeredAt };

		const atEnd = this.full || short || (this.total !== undefined && this.pass.end >= this.total);
		if (atEnd && !this.pass.newestDue) {
			const unchecked =
				fixed !== undefined && this.pass.end > fixed
					? `the service gives ${fixed} records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another`
					: undefined;
			return this.finish({ gap: unchecked ?? this.shortOfTotal() });
		}
		return true;
	}

	/** Rule 4: a window did not carry the pass on; a new pass starts at the list's start, or the read ends. */
	private startOver(): boolean {
		const passes = this.pass.number + 1;
		if (passes >= MAX_PASSES) {
			return this.finish({
				gap: `on each of ${passes} reads from its start, a page held none of what the read before it held, or nothing more: the service ignores page, or the list changed too much while it was read`,
				stoppedShort: true,
			});
		}
		this.pass = this.passFromStart(passes);
		return true;
	}

	/**
	 * Rule 6: a bare list, read from an answer to `limit` of a page (`first`, when the first window had one: a smaller
	 * one is asked again as a page). What the answers held together is the list: a deletion between two makes neither
	 * the whole.
	 */
	private async readBare(first?: { records: IDataObject[]; limit: number }): Promise<false> {
		const page = Math.min(this.wanted, PAGE_SIZE);
		const pageAnswer =
			first === undefined || (first.limit < page && first.records.length >= first.limit)
				? await this.askBare(page)
				: first.records;
		const answers = [...(first === undefined ? [] : [first.records]), pageAnswer];
		// Shorter than any page, it is all there is; otherwise the answer without `limit` is every match, where it holds more.
		if (pageAnswer.length >= MIN_PAGE_SIZE && pageAnswer.length < this.wanted) {
			const every = await this.askBare(undefined);
			answers.push(every);
			// Not more: a default page. `limit`, raised tenfold while answers fill it, gives the list.
			for (let limit = page * 10; every.length <= pageAnswer.length && pageAnswer.length >= page; limit *= 10) {
				const answer = await this.askBare(Math.min(limit, this.wanted));
				answers.push(answer);
				if (answer.length < Math.min(limit, this.wanted) || limit >= this.wanted || limit >= PAGE_SIZE * MAX_WINDOWS)
					break;
			}
		}
		for (const record of answers.flat()) {
			const identity = this.identity(record);
			if (!this.byIdentity.has(identity)) this.byIdentity.set(identity, record);
		}
		this.lastWindow = { ...this.lastWindow, records: this.records, offset: 0 };
		return this.finish({});
	}

	/**
	 * Keeps a window's records, each once, in the list's order: those a window of page 1 holds before any record read
	 * before it are the list's newest, and go first.
	 */
	private keep(records: IDataObject[], identities: string[], offset: number): void {
		const { read } = this.pass;
		const newest = offset === 0 && records.findIndex((_, index) => read.has(identities[index])) > 0;
		const earlier = newest ? [...this.byIdentity] : [];
		records.forEach((record, index) => {
			read.add(identities[index]);
			if (!this.byIdentity.has(identities[index])) this.byIdentity.set(identities[index], record);
		});
		// Those read before go after the newest this window showed.
		for (const [identity] of earlier) this.byIdentity.delete(identity);
		for (const [identity, record] of earlier) this.byIdentity.set(identity, record);
	}

	private async askBare(limit: number | undefined): Promise<IDataObject[]> {
		const { page } = await this.askFor(limit === undefined ? {} : { limit });
		return page?.records ?? [];
	}

	private async askFor(paging: IDataObject): Promise<Awaited<ReturnType<typeof ask>>> {
		const answer = await ask(this.context, this.list, this.requestFor, paging);
		this.windowsRead += 1;
		this.lastWindow = { ...this.lastWindow, answeredAt: answer.answeredAt };
		return answer;
	}

	private finish(ending: ReadEnding): false {
		this.ending = ending;
		return false;
	}

	/**
	 * Whether the pass read fewer than the service held throughout it: fewer than its total at the pass's start and at
	 * its end (registrations added before where the pass has reached are not read, and are counted at its end).
	 */
	private shortOfTotal(): string | undefined {
		const heldThroughout = Math.min(this.pass.totalAtStart ?? Infinity, this.total ?? Infinity);
		if (this.full || !Number.isFinite(heldThroughout) || this.pass.read.size >= heldThroughout) return undefined;
		return `the service said it holds ${heldThroughout} but listed ${this.pass.read.size}: it left some out`;
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
