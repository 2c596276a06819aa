import type { IDataObject } from 'n8n-workflow';

import { asObject } from './answerShapes';
import { bareListAnswers } from './bareList';
import type { ListAnswer, ListHabits, ListRead, ListRequest, ReadEnding } from './listAnswer';
import { askList, endlessList, listHabits, MAX_RECORDS, MIN_PAGE_SIZE, PAGE_SIZE } from './listAnswer';
import { ListPass } from './listPass';
import type { ReadOptions, ReadWindow, Window } from './listWindows';
import type { RequestFor } from './serviceRequest';
import type { ServiceContext } from './session';
import { WindowsAhead } from './windowsAhead';

/**
 * Every list the node reads: in windows (`page` from 1 and `limit`; a page starts at `(page − 1) × limit`), each an
 * ordinary request, each record kept once by what identifies it, its place counted as the service counts it now. The
 * API page leaves shape, paging and order open; the real service pages its lists (../shared/notes/real-service.md):
 * 1. What an answer shows is learned once a run (ListHabits): a bare array or a page, the most one answer held.
 * 2. A pass starts at the list's start: a small window, then page 1 of PAGE_SIZE (ten times more each new pass), placed
 *    by the small one — the real service's pages of 100 leave out its newest, which small ones show. Placed by what it
 *    lacks, it is a guess (a deletion and an arrival look the same) until a later pass finds the same ones left out.
 * 3. Every later window holds the record the pass reached last (its anchor), and is placed where that moves the anchor
 *    least: where it was asked for, or at the list's start (the service ignores `page`: the pass starts over) where the
 *    total fell by as much. It asks for no more than one answer held (fewer than PAGE_SIZE once page 1 showed the quirk).
 * 4. A window without its anchor is asked again as far back as the list shrank, once; otherwise, or where it adds
 *    nothing, the pass starts over; after MAX_PASSES the read ends and says why (`gap`).
 * 5. A pass ends at a window shorter than asked, or at the Limit. Where the service may have cut the window (to a page
 *    of its own), it ends the list only where the pass reached the total, not by a guess; otherwise a total says only
 *    whether what was read is whole, and one smaller than what was read is not believed.
 * 6. A bare array (the API page's reading) has no pages (bareList.ts). An answer larger than asked means `limit` is
 *    ignored: pages follow one another, cannot overlap, and a read of several says a deletion could hide a record.
 * 7. A read that goes on to the list's end (`readAhead`), once a window past page 1 has carried a read of the run on
 *    (the service honours `page`), asks the windows its total says are to come before their turn, each once, where it
 *    lies if those before it come back full; not pages of a fixed size, which have no anchor to check. An answer asked
 *    ahead is taken in its turn by the rules above where it holds the anchor; without it (the rules read a window as
 *    asked after the one before it, and this one may have been answered first), or failed, that window is asked again
 *    then. Where the pass asks another window, the ones asked ahead are dropped; the read ends once they are over.
 */

/** Passes (rule 4): page 1 asks 100, 1,000, 10,000 records (listPass.ts). */
const MAX_PASSES = 3;

/** A list being read a window at a time by the rules above. readList reads it whole; others decide after a window. */
export class PagedList implements ListRead {
	private readonly byIdentity = new Map<string, IDataObject>();

	private readonly habits: ListHabits;

	private pass: ListPass;

	private windowsRead = 0;

	/** Whether the last window held fewer than it asked: a page past it that holds nothing is the list's end. */
	private lastFellShort = false;

	total: number | undefined;

	/** How the read ended; undefined while it goes on. */
	ending: ReadEnding | undefined;

	lastWindow: ReadWindow = { records: [], offset: 0 };

	private readonly ahead = new WindowsAhead();

	constructor(
		private readonly context: ServiceContext,
		private readonly list: ListRequest,
		private readonly requestFor: RequestFor,
		private readonly options: ReadOptions = {},
	) {
		this.habits = listHabits(context, list.path);
		const goOn = options.goOnAt;
		this.pass = new ListPass(0, this.wanted, goOn && { ...goOn, anchor: `id:${goOn.after}` });
	}

	get records(): IDataObject[] {
		return [...this.byIdentity.values()].slice(0, this.wanted);
	}

	get complete(): boolean {
		return this.ending !== undefined && this.ending.gap === undefined;
	}

	/** The windows still to read by the service's `total`; undefined without a total. */
	get windowsLeft(): number | undefined {
		const left = this.total === undefined ? undefined : Math.max(0, this.total - this.pass.end);
		// After the small first window, windows of a page are to come, unless the service has shown a smaller one.
		const step = (this.habits.largestAnswer > MIN_PAGE_SIZE ? this.pageSize : PAGE_SIZE) - 1;
		return this.ending !== undefined ? 0 : left && Math.ceil(left / step);
	}

