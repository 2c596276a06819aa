import type { IDataObject } from 'n8n-workflow';

import { asObject } from '../answerShapes';
import type { RequestFor } from '../serviceRequest';
import type { ServiceContext } from '../session';
import { bareListAnswers } from './bareList';
import type { ListRequest, ReadEnding } from './listRequest';
import { askList, endlessList, LARGEST_PAGE, MIN_PAGE_SIZE, WINDOW } from './listRequest';

/**
 * Every list the node reads. The real service pages a list by `page` (from 1) and `limit`, a page starting at
 * (page − 1) × limit, with its total, the newest first; records of one moment (`createdAt`) may come in another order
 * at each request. The API page reads it as a bare array of every match, cut by `limit` (docs/service.md). The rules:
 * 1. A window asks for at most WINDOW records, and for no more than the service gave where it gave fewer.
 * 2. Past the first, a window must hold the anchor: the last record read before the last window's closing run of one
 *    moment — or begin inside the anchor's own run, read whole, up to where it stood. What follows is the list's next
 *    records; each record is kept once, by what identifies it.
 * 3. A run of one moment too long for a window with its anchor: the next window, from its last record read, is taken
 *    whole (what it holds kept once) until the read is past that moment, and where the read goes on, that is said.
 * 4. A window without its anchor is asked again, once: as far as the total moved, or half a window back. Then, or where
 *    a full window adds nothing, the read starts over at page 1, asking ten times as many (a service that ignores `page`
 *    may give all at once), at most MAX_PASSES times; then it says why.
 * 5. The read ends at the Limit, at a window shorter than asked, or, in pages of a fixed size, at the total — unless
 *    the short window added records, held a page's worth (MIN_PAGE_SIZE to LARGEST_PAGE), and the total says the list
 *    goes on (without one: it held no fewer than an answer before); then the service cut it to its page. A total beyond
 *    where the list ended is said.
 * 6. An answer longer than asked; or, asked again, one without the anchor that holds the page (of the size the service
 *    gave) that follows the read: the service ignores `limit`, so its pages follow one another and cannot overlap, which
 *    a read of several says. A bare array has no pages (bareList.ts).
 */

const MAX_PASSES = 3;
/** The most windows a read asks: a million records at the real service's pages of 100, more than an execution holds. */
const MAX_WINDOWS = 10_000;

/**
 * Where a read has reached, for another to go on from: the anchor (rule 2) — what identifies it, its place in the list,
 * the total when it was read there — and the records a window asks for, or the service's fixed page (rule 6).
 */
export interface ListPosition {
	anchor: string;
	at: number;
	total?: number;
	/** The anchor's `createdAt`, and where its run of that moment began, where the answer showed it. */
	moment?: number;
	runFrom?: number;
	/** The moment of a run too long for a window that the read is in (rule 3). */
	longMoment?: number;
	/** The records of the anchor's moment read so far, by identity: a read going on knows them (rule 2). */
	runRead?: string[];
	size?: number;
	fixedPage?: number;
}

/** A window of the list: `limit` records from `offset`, asked for as `page`. */
interface Window {
	page: number;
	limit: number;
	offset: number;
}

interface ReadOptions {
	/** At most this many records (Get Many's Limit). */
	limit?: number;
	/** Where an earlier read stopped: this one goes on from there. */
	from?: ListPosition;
	/** Records the first window asks for, where fewer than a window are likely to do. */
	firstWindow?: number;
}

/** A list being read a window at a time by the rules above. readList reads it whole; others decide after a window. */
export class ListReader {
	private readonly kept = new Map<string, IDataObject>();
	/** What identifies each record this read from the list's start has read (rule 4 starts it over). */
	private passRead: Set<string>;
	/** Undefined at the list's start. */
	private anchor: ListPosition | undefined;
	/** Just past the last record read, where the last answer placed it. */
	private end: number;
	private size: number;
	private fixedPage: number | undefined;
	private askedAgain = false;
	private windowsRead = 0;
	private largestAnswer = 0;
	/** The last window was shorter than asked, and taken as cut (rule 5): an empty one after it is the list's end. */
	private cutBefore = false;
	/** A bare array's first answer, where the read goes on past it. */
	private bareFirst: { records: IDataObject[]; limit: number } | undefined;
	/** The moment of a run too long for a window (rule 3): a window from an anchor of that moment is taken whole. */
	private longMoment: number | undefined;
	/** Why the records may be incomplete, noted on the way (rules 3 and 6). */
	private noted: string | undefined;
	/** Reads from the list's start so far, less one (rule 4). */
	pass = 0;
	total: number | undefined;
	ending: ReadEnding | undefined;
	/** The records the last answer held past the anchor, in the list's order, and its `Date`. */
	lastRecords: IDataObject[] = [];
	answeredAt: number | undefined;

