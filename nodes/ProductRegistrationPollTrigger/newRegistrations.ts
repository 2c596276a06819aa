import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { createdAtOf, registrationIdentity, registrationsList } from '../shared/registrations';
import { ListReader } from '../shared/transport/lists/listReader';
import { MIN_PAGE_SIZE } from '../shared/transport/lists/listRequest';
import { WITHOUT_ITEM } from '../shared/transport/serviceRequest';
import type { PollState } from './pollState';
import { carriedOver, LISTED_LATE_WITHIN_MS, pollStart, sinceOf } from './pollState';

/**
 * Which registrations are new since the last poll, each emitted once; pollState.ts holds what is remembered, and
 * `since`. The rules:
 * 1. New: read, not seen, and made at or after `since` — or, without `createdAt`, any registration not seen.
 * 2. A list the user states is the newest first (List Order), or that an answer showed to be (Learn From the Answers:
 *    ORDER_EVIDENCE in a row in one answer, none out of order), is read from its start until a window reaches one made before
 *    `since`. Where what is read contradicts it (one listed below another made more than the lateness allowed before
 *    it), that poll reads the whole list and says so in n8n's log. Any other list is read whole.
 * 3. Remembered: what was read at or after the next `since`; without `createdAt`, every registration listed.
 * 4. A poll cut short by n8n's poll budget emits what is new in what it read and keeps the cursor; the next goes on from
 *    where it stopped, until the chain is done.
 * 5. The activation emits nothing: what it reads was there before. A manual run emits the newest and remembers nothing.
 * n8n saves the state after the activation and with each poll that emits; the state only narrows what a later poll
 * reads, so a poll that fails or is not saved leaves a state that still finds every registration not emitted.
 */

/** Registrations in a row, each made before the one above, that show an order: a list in none does once in 20! reads. */
export const ORDER_EVIDENCE = 20;
/** Registrations a list without `createdAt` may hold: the trigger remembers each one. */
export const MAX_REMEMBERED = 10_000;
/** Of n8n's poll budget, the part the reading may use: the rest is for emitting and saving. */
const BUDGET_SHARE = 0.8;

/** The List Order option's values. */
export type ListOrder = 'learn' | 'newestFirst' | 'anyOrder';

/** One poll's reading: every registration read, by identity, in the order read, and what the answers showed. */
class Reading {
	readonly read = new Map<string, IDataObject>();
	/** The cursor (the newest `createdAt` read, and the `Date` of the answer that first listed it) and the first `Date`. */
	cursor: Pick<PollState, 'newest' | 'newestListedAt'>;
	firstDate: number | undefined;
	untimed = false;
	/** One was listed below another made more than the lateness allowed before it: not the newest first. */
	outOfOrder = false;
	/** The most registrations in a row in one answer, each made before the one above (one moment's neither add nor break). */
	longestRun = 1;
	cutShort = false;

	/**
	 * An activation over a list of the newest first leaves to the polls after it what it reads newer than its first
	 * window's newest — or, going on, than all it read before: that was made meanwhile (rule 5).
	 */
	private madeMeanwhileAfter: number | undefined;
	private meanwhile = new Map<string, IDataObject>();

	constructor(
		private readonly poll: IPollFunctions,
		readonly reader: ListReader,
		state: PollState,
		activatingNewestFirst: boolean,
	) {
		this.cursor = { newest: state.newest, newestListedAt: state.newestListedAt };
		const readBefore = Object.values(state.seen ?? {});
		if (!activatingNewestFirst) this.madeMeanwhileAfter = Infinity;
		else if (readBefore.length > 0) this.madeMeanwhileAfter = Math.max(...readBefore);
	}

