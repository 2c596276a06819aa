import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { createdAtOf, registrationIdentity } from '../shared/registrations';
import type { ListRequest } from '../shared/transport/listAnswer';
import type { PagedList } from '../shared/transport/pagedList';
import type { PollState } from './pollState';
import { LISTED_LATE_WITHIN_MS } from './pollState';

/**
 * Registrations in a row, each made before the one listed before it, that show a list is the newest first: a list in
 * no order shows 20 so once in 20! (about 2·10^18) reads.
 */
export const ORDER_EVIDENCE = 20;

/**
 * Rule 2: true where the times show the newest first, false where one disproves it, undefined while they cannot tell.
 * Listed the newest first, a registration is listed late by at most the lateness allowed, and every one above it was
 * listed after it: none is newer than any listed above it by more than that.
 */
export function newestFirstShown(times: number[]): boolean | undefined {
	let run = 1;
	let longest = 1;
	let oldestAbove = times[0];
	for (let index = 1; index < times.length; index++) {
		if (times[index] - oldestAbove > LISTED_LATE_WITHIN_MS) return false;
		oldestAbove = Math.min(oldestAbove, times[index]);
		const step = times[index] - times[index - 1];
		// Registrations of one moment neither lengthen a run nor break it.
		run = step < 0 ? run + 1 : step > 0 ? 1 : run;
		longest = Math.max(longest, run);
	}
	return longest >= ORDER_EVIDENCE ? true : undefined;
}

/** Registrations a list without `createdAt` may hold: the trigger remembers each one. */
export const MAX_REMEMBERED = 10_000;
/** Of n8n's poll budget, the part the reading may use: the rest is for emitting and saving. */
const BUDGET_SHARE = 0.8;

/**
 * One poll's reading (newRegistrations.ts decides what to read): its requests (the poll's own run), its budget, every
 * registration it read, and what they show of the service's clocks (pollState.ts).
 */
export class PollReading {
	/** Every registration read, by identity, in the order first read. */
	readonly read = new Map<string, IDataObject>();

	/** The `Date` of the poll's first answer. */
	firstDate: number | undefined;

	/** Whether a registration without `createdAt` was read: the list is then followed by what identifies them. */
	untimed = false;

	/** Whether the poll stopped for its budget (rule 4). */
	cutShort = false;

	/** Where the next poll goes on, from which registration: none where the poll stopped before it read any. */
	stoppedAt: PollState['goOn'] | undefined;

	/** Whether the whole list was read, from its start to its end, sure it held every registration listed. */
	wholeList = false;

	private slowestWindowMs = 0;

	/** The newest `createdAt` read (the state's included), and the `Date` of the answer that first listed it. */
	newest: { at?: number; listedAt?: number };

	/** The list's order, as far as the answers show it (each on its own: records listed meanwhile go between them). */
	order: PollState['order'];

	constructor(
		readonly run: IPollFunctions,
		readonly list: ListRequest,
		private readonly deadline: number | undefined,
		state: PollState,
		/** Registrations made after this, read by an activation under way, are left for the polls after it (rule 5). */
		private readonly madeMeanwhileAfter = Infinity,
	) {
		this.newest = { at: state.newest, listedAt: state.newestListedAt };
		this.order = state.order;
	}

	/** The times of what was read, in the order read. */
	get times(): number[] {
		return [...this.read.values()].map(createdAtOf).filter((time): time is number => time !== undefined);
	}

	/** Reads on with `reader` until `done` says so after a window, the list's end, or the budget. */
	async readOn(reader: PagedList, done: (window: IDataObject[]) => boolean = () => false): Promise<PagedList> {
		for (;;) {
			if (this.deadline !== undefined && Date.now() + this.slowestWindowMs > this.deadline) {
				const { offset, records } = reader.lastWindow;
				const after = records.length === 0 ? undefined : registrationIdentity(records[records.length - 1]);
				this.stoppedAt = after === undefined ? undefined : { offset: offset + records.length, after, total: reader.total };
				this.cutShort = true;
				return reader;
			}
			const started = Date.now();
			const more = await reader.readWindow();
			this.slowestWindowMs = Math.max(this.slowestWindowMs, Date.now() - started);
			const { records, answeredAt } = reader.lastWindow;
			this.firstDate ??= answeredAt;
			for (const record of records) this.keep(record, answeredAt);
			const shown = this.untimed ? undefined : newestFirstShown(records.map(createdAtOf) as number[]);
			if (shown !== undefined && this.order !== 'other') this.order = shown ? 'newestFirst' : 'other';
			if (done(records)) return reader;
			if (!more) return this.ended(reader);
		}
	}

	private ended(reader: PagedList): PagedList {
		if (reader.ending?.stoppedShort === true) {
			throw this.refusal(
				`The service's list of ${this.list.what} could not be read as far as the trigger needs (${reader.ending?.gap}), so it cannot tell which registrations are new: this poll emits nothing`,
				'The next poll tries again. If this repeats, the service cannot be followed by polling: use the Product Registration Trigger (a webhook).',
			);
		}
		// Said each poll, in n8n's log: nothing in the service's answers tells when it happens.
		const gap = reader.ending?.gap;
		if (gap !== undefined) this.run.logger.warn(`Product Registration Poll Trigger: ${gap}`);
		return reader;
	}

	private keep(record: IDataObject, answeredAt: number | undefined): void {
		const identity = registrationIdentity(record);
		if (identity === undefined) {
			throw this.refusal(
				'The service lists registrations with neither an ID nor createdAt, so the trigger cannot tell a new registration from one it has emitted',
				'Use the Product Registration Trigger (a webhook) with this service.',
			);
		}
		const createdAt = createdAtOf(record);
		if (createdAt !== undefined && createdAt > this.madeMeanwhileAfter) return;
		this.untimed ||= createdAt === undefined;
		if (createdAt !== undefined && createdAt > (this.newest.at ?? -Infinity))
			this.newest = { at: createdAt, listedAt: answeredAt };
		if (!this.read.has(identity)) this.read.set(identity, record);
		if (this.untimed && this.read.size > MAX_REMEMBERED) {
			throw this.refusal(
				`The service lists registrations without createdAt, so the trigger remembers the ID of every registration it lists; this list holds more than ${MAX_REMEMBERED.toLocaleString('en-US')}`,
				'Choose a Form to watch a shorter list, or use the Product Registration Trigger (a webhook).',
			);
		}
	}

	private refusal(message: string, description: string): NodeApiError {
		return new NodeApiError(this.run.getNode(), { message }, { message, description });
	}
}

/** The poll's deadline for reading: a share of n8n's poll budget (n8n 2.x), or none (n8n 1.x). */
export function readingDeadline(poll: IPollFunctions): number | undefined {
	const budget = (poll as { getPollBudgetMs?: () => unknown }).getPollBudgetMs?.();
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0
		? Date.now() + budget * BUDGET_SHARE
		: undefined;
}