	constructor(
		private readonly context: ServiceContext,
		private readonly list: ListRequest,
		private readonly requestFor: RequestFor,
		private readonly options: ReadOptions = {},
	) {
		const from = options.from;
		this.anchor = from;
		this.end = from === undefined ? 0 : from.at + 1;
		this.size = Math.min(this.wanted, from?.size ?? WINDOW);
		this.fixedPage = from?.fixedPage;
		this.longMoment = from?.longMoment;
		this.passRead = new Set(from?.runRead);
	}

	/** Each record once, in the order first read; at most the Limit. */
	get records(): IDataObject[] {
		return [...this.kept.values()].slice(0, this.wanted);
	}

	/** Whether the read ended sure that it holds every record that existed while it was read. */
	get complete(): boolean {
		return this.ending !== undefined && this.ending.gap === undefined;
	}

	/** Where the read has reached; undefined at the list's start. */
	get position(): ListPosition | undefined {
		const { anchor, size, fixedPage, longMoment } = this;
		// A record not kept is of the run carried over from where this read began.
		const momentOf = (identity: string) => {
			const record = this.kept.get(identity);
			return record ? this.list.momentOf?.(record) : this.options.from?.moment;
		};
		const ofRun = (identity: string) => anchor?.moment !== undefined && momentOf(identity) === anchor.moment;
		return anchor && { ...anchor, size, fixedPage, longMoment, runRead: [...this.passRead].filter(ofRun) };
	}

	/** The windows still to read by the service's `total`; undefined without a total. */
	get windowsLeft(): number | undefined {
		if (this.ending !== undefined) return 0;
		const step = this.fixedPage ?? Math.max(1, this.size - 2);
		return this.total === undefined ? undefined : Math.ceil(Math.max(0, this.total - this.end) / step);
	}

	private get wanted(): number {
		return this.options.limit ?? Infinity;
	}

	private identity(record: IDataObject): string {
		const id = this.list.identify(record);
		return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
	}

	/** Reads the next window; false once the read has ended. */
	async readWindow(): Promise<boolean> {
		if (this.ending !== undefined) return false;
		if (this.windowsRead++ >= MAX_WINDOWS) throw endlessList(this.context, this.list, MAX_WINDOWS, this.requestFor);
		if (this.bareFirst !== undefined) {
			// The rest of a bare array is read from its start again (bareList.ts).
			this.pass += 1;
			return this.finish({}, await bareListAnswers((limit) => this.askBare(limit), this.wanted, this.bareFirst));
		}
		const window = this.nextWindow();
		const answer = await askList(this.context, this.list, this.requestFor, { page: window.page, limit: window.limit });
		this.answeredAt = answer.answeredAt;
		const page = answer.page;
		if (answer.absent) return this.finish({ absent: true });
		if (page === undefined && this.windowsRead > 1)
			return this.finish({ gap: 'the service answered a page with no list', stoppedShort: true });
		if (page === undefined) return this.finish({ notAList: true }, [asObject(answer.body)]);
		if (!page.bare) return this.take(window, page.records, page.total);
		// A bare array's first answer is a window of it: one that is all of it ends the read.
		this.bareFirst = { records: page.records, limit: window.limit };
		for (const record of page.records) this.kept.set(this.identity(record), record);
		this.lastRecords = page.records;
		const all = page.records.length < Math.min(window.limit, MIN_PAGE_SIZE) || page.records.length >= this.wanted;
		return all ? this.finish({}) : true;
	}

	private nextWindow(): Window {
		const fixed = this.fixedPage;
		const page = fixed === undefined ? 0 : Math.floor(this.end / fixed) + 1;
		if (fixed !== undefined) return { page, limit: fixed, offset: (page - 1) * fixed };
		if (this.anchor !== undefined || this.end > 0) return windowHolding(this.anchor?.at ?? 0, this.size);
		const limit =
			(this.windowsRead === 1 && this.options.firstWindow) || Math.min(this.wanted, WINDOW * 10 ** this.pass);
		return { page: 1, limit, offset: 0 };
	}