	/** Reads on until `done` says so after a window, the list's end, or the poll's budget (rule 4). */
	async readOn(deadline: number | undefined, done: () => boolean): Promise<void> {
		const { reader } = this;
		let [slowest, oldestAbove, run, pass] = [0, Infinity, 1, reader.pass];
		for (let more = true; more && !(reader.lastRecords.length > 0 && done()); ) {
			if (deadline !== undefined && Date.now() + slowest > deadline) return void (this.cutShort = true);
			const started = Date.now();
			more = await reader.readWindow();
			slowest = Math.max(slowest, Date.now() - started);
			this.firstDate ??= reader.answeredAt;
			// A read started over lists its start again, above what was read; a run in a row is counted in one answer.
			if (reader.pass !== pass) [oldestAbove, pass] = [Infinity, reader.pass];
			run = 1;
			for (const record of reader.lastRecords) {
				const identity = registrationIdentity(record);
				if (identity === undefined)
					throw this.refusal(
						'The service lists registrations with neither an ID nor createdAt, so the trigger cannot tell a new registration from one it has emitted',
					);
				const time = createdAtOf(record);
				this.untimed ||= time === undefined;
				if (time !== undefined) {
					this.outOfOrder ||= time - oldestAbove > LISTED_LATE_WITHIN_MS;
					run = time < oldestAbove ? run + 1 : time === oldestAbove ? run : 1;
					this.longestRun = Math.max(this.longestRun, run);
					oldestAbove = Math.min(oldestAbove, time);
				}
				// A list out of that order shows nothing of what was made meanwhile: all it read was there before.
				if (this.outOfOrder) [this.madeMeanwhileAfter, this.meanwhile] = [Infinity, this.keepAll(this.meanwhile)];
				if (time !== undefined && time > (this.madeMeanwhileAfter ?? Infinity)) this.meanwhile.set(identity, record);
				else this.keep(identity, record, time, reader.answeredAt);
			}
			this.madeMeanwhileAfter ??= this.cursor.newest ?? -Infinity;
		}
		const ending = reader.ending;
		if (ending?.stoppedShort === true)
			throw this.refusal(
				`The service's list of registrations could not be read as far as the trigger needs (${ending.gap}), so it cannot tell which registrations are new: this poll emits nothing`,
			);
		// Said each poll, in n8n's log: nothing in the service's answers tells when it happens.
		if (ending?.gap !== undefined) this.poll.logger.warn(`Product Registration Poll Trigger: ${ending.gap}`);
		if (this.untimed && this.read.size > MAX_REMEMBERED)
			throw this.refusal(
				`The service lists registrations without createdAt, so the trigger remembers the ID of every registration it lists; this list holds more than ${MAX_REMEMBERED.toLocaleString('en-US')}`,
			);
	}

	private keep(identity: string, record: IDataObject, time: number | undefined, listedAt: number | undefined): void {
		if (!this.read.has(identity)) this.read.set(identity, record);
		if (time !== undefined && time > (this.cursor.newest ?? -Infinity))
			this.cursor = { newest: time, newestListedAt: listedAt };
	}

	private keepAll(records: Map<string, IDataObject>): Map<string, IDataObject> {
		for (const [identity, record] of records) this.keep(identity, record, createdAtOf(record), this.reader.answeredAt);
		return new Map();
	}

	private refusal(message: string): NodeApiError {
		const description =
			'The next poll tries again. If this repeats, choose a Form to watch a shorter list, or use the Product Registration Trigger (a webhook).';
		return new NodeApiError(this.poll.getNode(), { message }, { message, description });
	}
}

/** The poll's deadline for reading: a share of n8n's poll budget (n8n 2.x), or none (n8n 1.x). */
function readingDeadline(poll: IPollFunctions): number | undefined {
	const budget = (poll as { getPollBudgetMs?: () => unknown }).getPollBudgetMs?.();
	const valid = typeof budget === 'number' && Number.isFinite(budget) && budget > 0;
	return valid ? Date.now() + budget * BUDGET_SHARE : undefined;
}

/**
 * What the trigger remembers after a poll (rules 3 and 4). Cut short, it keeps the cursor and says where to go on; at
 * the end of a chain of polls, the chain's newest is among what it remembers, listed by the time this poll began.
 */
function stateAfter(reading: Reading, state: PollState, order: PollState['order']): PollState {
	const { reader, cutShort } = reading;
	let next: PollState;
	if (cutShort) {
		const { anchor = '', at = -1, ...position } = reader.position ?? {};
		const goOn = at < 0 ? undefined : { offset: at + 1, after: anchor.replace(/^id:/, ''), ...position };
		next = { ...state, goOn, chainDate: state.chainDate ?? reading.firstDate };
	} else {
		const chainNewest = Math.max(...Object.values(state.seen ?? {}), -Infinity);
		const chainOn = state.goOn !== undefined && chainNewest > (reading.cursor.newest ?? -Infinity);
		const cursor = chainOn ? { newest: chainNewest, newestListedAt: reading.firstDate } : reading.cursor;
		const polledAt = pollStart(state.chainDate ?? reading.firstDate, { ...state, ...cursor });
		next = { list: state.list, ...cursor, polledAt, started: true };
	}
	const since = sinceOf(next);
	const seen: Record<string, number> = {};
	const keep = (identity: string, createdAt: number) => {
		if (reading.untimed || createdAt >= since) seen[identity] = createdAt;
	};
	// Without `createdAt`, a sure read of the whole list shows every registration listed: those not listed are forgotten.
	const wholeList = reader.complete && state.goOn === undefined && !cutShort;
	if (!(reading.untimed && wholeList))
		for (const [identity, at] of Object.entries(state.seen ?? {})) keep(identity, at);
	for (const [identity, record] of reading.read) keep(identity, createdAtOf(record) ?? 0);
	return { ...next, order, seen };
}

