import type { ListHabits } from './listAnswer';
import { MIN_PAGE_SIZE, PAGE_SIZE } from './listAnswer';
import type { Window } from './listWindows';
import { overlappingWindow } from './listWindows';

/** An answer to a window of a pass: what identifies each record, in the list's order, and the total it gave. */
export interface Answer {
	identities: string[];
	total?: number;
}

/**
 * Where a window leaves the pass: at `end` (further on, or where it was; `guessed` where page 1 was placed by what it
 * lacks, which a deletion can mimic), its window to ask again (`back`), or over.
 */
export type Step = { end: number; guessed?: boolean } | 'back' | 'over';

/**
 * One pass over a list (pagedList.ts, rules 2 to 4), its positions as the service counts them now: the windows it asks
 * for, and where each leaves it. A pass from the list's start reads page 1 first; one that goes on where an earlier
 * read stopped starts at that read's anchor.
 */
export class ListPass {
	/** What identifies each record the pass read. */
	readonly read = new Set<string>();

	/** The offset just past the last record the pass reached (its anchor), and the total of the answer that held it. */
	end = 0;

	private anchor: { identity: string; total?: number; askedAgain?: boolean } | undefined;

	/** The `limit`s page 1 is asked for, in turn. */
	private readonly pageOneLimits: number[] = [];

	/** The answers to page 1, in the order asked: the first is the list's start, and places the others. */
	private readonly pageOne: Answer[] = [];

	/**
	 * Page 1 asks for PAGE_SIZE — ten times more each new pass, so a service that ignores `page` but gives as many as asked
	 * gives all at once — after a small window (rule 2); a Limit under PAGE_SIZE is asked for at once. `lackedBefore`: what
	 * the pass before this one found its page 1 lacked.
	 */
	constructor(
		readonly number: number,
		wanted: number,
		goOn?: { offset: number; anchor: string; total?: number },
		private readonly lackedBefore?: string,
	) {
		if (goOn !== undefined) {
			this.end = goOn.offset;
			this.anchor = { identity: goOn.anchor, total: goOn.total };
			return;
		}
		const large = Math.min(wanted, PAGE_SIZE * 10 ** number);
		this.pageOneLimits = large < PAGE_SIZE ? [large] : [MIN_PAGE_SIZE, large];
	}

	/** What page 1 lacked: the records the first answer showed that the last larger answer placed by them left out. */
	get lacked(): string | undefined {
		const [first, ...later] = this.pageOne;
		return later
			.map((answer) => placement(first, answer).lacked)
			.reverse()
			.find((lacked) => lacked !== undefined);
	}

	/** Page 1 as the pass asks for it, then windows that overlap the anchor (or pages that follow one another). */
	nextWindow(habits: ListHabits, pageSize: number): Window {
		const limit = this.pageOneLimits[this.pageOne.length];
		if (limit === undefined || (habits.fixedPageSize !== undefined && this.end > 0)) return windowPast(this.end, habits, pageSize);
		return { page: 1, limit, offset: 0 };
	}

	/**
	 * The window the pass asks after `window` past page 1 if that comes back full and where asked: known before its
	 * answer, so it may be asked before its turn. Undefined after page 1, which is placed by what it holds.
	 */
	windowAfter(window: Window, habits: ListHabits, pageSize: number): Window | undefined {
		return window.offset === 0 ? undefined : windowPast(window.offset + window.limit, habits, pageSize);
	}

