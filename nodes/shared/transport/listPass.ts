import type { ListHabits } from './listAnswer';
import { MIN_PAGE_SIZE, PAGE_SIZE } from './listAnswer';
import type { Window } from './listWindows';
import { overlappingWindow } from './listWindows';

/** An answer to page 1: how many it asked for, and what identifies each record it held. */
interface PageOneAnswer {
	limit: number;
	identities: Set<string>;
}

/**
 * One pass over a list (pagedList.ts, rules 2 to 4): the windows it asks for, and how far each carries it. A pass from
 * the list's start reads page 1 first; one that goes on where an earlier read stopped starts at its anchor.
 */
export class ListPass {
	/** What identifies each record the pass read. */
	readonly read = new Set<string>();

	/** The offset just past the record the pass reached last (its anchor), as the service counts it. */
	end = 0;

	anchor: string | undefined;

	/** The service's total at the pass's first answer. */
	totalAtStart: number | undefined;

	/** The windows of page 1 still to ask for, by their `limit`; the largest answer to page 1 so far. */
	private pageOne: number[] = [];

	private pageOneRead: PageOneAnswer | undefined;

	/**
	 * Page 1 asks for PAGE_SIZE, ten times more each new pass (a service that ignores `page` but gives as many as asked
	 * then gives all at once), after a small first window where one is asked for.
	 */
	constructor(
		readonly number: number,
		wanted: number,
		start: { firstWindow?: number } | { end: number; anchor: string },
	) {
		if ('anchor' in start) {
			this.end = start.end;
			this.anchor = start.anchor;
			return;
		}
		const large = Math.min(wanted, PAGE_SIZE * 10 ** number);
		const { firstWindow } = start;
		this.pageOne = firstWindow === undefined || firstWindow >= large ? [large] : [firstWindow, large];
	}

	/** Page 1 as the pass asks for it, then windows that overlap the anchor (or pages that follow one another). */
	nextWindow(habits: ListHabits, pageSize: number): Window {
		const fixed = habits.fixedPageSize;
		if (fixed !== undefined && this.end > 0) {
			const page = Math.floor(this.end / fixed) + 1;
			return { page, limit: fixed, offset: (page - 1) * fixed };
		}
		const limit = this.pageOne.shift();
		return limit === undefined ? overlappingWindow(this.end, pageSize) : { page: 1, limit, offset: 0 };
	}

	/**
	 * How far a window carries the pass, or false where it does not (rule 4). Past page 1, by what follows the anchor in
	 * it, wherever the service placed it — on pages of a fixed size, by what it holds that the pass had not read; on
	 * page 1, as far as page 1 was read (it is the list's start).
	 */
	reach(window: Window, asked: Window, identities: string[], habits: ListHabits, total?: number): number | false {
		const added = identities.filter((identity) => !this.read.has(identity)).length;
		if (window.offset === 0) return this.readPageOne(asked.limit, identities, habits, total) && this.read.size + added;
		if (habits.fixedPageSize !== undefined) return window.offset <= this.end && this.end + added;
		const at = this.anchor === undefined ? -1 : identities.indexOf(this.anchor);
		return at < 0 ? false : this.end + identities.length - 1 - at;
	}

	/** Moves the pass on to `reach`, the window's records read. */
	advance(window: Window, identities: string[], reach: number): void {
		for (const identity of identities) this.read.add(identity);
		this.end = Math.max(this.end, reach);
		if (window.offset > 0) this.anchor = identities.at(-1);
	}

	/** At the list's end: whether the small window of page 1 that shows the newest is still to be read. */
	newestStillToRead(window: Window, habits: ListHabits): boolean {
		this.pageOne = this.pageOne.filter((limit) => limit < window.limit);
		return this.pageOne.length > 0 && habits.fixedPageSize === undefined;
	}

	/**
	 * Page 1: false where it holds nothing the pass read before. Where a large first answer holds fewer than the total,
	 * it may have left out the newest, so a small window reads page 1 again; two answers that disagree show it did
	 * (the smaller should be the larger's start, but holds a record it lacks: rule 3). The largest holds the anchor.
	 */
	private readPageOne(limit: number, identities: string[], habits: ListHabits, total?: number): boolean {
		if (this.read.size > 0 && !identities.some((identity) => this.read.has(identity))) return false;
		if (this.read.size === 0 && limit >= PAGE_SIZE && identities.length < (total ?? 0)) this.pageOne.push(MIN_PAGE_SIZE);
		const answer = { limit, identities: new Set(identities) };
		const before = this.pageOneRead;
		if (before !== undefined && before.limit !== limit) {
			const [smaller, larger] = limit < before.limit ? [answer, before] : [before, answer];
			// A deletion between the two looks alike: windows are then a record smaller than they could be, nothing more.
			if ([...smaller.identities].some((identity) => !larger.identities.has(identity)))
				habits.largePagesLeaveOutNewest = true;
		}
		if (identities.length >= (before?.identities.size ?? 0)) {
			this.pageOneRead = answer;
			this.anchor = identities.at(-1);
		}
		return true;
	}
}