	/** Takes an answer of a paged list: carries the read on, asks again, starts over (rule 4) or ends it (rule 5). */
	private take(asked: Window, records: IDataObject[], total: number | undefined): boolean {
		const count = records.length;
		const identities = records.map((record) => this.identity(record));
		// Rule 2 (rule 3: a window from within a run too long for one is taken whole).
		const whole = this.anchor?.moment !== undefined && this.anchor.moment === this.longMoment;
		const held = this.fixedPage === undefined && this.anchor !== undefined && !whole;
		let anchorAt = this.anchor === undefined || whole ? -1 : identities.indexOf(this.anchor.anchor);
		if (held && anchorAt < 0) anchorAt = this.withinAnchorRun(records, asked.offset);
		// Rule 6: longer than asked; or, asked for fewer than the service gave before and, asked again, without the anchor,
		// the page of that size that follows the read — as many as that, or the list's end (fewer than asked, or the rest
		// of its total) — none of it read before.
		const followingPage =
			held &&
			anchorAt < 0 &&
			this.askedAgain &&
			asked.limit < this.size &&
			this.size < Math.min(this.wanted, WINDOW) &&
			(asked.page - 1) * this.size === this.end &&
			(count === this.size || (count > 0 && (count < asked.limit || this.end + count === total))) &&
			!identities.some((identity) => this.kept.has(identity));
		if (count > asked.limit || followingPage) this.fixedPage = count > asked.limit ? count : this.size;
		const fixed = this.fixedPage;
		const window = fixed === undefined ? asked : { ...asked, limit: fixed, offset: (asked.page - 1) * fixed };
		// A total smaller than the list this answer shows is of something else: it is not believed.
		const said = total !== undefined && total >= window.offset + count ? total : undefined;
		// Pages that follow one another need not hold the anchor; where one does, the service gave that page again.
		if (fixed === undefined && held && anchorAt < 0 && !(count === 0 && this.cutBefore)) return this.lostAnchor(said);
		// Within a run too long for a window the anchor may stand anywhere in it: only a total that moved shows it missed.
		const moved = said !== undefined && this.anchor?.total !== undefined && said !== this.anchor.total;
		if (whole && moved && !identities.includes(this.anchor!.anchor) && !this.askedAgain) return this.lostAnchor(said);
		// New to this read from the list's start: a read started over reads again what the one before read.
		const fresh = identities.filter((identity, index) => index > anchorAt && !this.passRead.has(identity));
		if (window.offset > 0 && fresh.length === 0 && count >= window.limit) return this.startOver();

		records.forEach((record, index) => {
			if (index <= anchorAt) return;
			this.passRead.add(identities[index]);
			if (!this.kept.has(identities[index])) this.kept.set(identities[index], record);
		});
		if (fixed !== undefined && window.offset > 0 && fresh.length > 0) this.noted ??= pagesCannotOverlap(fixed);
		if (whole && fresh.length > 0) this.noted ??= runTooLong(this.size);
		// A window asked again may be asked again only once the read has gone further than before.
		if (window.offset + count > this.end) this.askedAgain = false;
		this.total = said ?? this.total;
		this.end = window.offset + count;
		this.lastRecords = records.slice(anchorAt + 1);

		// Rule 5.
		const goesOn = said !== undefined ? this.end < said : count >= this.largestAnswer;
		this.largestAnswer = Math.max(this.largestAnswer, count);
		// Pages of a fixed size, which hold no anchor to ask beyond, end at their total too.
		if (this.kept.size >= this.wanted || (fixed !== undefined && this.end === said)) return this.finish({});
		const cut = fixed === undefined && fresh.length > 0 && count >= MIN_PAGE_SIZE && count <= LARGEST_PAGE && goesOn;
		if (count < window.limit && !cut) {
			const left = said !== undefined && said > this.end;
			return this.finish(
				left ? { gap: `the service said it holds ${said} but listed ${this.end}: it left some out` } : {},
			);
		}
		this.cutBefore = count < window.limit;
		if (this.cutBefore) this.size = Math.min(this.size, count);
		// Where the list may end here (the total reached, or cut without one), a run too long for the window is said only
		// if the read goes on.
		const endMayBeHere = said !== undefined ? this.end >= said : this.cutBefore;
		this.moveAnchor(identities, records, anchorAt, window.offset, said, !endMayBeHere);
		return true;
	}