	/**
	 * Where a window leaves the pass. Page 1: the first answer is the list's start; a larger one is placed by it (rule 2).
	 * Past page 1, a window must hold the anchor: what follows it there is the list's next records, wherever the anchor
	 * stands (records added before it push it in). Without it, where the list shrank, the window is asked again as far
	 * back, once. Holding it, the window is page 1 again (the service ignores `page`) where the anchor would then have
	 * moved no further than where it was asked, and the total, if any, fell by as much: page 1 again needs that many
	 * deletions before the anchor. Otherwise the pass starts over (rule 4). Pages of a fixed size follow one another,
	 * and move on by what they add.
	 */
	step(window: Window, answer: Answer, habits: ListHabits, lastFellShort: boolean): Step {
		const { identities, total } = answer;
		if (window.offset === 0) return this.placePageOne(window, answer, habits);
		if (habits.fixedPageSize !== undefined) {
			// An empty page is the list's end; any other moves on by what it adds.
			const adds = identities.length === 0 || identities.some((identity) => !this.read.has(identity));
			return window.offset <= this.end && adds ? this.reached(window.offset + identities.length, answer) : 'over';
		}
		// Nothing where a page that fell short of what it asked ended: the list's end.
		if (identities.length === 0 && lastFellShort) return { end: this.end };
		const at = this.anchor === undefined ? -1 : identities.indexOf(this.anchor.identity);
		const shrank = (this.anchor?.total ?? 0) - (total ?? this.anchor?.total ?? 0);
		if (at < 0 && shrank > 0 && this.anchor?.askedAgain !== true) {
			this.anchor = { ...this.anchor!, askedAgain: true };
			this.end = Math.max(1, this.end - shrank);
			return 'back';
		}
		if (at < 0) return 'over';
		// How far the anchor moved since it was read, were the window where it was asked, or page 1.
		const movedAsAsked = Math.abs(window.offset + at - (this.end - 1));
		const movedFromStart = this.end - 1 - at;
		const fell = total === undefined || this.anchor?.total === undefined ? Infinity : this.anchor.total - total;
		if (movedFromStart <= movedAsAsked && fell >= movedFromStart) return 'over';
		return this.reached(window.offset + identities.length, answer);
	}

	/** Whether a window holds the record the pass reached last, where it has one. */
	holdsAnchor(identities: string[]): boolean {
		return this.anchor === undefined || identities.includes(this.anchor.identity);
	}

	/** The pass moves on to `end`, the window's last record its anchor. */
	private reached(end: number, answer: Answer): { end: number } {
		const last = answer.identities.at(-1);
		if (last !== undefined) this.anchor = { identity: last, total: answer.total };
		for (const identity of answer.identities) this.read.add(identity);
		this.end = Math.max(this.end, end);
		return { end: this.end };
	}

	/**
	 * Page 1. The first answer is the list's start. A larger one holds the first answer's records from where they stand
	 * in it on: where it lacks some the first showed before them (and the list did not shrink), it left out the newest
	 * (the real service's quirk, of pages of PAGE_SIZE), and starts as far on — a guess, as deletions there and as many
	 * arrivals further on look the same, until the pass before found the same ones lacked (a deleted record is not shown
	 * again). One that holds none of them left out all the first showed, and more — unless it is smaller than a page of
	 * PAGE_SIZE, or the list shrank, or grew by as many as it holds: then the list moved under it, and the pass starts
	 * over.
	 */
	private placePageOne(window: Window, answer: Answer, habits: ListHabits): Step {
		this.pageOne.push(answer);
		const [first] = this.pageOne;
		if (answer === first) return this.reached(answer.identities.length, answer);
		const { shared, start, grew, lacked } = placement(first, answer);
		if (shared < 0) {
			if (grew < 0 || window.limit < PAGE_SIZE || (grew > 0 && grew >= answer.identities.length)) return 'over';
			// Page 1 is read on in windows smaller than a page of PAGE_SIZE.
			habits.largePagesLeaveOutNewest = true;
			return 'back';
		}
		if (start > 0) habits.largePagesLeaveOutNewest = true;
		const guessed = start > 0 && lacked !== this.lackedBefore;
		return { ...this.reached(start + answer.identities.length, answer), guessed };
	}
}

/** The window past page 1 that follows what was read up to `end`: it overlaps the anchor, or is the next fixed page. */
function windowPast(end: number, habits: ListHabits, pageSize: number): Window {
	const fixed = habits.fixedPageSize;
	if (fixed === undefined || end === 0) return overlappingWindow(end, pageSize);
	const page = Math.floor(end / fixed) + 1;
	return { page, limit: fixed, offset: (page - 1) * fixed };
}

/**
 * Where a later answer to page 1 stands against the first: the first record they share, where it starts (past the
 * records it lacks, the first showed before that one, unless the list shrank), those it lacks, and how much the total
 * grew between them.
 */
function placement(first: Answer, answer: Answer): { shared: number; start: number; grew: number; lacked?: string } {
	const shared = first.identities.findIndex((identity) => answer.identities.includes(identity));
	const grew = (answer.total ?? 0) - (first.total ?? 0);
	const leftOut = shared < 0 ? 0 : shared - answer.identities.indexOf(first.identities[shared]);
	if (leftOut <= 0 || grew < 0) return { shared, start: 0, grew };
	return { shared, start: leftOut, grew, lacked: first.identities.slice(0, shared).join('\n') };
}
