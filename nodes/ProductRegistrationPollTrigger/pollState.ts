import type { IDataObject } from 'n8n-workflow';

import type { ListPosition } from '../shared/transport/lists/listReader';

/** How much later a registration may be listed than it was made (a slow write, a server whose clock is behind). */
export const LISTED_LATE_WITHIN_MS = 2 * 60_000;
/** A `Date` header is to the second. */
const DATE_PRECISION_MS = 1000;

/**
 * What the Poll Trigger remembers between polls, in the workflow's static data. Every time in it but `newestListedAt`
 * and `chainDate` is in the clock the service writes `createdAt` by, which need not be its `Date` header's.
 */
export interface PollState {
	/** The list the state is about: the form's slug, or '' for every form. */
	list?: string;
	/** The cursor: the newest `createdAt` read, and the `Date` of the answer that first listed it. */
	newest?: number;
	newestListedAt?: number;
	/** When the last complete poll began, at the earliest (pollStart). */
	polledAt?: number;
	/** The registrations read that a later poll may read again, by identity, with their `createdAt` (0: none). */
	seen?: Record<string, number>;
	/** The list's order as a whole read showed it (List Order: Learn From the Answers). */
	order?: 'newestFirst' | 'other';
	/** A poll cut short by n8n's poll budget: where the next goes on, and the `Date` when that chain of polls began. */
	goOn?: { offset: number; after: string } & Omit<ListPosition, 'anchor' | 'at'>;
	chainDate?: number;
	/** Set once the activation has read all it had to: from then on, what is new is emitted. */
	started?: boolean;
}

/**
 * What a registration listed after the last complete poll was made at or after: the poll's start less the lateness
 * allowed — and, once that is past the cursor, just after the cursor (everything made by then was listed); the cursor
 * less the lateness where nothing tells when the poll began. -Infinity before anything was read: all is new.
 */
export function sinceOf(state: PollState): number {
	if (state.newest === undefined) return -Infinity;
	if (state.polledAt === undefined) return state.newest - LISTED_LATE_WITHIN_MS;
	return Math.min(state.polledAt - LISTED_LATE_WITHIN_MS, state.newest + 1);
}

/**
 * When a poll began (its first answer's `date`), in createdAt's clock, at the earliest: the cursor's registration was
 * made by the time an answer first listed it, and the service's `Date` has run on since. Never earlier than it was
 * found before (an answer whose `Date` is behind others' moves it back no further).
 */
export function pollStart(date: number | undefined, state: PollState): number | undefined {
	const { newest, newestListedAt } = state;
	if (date === undefined || newest === undefined || newestListedAt === undefined) return state.polledAt;
	return Math.max(newest + date - newestListedAt - DATE_PRECISION_MS, state.polledAt ?? -Infinity);
}

/**
 * A state saved before 0.6, carried over: its `startedAt` (the `Date` when the last complete poll began, taken as
 * createdAt's clock where `createdAt` named its zone) is `polledAt`; an order other than the newest first is learned
 * anew, and a chain of polls under way starts again from the list's start. An activation under way is taken as done,
 * emitting what is made from when it began, as that version did. No registration it remembered is forgotten, none is
 * emitted again. A state of 0.6 is read as it is.
 */
export function carriedOver(saved: IDataObject): PollState {
	const state = saved as PollState & {
		startedAt?: number;
		clocked?: boolean;
		chainStartedAt?: number;
	};
	if (state.startedAt === undefined && state.clocked === undefined) return state;
	const carried: PollState = {
		list: state.list,
		newest: state.newest,
		polledAt: state.clocked === true ? state.startedAt : undefined,
		seen: state.seen,
		order: state.order === 'newestFirst' ? 'newestFirst' : undefined,
		started: state.started,
	};
	const activationBegan = state.clocked === true && state.started !== true ? state.chainStartedAt : undefined;
	if (activationBegan === undefined) return carried;
	return {
		...carried,
		started: true,
		newest: activationBegan,
		polledAt: activationBegan + LISTED_LATE_WITHIN_MS,
	};
}