	/** Records a window past page 1 asks for (rule 3). */
	private get pageSize(): number {
		const most = this.habits.largePagesLeaveOutNewest ? PAGE_SIZE - 1 : PAGE_SIZE;
		return Math.min(most, Math.max(MIN_PAGE_SIZE, this.habits.largestAnswer));
	}

	private get wanted(): number {
		return this.options.limit ?? Infinity;
	}

	private identity(record: IDataObject): string {
		const id = this.list.identify(record);
		return id !== undefined ? `id:${id}` : `json:${JSON.stringify(record)}`;
	}

	/** Reads the next window; false once the read has ended, when nothing more is asked for. */
	async readWindow(): Promise<boolean> {
		let more = false;
		try {
			more = await this.readNextWindow();
			return more;
		} finally {
			// A read that ended, or failed, leaves no window asked ahead in flight.
			if (!more) await this.ahead.settle();
		}
	}

	private async readNextWindow(): Promise<boolean> {
		if (this.ending !== undefined) return false;
		if (this.windowsRead >= MAX_RECORDS / PAGE_SIZE) throw endlessList(this.context, this.list, this.windowsRead, this.requestFor);
		if (this.habits.bare) {
			// Known to be bare, the list has no newest a page leaves out: it is asked for a page.
			const limit = Math.min(this.wanted, PAGE_SIZE);
			const first = { records: await this.askBare(limit), limit };
			return this.finish({}, await bareListAnswers((limit) => this.askBare(limit), this.wanted, first));
		}
		const window = this.pass.nextWindow(this.habits, this.pageSize);
		const answer = await this.answerTo(window);
		if (answer.absent) return this.finish({ absent: true });
		if (answer.page === undefined) {
			// Not a list: on the first window it is shown as the service sent it; later, it ends the list.
			if (this.windowsRead > 1) return this.finish({ gap: 'the service answered a page with no list', stoppedShort: true });
			return this.finish({ notAList: true }, [[asObject(answer.body)]]);
		}
		if (!answer.page.bare) return this.take(answer.page, window, answer.answeredAt);
		this.habits.bare = true;
		const first = { records: answer.page.records, limit: window.limit };
		return this.finish({}, await bareListAnswers((limit) => this.askBare(limit), this.wanted, first));
	}

	/** Takes a window of a list in an object: carries the pass on, ends it (rule 5), or starts a new one (rule 4). */
	private take(page: NonNullable<ListAnswer['page']>, asked: Window, answeredAt: number | undefined): boolean {
		const { records, total } = page;
		if (records.length > asked.limit) this.habits.fixedPageSize = records.length;
		const fixed = this.habits.fixedPageSize;
		const window = fixed === undefined ? asked : { ...asked, limit: fixed, offset: (asked.page - 1) * fixed };
		// Shorter than asked is the list's end, unless the service may have cut it: to no fewer than it has given before
		// (or than any service gives), and to no more than a page (a service that cuts `limit` cuts it at a page).
		const count = records.length;
		const mayBeCut = count >= Math.max(this.habits.largestAnswer, MIN_PAGE_SIZE) && count <= PAGE_SIZE;
		this.habits.largestAnswer = Math.max(this.habits.largestAnswer, count);
		// A total smaller than the pass has read is of something else: it is not believed.
		if (total !== undefined && total >= this.pass.read.size) this.total = total;
		const identities = records.map((record) => this.identity(record));
		const before = this.pass.end;
		const step = this.pass.step(window, { identities, total: this.total }, this.habits, this.lastFellShort);
		this.lastFellShort = count < window.limit;
		if (step === 'back') return true;
		if (step === 'over') return this.startOver();
		// Where the pass placed the window by what it holds, it reached the total: a page the service may have cut ends the
		// list there, and so does a page of the service's own size (a service that ignores `limit` may show its first page
		// whatever the page).
		const reachedTotal = !step.guessed && step.end >= (this.total ?? Infinity);
		const short = count < window.limit ? !mayBeCut || reachedTotal : fixed !== undefined && reachedTotal;
		// A window past page 1 that adds nothing, and is no list's end, does not carry the pass on either.
		if (window.offset > 0 && step.end <= before && !short && count > 0) return this.startOver();
		if (window.offset > 0 && step.end > before) this.habits.honoursPage = true;

		this.keep(records, identities, window.offset === 0);
		this.lastWindow = { records, offset: window.offset, answeredAt };
		// Rule 5: the list's end is a window that falls short; a total only says whether what it held is whole.
		if (!(this.byIdentity.size >= this.wanted || short || count === 0)) return true;
		const unchecked = `the service gives ${fixed} records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another`;
		return this.finish({ gap: fixed !== undefined && step.end > fixed ? unchecked : this.shortOf(step.end) });
	}

