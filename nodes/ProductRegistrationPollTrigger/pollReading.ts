import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { createdAtOf, registrationIdentity } from '../shared/registrations';
import type { ListRequest } from '../shared/transport/listAnswer';
import type { PagedList } from '../shared/transport/pagedList';
import { leadShown } from './pollState';

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

	/** Set when the poll stopped for its budget (rule 4): where to go on, from which registration. */
	stoppedAt: { offset: number; after?: string } | undefined;

	/** Whether the whole list was read, from its start to its end, sure it held every registration listed. */
	wholeList = false;

	private slowestWindowMs = 0;

	constructor(
		readonly run: IPollFunctions,
		readonly list: ListRequest,
		private readonly deadline: number | undefined,
		/** The least lead seen (pollState.ts), this poll's answers included. */
		public lead: number | undefined,
	) {}

	/** The times of what was read, in the order read. */
	get times(): number[] {
		return [...this.read.values()].map(createdAtOf).filter((time): time is number => time !== undefined);
	}

	/** Reads on with `reader` until `done` says so after a window, the list's end, or the budget. */
	async readOn(reader: PagedList, done: (window: IDataObject[]) => boolean = () => false): Promise<PagedList> {
		for (;;) {
			if (this.deadline !== undefined && Date.now() + this.slowestWindowMs > this.deadline) {
				const { offset, records } = reader.lastWindow;
				const last = records.at(-1);
				this.stoppedAt = { offset: offset + records.length, after: last && registrationIdentity(last) };
				return reader;
			}
			const started = Date.now();
			const more = await reader.readWindow();
			this.slowestWindowMs = Math.max(this.slowestWindowMs, Date.now() - started);
			const { records, answeredAt } = reader.lastWindow;
			this.firstDate ??= answeredAt;
			for (const record of records) this.keep(record, answeredAt);
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
		this.untimed ||= createdAt === undefined;
		const lead = leadShown(answeredAt, createdAt);
		if (lead !== undefined && !(lead >= (this.lead ?? Infinity))) this.lead = lead;
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