	/**
	 * Rule 2: the anchor is the last record before the closing run of one moment; the last record, where records say
	 * no moment or pages follow one another. Where the run is all that followed the old anchor, the old one stays, at
	 * its new place — unless no window holding it reaches further (rule 3).
	 */
	private moveAnchor(
		identities: string[],
		records: IDataObject[],
		anchorAt: number,
		offset: number,
		total: number | undefined,
		readGoesOn: boolean,
	) {
		if (records.length === 0) return;
		const moment = (index: number) => this.list.momentOf?.(records[index]);
		let runStart = records.length - 1;
		const last = moment(runStart);
		if (last === undefined || this.fixedPage !== undefined) runStart += 1;
		else while (runStart > anchorAt + 1 && moment(runStart - 1) === last) runStart -= 1;
		const at = Math.max(runStart - 1, anchorAt);
		if (at >= 0) {
			// The anchor's own run of one moment, where the answer shows where it began.
			let from = at;
			while (from > 0 && moment(from - 1) === moment(at)) from -= 1;
			const run = moment(at) !== undefined && (from > 0 || offset === 0) ? { runFrom: offset + from } : {};
			this.anchor = { anchor: identities[at], at: offset + at, total, moment: moment(at), ...run };
		}
		const next = windowHolding(this.anchor?.at ?? 0, this.size);
		if (this.fixedPage !== undefined || next.offset + next.limit > this.end) return;
		this.longMoment = last;
		this.anchor = { anchor: identities[records.length - 1], at: this.end - 1, total, moment: last };
		if (readGoesOn) this.noted ??= runTooLong(this.size);
	}

	/**
	 * Rule 2, where the anchor moved within its moment (the service orders a moment's records anew): a window that begins
	 * inside the anchor's run, read whole before, holds records of it, each read, up to where the anchor stood.
	 */
	private withinAnchorRun(records: IDataObject[], offset: number): number {
		const { moment, runFrom, at } = this.anchor!;
		const last = at - offset;
		if (runFrom === undefined || offset < runFrom || last >= records.length) return -1;
		const ofTheRun = (record: IDataObject) =>
			this.list.momentOf?.(record) === moment && this.passRead.has(this.identity(record));
		return records.slice(0, last + 1).every(ofTheRun) ? last : -1;
	}

	/** Rule 4: asked again as far as the total moved (or half a window back), once; then the read starts over. */
	private lostAnchor(total: number | undefined): boolean {
		const anchor = this.anchor!;
		if (this.askedAgain) return this.startOver();
		const moved = total !== undefined && anchor.total !== undefined ? total - anchor.total : 0;
		this.askedAgain = true;
		this.anchor = { ...anchor, at: Math.max(0, anchor.at + (moved === 0 ? -Math.ceil(this.size / 2) : moved)), total };
		return true;
	}

	private startOver(): boolean {
		this.pass += 1;
		[this.anchor, this.end, this.askedAgain, this.passRead] = [undefined, 0, false, new Set()];
		if (this.pass < MAX_PASSES) return true;
		return this.finish({
			gap: `on each of ${MAX_PASSES} reads from its start, a page held none of what the read before it held, or nothing more: the service ignores page, or the list changed too much while it was read`,
			stoppedShort: true,
		});
	}

	private async askBare(limit: number | undefined): Promise<IDataObject[]> {
		this.windowsRead += 1;
		return (
			(await askList(this.context, this.list, this.requestFor, limit === undefined ? {} : { limit })).page?.records ??
			[]
		);
	}

	/** Ends the read; `records` (a bare list's, or an answer that is no list) are kept as they come. */
	private finish(ending: ReadEnding, records: IDataObject[] = []): false {
		for (const record of records)
			if (!this.kept.has(this.identity(record))) this.kept.set(this.identity(record), record);
		if (records.length > 0) this.lastRecords = this.records;
		this.ending = { ...ending, gap: ending.gap ?? this.noted };
		return false;
	}
}

const runTooLong = (size: number) =>
	`more records share one moment (createdAt) than a window of ${size} holds with the one before them, and the service may list those in another order at each request`;
const pagesCannotOverlap = (fixed: number) =>
	`the service gives ${fixed} records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another`;

/** The window of at most `size` records that holds the record at `at` and reaches furthest. */
function windowHolding(at: number, size: number): Window {
	let best: Window = { page: 1, limit: size, offset: 0 };
	for (let limit = size; limit >= 1; limit--) {
		const page = Math.floor(at / limit) + 1;
		if (page * limit > best.offset + best.limit) best = { page, limit, offset: (page - 1) * limit };
	}
	return best;
}

/** Reads a whole list (or its first `limit` records) from the service. */
export async function readList(
	this: ServiceContext,
	list: ListRequest,
	requestFor: RequestFor,
	limit?: number,
): Promise<ListReader> {
	const reader = new ListReader(this, list, requestFor, { limit });
	while (await reader.readWindow());
	return reader;
}