	/** Rule 4: a window did not carry the pass on; a new pass starts at the list's start, or the read ends. */
	private startOver(): boolean {
		const passes = this.pass.number + 1;
		if (passes < MAX_PASSES) {
			this.pass = new ListPass(passes, this.wanted, undefined, this.pass.lacked);
			return true;
		}
		return this.finish({
			gap: `on each of ${passes} reads from its start, a page held none of what the read before it held, or nothing more: the service ignores page, or the list changed too much while it was read`,
			stoppedShort: true,
		});
	}

	/**
	 * Keeps a window's records, each once, in the list's order: those a window of page 1 holds before any kept so far are
	 * the list's newest, and go before them all (the rest of the window follows, as usual).
	 */
	private keep(records: IDataObject[], identities: string[], pageOne: boolean): void {
		const leading = pageOne ? identities.findIndex((identity) => this.byIdentity.has(identity)) : 0;
		const earlier = leading > 0 ? [...this.byIdentity] : [];
		if (leading > 0) this.byIdentity.clear();
		records.forEach((record, index) => {
			if (index === leading) for (const [identity, kept] of earlier) this.byIdentity.set(identity, kept);
			if (!this.byIdentity.has(identities[index])) this.byIdentity.set(identities[index], record);
		});
	}

	/**
	 * The answer to `window`: the one asked ahead for it where it holds the anchor (rule 7), or asked now; the windows
	 * that follow it are asked ahead.
	 */
	private async answerTo(window: Window): Promise<ListAnswer> {
		const askedAhead = this.ahead.take(window);
		const askedNow = askedAhead === undefined ? this.request(window, this.requestFor) : undefined;
		this.askAhead(window);
		if (askedNow !== undefined) return this.counted(await askedNow);
		const answer = await askedAhead;
		const identities = answer?.page?.records.map((record) => this.identity(record));
		if (identities !== undefined && this.pass.holdsAnchor(identities)) return this.counted(answer!);
		return this.ask({ page: window.page, limit: window.limit });
	}

	/** Asks ahead the windows after `window` the total says are to come (rule 7). */
	private askAhead(window: Window): void {
		const { honoursPage, fixedPageSize } = this.habits;
		if (this.options.readAhead !== true || honoursPage !== true || fixedPageSize !== undefined) return;
		const end = Math.min(this.total ?? 0, this.wanted);
		// Sent once: one that fails is asked again in its turn, and one dropped costs a single attempt.
		const once = { ...this.requestFor, policy: { ...this.requestFor.policy, maxRetries: 0 } };
		this.ahead.askAfter(
			window,
			(last) => {
				const after = this.pass.windowAfter(last, this.habits, this.pageSize);
				return after !== undefined && after.offset < end ? after : undefined;
			},
			(after) => this.request(after, once),
		);
	}

	private request(window: Window, requestFor: RequestFor): Promise<ListAnswer> {
		return askList(this.context, this.list, requestFor, { page: window.page, limit: window.limit });
	}

	/** An answer taken in its turn: it counts as a window read, and its `Date` is the last window's. */
	private counted(answer: ListAnswer): ListAnswer {
		this.windowsRead += 1;
		this.lastWindow = { ...this.lastWindow, answeredAt: answer.answeredAt };
		return answer;
	}

	private async ask(paging: IDataObject): Promise<ListAnswer> {
		return this.counted(await askList(this.context, this.list, this.requestFor, paging));
	}

	private async askBare(limit: number | undefined): Promise<IDataObject[]> {
		return (await this.ask(limit === undefined ? {} : { limit })).page?.records ?? [];
	}

	/** Ends the read; `answers` (a bare list's, or an answer that is no list) are kept as they come. */
	private finish(ending: ReadEnding, answers: IDataObject[][] = []): false {
		for (const record of answers.flat()) {
			const identity = this.identity(record);
			if (!this.byIdentity.has(identity)) this.byIdentity.set(identity, record);
		}
		if (answers.length > 0) this.lastWindow = { ...this.lastWindow, records: this.records, offset: 0 };
		this.ending = ending;
		return false;
	}

	/** Whether the service said it holds more than the list ended with, where the pass read to its end. */
	private shortOf(end: number): string | undefined {
		if (this.total === undefined || end >= this.total || this.byIdentity.size >= this.wanted) return undefined;
		return `the service said it holds ${this.total} but listed ${end}: it left some out`;
	}
}

/** Reads a whole list (or its first `limit` records) from the service. */
export async function readList(
	this: ServiceContext,
	list: ListRequest,
	requestFor: RequestFor,
	limit?: number,
): Promise<ListRead> {
	const reader = new PagedList(this, list, requestFor, { limit, readAhead: true });
	while (await reader.readWindow());
	return reader;
}