/**
 * Registrations the oldest first: by `createdAt`; those of one moment (or without) as the service stored them — the
 * list's order reversed (the real service lists the newest first), unless what was read leans the oldest first.
 */
function oldestFirst(records: IDataObject[], read: IDataObject[]): IDataObject[] {
	const times = read.map((record) => createdAtOf(record) ?? 0);
	const steps = times.slice(1).map((time, index) => Math.sign(time - times[index]));
	const leansOldestFirst = steps.filter((step) => step > 0).length > steps.filter((step) => step < 0).length;
	const listed = leansOldestFirst ? records : [...records].reverse();
	return [...listed].sort((a, b) => (createdAtOf(a) ?? 0) - (createdAtOf(b) ?? 0));
}

/** A registration as the trigger emits it: as listed, with its extra fields also under `fields`, as the webhook's. */
function asItem(record: IDataObject): INodeExecutionData {
	const fieldData = record.fieldData;
	const fields = fieldData !== null && typeof fieldData === 'object' && !Array.isArray(fieldData) ? fieldData : {};
	return { json: { ...record, fields: record.fields ?? fields } };
}

/** One poll: the registrations new since the last, the oldest first, or null when there are none. */
export async function pollNewRegistrations(
	this: IPollFunctions,
	formSlug: string | undefined,
	listOrder: ListOrder,
): Promise<INodeExecutionData[][] | null> {
	const what = formSlug === undefined ? 'registrations' : `registrations of the form ${formSlug}`;
	const list = {
		...registrationsList(formSlug === undefined ? {} : { formSlug }, what),
		identify: registrationIdentity,
	};
	const manual = this.getMode() === 'manual';
	const saved = this.getWorkflowStaticData('node');
	const remembered = carriedOver(saved);
	// A manual run, or a state about another list, starts as an activation does.
	const state: PollState = manual || remembered.list !== (formSlug ?? '') ? { list: formSlug ?? '' } : remembered;
	const activating = state.started !== true;
	const newestFirst = listOrder === 'newestFirst' || (listOrder === 'learn' && state.order === 'newestFirst');
	// Learning, a list is taken for the newest first from the answer that shows it on.
	const shown = () => listOrder === 'learn' && state.order === undefined && reading.longestRun >= ORDER_EVIDENCE;
	const takenNewestFirst = () => newestFirst || shown();
	const { offset = 0, after = '', ...position } = state.goOn ?? {};
	const from = state.goOn && { anchor: `id:${after}`, at: offset - 1, ...position };
	// A poll is one run of requests (its own credential read, the pace it finds); its first window is small where the
	// newest come first: a quiet shop's new registrations fit it.
	const run = Object.create(this) as IPollFunctions;
	const firstWindow = newestFirst && from === undefined ? MIN_PAGE_SIZE : undefined;
	const reader = new ListReader(run, list, WITHOUT_ITEM, { from, firstWindow });
	const reading = new Reading(this, reader, state, activating && newestFirst);
	// The activation reads back to the `since` of the next poll; a poll, to its own; a manual run, one window.
	const since = () =>
		activating
			? sinceOf({ ...reading.cursor, polledAt: pollStart(reading.firstDate, reading.cursor) })
			: sinceOf(state);
	const reached = () => reading.reader.lastRecords.some((record) => (createdAtOf(record) ?? Infinity) < since());
	await reading.readOn(
		manual ? undefined : readingDeadline(this),
		() => takenNewestFirst() && (manual || (!reading.outOfOrder && reached())),
	);
	if (takenNewestFirst() && reading.outOfOrder)
		this.logger.warn(
			'Product Registration Poll Trigger: the service listed a registration below one made more than 2 minutes after it, so its list is not the newest first, and this poll read it whole. If it lists in another order, set Options > List Order to Any Order.',
		);
	const read = [...reading.read.values()];
	if (manual) {
		// Without `createdAt` nothing tells the newest: the service's first is taken.
		const newest = reading.untimed ? read[0] : oldestFirst(read, read).pop();
		return newest === undefined ? null : [[asItem(newest)]];
	}
	let order = state.order;
	if (listOrder === 'learn' && !reading.untimed && order !== 'other')
		order = reading.outOfOrder ? 'other' : reading.longestRun >= ORDER_EVIDENCE ? 'newestFirst' : order;
	const seen = state.seen ?? {};
	const isNew = ([identity, record]: [string, IDataObject]) =>
		!(identity in seen) && (createdAtOf(record) ?? Infinity) >= sinceOf(state);
	const fresh = activating ? [] : [...reading.read].filter(isNew).map(([, record]) => record);
	const next = stateAfter(reading, state, order);
	for (const key of Object.keys(saved)) delete saved[key];
	Object.assign(saved, JSON.parse(JSON.stringify(next)) as PollState);
	return fresh.length === 0 ? null : [oldestFirst(fresh, read).map(asItem)];
}
