import type { IDataObject } from 'n8n-workflow';

import type { ListHabits } from '../shared/transport/listAnswer';

/** How much later a registration may be listed than it was made (a slow write, a server whose clock is behind). */
export const LISTED_LATE_WITHIN_MS = 2 * 60_000;
/** A `Date` header is to the second. */
const DATE_PRECISION_MS = 1000;

/**
 * What the Poll Trigger remembers between polls, in the workflow's static data. Every time in it is in the clock the
 * service writes `createdAt` by, which need not be the clock of its `Date` header (nor name its zone).
 */
export interface PollState {
	/** The list the state is about: the form's slug, or '' for every form. */
	list?: string;
	/** The cursor: the newest `createdAt` read. */
	newest?: number;
	/** When the last complete poll began, as far as the service's `Date` less its lead shows (at the latest). */
	polledAt?: number;
	/** How far the `Date` clock is ahead of createdAt's, at most: the least `Date` + 1 s − `createdAt` seen. */
	lead?: number;
	/** The registrations read that a later poll may read again, by identity, with their `createdAt` (0: none). */
	seen?: Record<string, number>;
	/** The list's order: the newest first, shown; another, shown; unknown while nothing has shown it. */
	order?: 'newestFirst' | 'other';
	/** How the service answers lists (pagedList.ts), so that a poll's first request is already the right one. */
	habits?: ListHabits;
	/**
	 * A poll cut short by n8n's poll budget: where the next goes on (the offset, the last registration read), and the
	 * `Date` when that chain of polls began.
	 */
	goOnAt?: number;
	goOnAfter?: string;
	chainDate?: number;
	/** Set once the activation has read all it had to: from then on, what is new is emitted. */
	started?: boolean;
}

/**
 * What a registration listed after the last complete poll was made at or after: the poll's start less the lateness
 * allowed — and, once that is past the cursor, just after the cursor (everything made by then was listed). Without a
 * `Date`, the cursor less the lateness. -Infinity before anything was read: every registration listed is new.
 */
export function sinceOf(state: PollState): number {
	if (state.newest === undefined) return -Infinity;
	if (state.polledAt === undefined) return state.newest - LISTED_LATE_WITHIN_MS;
	return Math.min(state.polledAt - LISTED_LATE_WITHIN_MS, state.newest + 1);
}

/** The createdAt-clock time of an answer's `Date`, at the latest (its lead is at least the clocks' distance). */
export function inCreatedAtClock(date: number | undefined, lead: number | undefined): number | undefined {
	return date === undefined || lead === undefined ? undefined : date - lead;
}

/** The lead an answer's `Date` shows against a registration it lists: the `Date` clock is ahead by at most this. */
export function leadShown(date: number | undefined, createdAt: number | undefined): number | undefined {
	return date === undefined || createdAt === undefined ? undefined : date + DATE_PRECISION_MS - createdAt;
}

/**
 * The state saved by the trigger before 0.6, carried over: its `startedAt` (the `Date` of the last complete poll's start,
 * taken as createdAt's clock where `createdAt` named its zone) is `polledAt`, its order and habits map onto these, and
 * its chain goes on. The lead is measured anew. No registration it remembered is forgotten, none is emitted again.
 */
export function carriedOver(saved: IDataObject): PollState {
	const state = saved as PollState & { startedAt?: number; clocked?: boolean; chainStartedAt?: number };
	if (state.startedAt === undefined && state.clocked === undefined) return state;
	const habits = state.habits;
	return {
		list: state.list,
		newest: state.newest,
		polledAt: state.clocked === true ? state.startedAt : undefined,
		seen: state.seen,
		// 'oldestFirst' or 'none' were also taken where nothing had shown the order: it is learned anew.
		order: state.order === 'newestFirst' ? 'newestFirst' : undefined,
		habits: habits && { bare: habits.bare, largestAnswer: habits.largestAnswer, fixedPageSize: habits.fixedPageSize },
		// A chain under way goes on from the list's start: nothing named where it had reached.
		chainDate: state.goOnAt === undefined || state.clocked !== true ? undefined : state.chainStartedAt,
		started: state.started,
	};
}
