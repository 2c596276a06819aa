import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { createdAtOf, readCreatedAt, registrationIdentity, registrationsList } from '../shared/registrations';
import type { ListHabits, ListRequest, ReadFrom } from '../shared/transport/pagedList';
import { listHabits, MIN_PAGE_SIZE, PagedList } from '../shared/transport/pagedList';
import { WITHOUT_ITEM } from '../shared/transport/serviceRequest';

/**
 * Which registrations are new since the last poll — each emitted once, whatever the service's dialect — read with as
 * few requests as a quiet shop needs, and remembered in the workflow's static data.
 *
 * A registration is new when the trigger has not seen it: its id (or, for a service that lists none, what it was made
 * with) is not among those remembered. What is remembered is bounded by time. A registration is listed at most
 * LISTED_LATE_WITHIN_MS after it was made (a slow write, a server whose clock is behind), so one made before `since`
 * was listed, and read, by an earlier poll. `since` is that long before the last complete poll began, by the service's
 * clock (the `Date` of its answers) — or, when the service's `createdAt` names no zone, that long before the newest
 * registration seen then. Each poll reads the registrations made since `since`, and remembers those it read (by id,
 * with when they were made) until they fall behind it. Where they lie in the list depends on its order:
 * - the newest first (the real service): from the list's start, until a window reaches registrations made before
 *   `since` — and LISTED_LATE_WITHIN_MS more once the list shows it is in the order registrations were stored rather
 *   than made (a registration newer than the one before it);
 * - the oldest first: from about where they began at the last poll (`startAt`; the first window must start before
 *   them) to the list's end;
 * - in no order, or without `createdAt`: the whole list, each poll. Without `createdAt` every id listed is
 *   remembered, which bounds the list the trigger can follow (MAX_REMEMBERED);
 * - a bare array (the API page's reading) is one request for the whole list.
 * What the list reader learns of how the service answers (bare lists, its page size, whether it honours `page`) is
 * remembered too, so a poll's first request is already the right one.
 * The list reader makes every window after the first overlap what was read, so registrations added or deleted while
 * a poll reads cannot hide another.
 *
 * Under n8n 2.x's durable scheduler a poll has a budget: a poll that would run past it stops, emits what it read, and
 * the next poll goes on from there (`goOnAt`); `since` moves on only once a poll — or such a chain of them — has read
 * all it had to.
 *
 * n8n saves static data after the poll that activated the workflow and with each poll that emits: the state only ever
 * narrows what a later poll reads, so a poll that failed, found nothing, or was not saved before a restart leaves a
 * state that still finds every registration not emitted.
 */

/** How much later a registration may be listed than one made after it: the lateness the trigger allows for. */
export const LISTED_LATE_WITHIN_MS = 2 * 60_000;
/** Registrations a list without `createdAt` may hold: the trigger remembers each one's id. */
export const MAX_REMEMBERED = 10_000;
/** Of n8n's poll budget, the part the reading may use: the rest is for emitting. */
const BUDGET_SHARE = 0.8;
/** Registrations in a row older (or newer) than the one before that show a list's order. */
const ORDER_EVIDENCE = 20;
/** A `Date` header is to the second. */
const DATE_PRECISION_MS = 1000;

type ListOrder = 'newestFirst' | 'oldestFirst' | 'none';

/** What the trigger remembers between polls, in the workflow's static data. */
export interface PollState {
	/** The list the state is about: the form's slug, or '' for every form. */
	list?: string;
	/** The service's time when the last complete poll began (ms since the epoch), and whether `createdAt` can be
	 * compared with it (the service names its zone): registrations made LISTED_LATE_WITHIN_MS before it are all read. */
	startedAt?: number;
	clocked?: boolean;
	/** The newest `createdAt` read so far, and when the last complete poll began: for a service whose `createdAt` names
	 * no zone, registrations made LISTED_LATE_WITHIN_MS before `newestBefore` are all read. */
	newest?: number;
	newestBefore?: number;
	/** Registrations read that a later poll may read again, by identity, with when they were made (0: not listed). */
	seen?: Record<string, number>;
	/** How the service lists registrations, as learned: their order, and how it answers a list (its page size, ...). */
	order?: ListOrder;
	habits?: ListHabits;
	/** In a list of the oldest first: about where the registrations made since `since` begin (an offset). */
	startAt?: number;
	/** A poll stopped by n8n's poll budget before the end of what it had to read: where the next one goes on... */
	goOnAt?: number;
	/** ...and `startedAt` and `newest` when that chain of polls began: a chain counts as one poll. */
	chainStartedAt?: number;
	newestAtChainStart?: number;
	/** Set once the activation has read all it had to: from then on, what is new is emitted. */
	started?: boolean;
}

/** A registration as the trigger emits it: as listed, with its extra fields also under `fields`, as the webhook's. */
function asItem(record: IDataObject): INodeExecutionData {
	const fieldData = record.fieldData;
	const fields = fieldData !== null && typeof fieldData === 'object' && !Array.isArray(fieldData) ? fieldData : {};
	return { json: { ...record, fields: record.fields ?? fields } };
}

function newestOf(records: Iterable<IDataObject>, before?: number): number | undefined {
	let newest = before;
	for (const record of records) {
		const createdAt = createdAtOf(record);
		if (createdAt !== undefined && (newest === undefined || createdAt > newest)) newest = createdAt;
	}
	return newest;
}

/**
 * The order registrations read in a row show by `createdAt`: the newest first when at least ORDER_EVIDENCE of them are
 * older than the one before and none is newer by more than the lateness allowed (a list in the order registrations
 * were stored, with clocks apart); the oldest first likewise; 'none' when both go far; undefined while it cannot tell.
 * A list in no order shows a run in order now and then, but not ORDER_EVIDENCE steps long.
 */
function orderShown(records: IDataObject[]): ListOrder | undefined {
	const times = records.map(createdAtOf).filter((time): time is number => time !== undefined);
	// The longest runs of steps to older (newer) registrations; steps within one moment neither break nor lengthen them.
	const run = { older: 0, newer: 0 };
	const longest = { older: 0, newer: 0 };
	let farNewer = false;
	let farOlder = false;
	for (let index = 1; index < times.length; index++) {
		const step = times[index] - times[index - 1];
		if (step < 0) [run.older, run.newer] = [run.older + 1, 0];
		if (step > 0) [run.older, run.newer] = [0, run.newer + 1];
		longest.older = Math.max(longest.older, run.older);
		longest.newer = Math.max(longest.newer, run.newer);
		farNewer ||= step > LISTED_LATE_WITHIN_MS;
		farOlder ||= -step > LISTED_LATE_WITHIN_MS;
	}
	if (farNewer && farOlder) return 'none';
	if (!farNewer && longest.older >= ORDER_EVIDENCE && longest.older > longest.newer) return 'newestFirst';
	if (!farOlder && longest.newer >= ORDER_EVIDENCE && longest.newer > longest.older) return 'oldestFirst';
	return undefined;
}

/** Whether `createdAt` goes both up and down along a window. */
function twoWays(records: IDataObject[]): boolean {
	const times = records.map(createdAtOf).filter((time): time is number => time !== undefined);
	const steps = times.slice(1).map((time, index) => Math.sign(time - times[index]));
	return steps.includes(1) && steps.includes(-1);
}

/** One poll's reading of the list: its requests (the poll's own run), its budget, and every registration it read. */
class PollReading {
	/** Every registration read, by identity, in the order first read; and its offset in the list when read. */
	readonly read = new Map<string, IDataObject>();

	readonly offsets = new Map<string, number>();

	/** Whether a registration without `createdAt` was read: the list is then followed by ids alone. */
	untimed = false;

	/** Whether every `createdAt` read names its zone, so it can be compared with the service's clock. */
	zoned = true;

	/** The service's time when the poll began: its first answer's `Date`, less that answer's time and precision. */
	startedAt: number | undefined;

	/** Whether a window listed registrations out of the order of `createdAt` (both newer and older after another). */
	disordered = false;

	/** Whether a window showed the list in no order at all: only a read of the whole list then finds what is new. */
	unordered = false;

	/** Whether the whole list was read, from its start to its end, sure it held every registration listed (no gap). */
	wholeList = false;

	/** Set when the poll stopped for its budget before reading all it had to: the offset to go on at. */
	stoppedAt: number | undefined;

	private slowestWindowMs = 0;

	constructor(
		readonly run: IPollFunctions,
		readonly list: ListRequest,
		private readonly deadline: number | undefined,
	) {}

	/** Reads one stretch of the list, a window at a time, until `done`, the list's end, or the budget. */
	async stretch(
		options: { from?: ReadFrom; firstWindow?: number },
		done: (window: IDataObject[], reader: PagedList) => boolean = () => false,
	): Promise<PagedList> {
		return await this.readOn(new PagedList(this.run, this.list, WITHOUT_ITEM, options), done);
	}

	/** Reads on with `reader` until `done`, the list's end, or the budget. */
	async readOn(
		reader: PagedList,
		done: (window: IDataObject[], reader: PagedList) => boolean = () => false,
	): Promise<PagedList> {
		for (;;) {
			if (this.deadline !== undefined && Date.now() + this.slowestWindowMs > this.deadline) {
				this.stoppedAt = reader.lastWindowOffset;
				return reader;
			}
			const started = Date.now();
			const more = await reader.readWindow();
			const tookMs = Date.now() - started;
			this.slowestWindowMs = Math.max(this.slowestWindowMs, tookMs);
			if (this.read.size === 0 && reader.firstAnsweredAt !== undefined)
				this.startedAt ??= reader.firstAnsweredAt - tookMs - DATE_PRECISION_MS;
			reader.lastWindow.forEach((record, index) => this.keep(record, reader.lastWindowOffset + index));
			const shown = orderShown(reader.lastWindow);
			this.unordered ||= shown === 'none';
			this.disordered ||= shown === 'none' || twoWays(reader.lastWindow);
			if (done(reader.lastWindow, reader)) return reader;
			if (!more) {
				this.wholeList ||= reader.complete && reader.startedAtListStart;
				if (reader.unchecked !== undefined) {
					// Said each poll, in n8n's log: nothing in the service's answers tells when it happens.
					this.run.logger.warn(`Product Registration Poll Trigger: ${reader.unchecked}, so it may miss one`);
				}
				if (reader.stoppedShort) {
					throw this.refusal(
						`The service's list of ${this.list.what} could not be read as far as the trigger needs (${reader.gap}), so it cannot tell which registrations are new: this poll emits nothing`,
						'The next poll tries again. If this repeats, the service cannot be followed by polling: use the Product Registration Trigger (a webhook).',
					);
				}
				return reader;
			}
		}
	}

	private keep(record: IDataObject, offset: number): void {
		const identity = registrationIdentity(record);
		if (identity === undefined) {
			throw this.refusal(
				'The service lists registrations with neither an ID nor createdAt, so the trigger cannot tell a new registration from one it has emitted',
				'Use the Product Registration Trigger (a webhook) with this service.',
			);
		}
		const createdAt = readCreatedAt(record);
		if (createdAt === undefined) this.untimed = true;
		else if (!createdAt.zoned) this.zoned = false;
		if (!this.read.has(identity)) this.read.set(identity, record);
		this.offsets.set(identity, offset);
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

/**
 * Since when registrations may be new: LISTED_LATE_WITHIN_MS before the last complete poll began, by the service's
 * clock, or before the newest registration seen then; undefined before the activation has read anything.
 */
function sinceOf(state: PollState, reading: PollReading): number | undefined {
	if (state.clocked && reading.zoned && state.startedAt !== undefined) return state.startedAt - LISTED_LATE_WITHIN_MS;
	return state.newestBefore === undefined ? undefined : state.newestBefore - LISTED_LATE_WITHIN_MS;
}

/** What an activation reads back to: LISTED_LATE_WITHIN_MS before now (or before the newest registration). */
function activationSince(reading: PollReading, window: IDataObject[]): number {
	if (reading.zoned && reading.startedAt !== undefined) return reading.startedAt - LISTED_LATE_WITHIN_MS;
	return (newestOf(window, newestOf(reading.read.values())) ?? 0) - LISTED_LATE_WITHIN_MS;
}

/**
 * Reads what this poll must: every registration made since `since` (the whole list in no order or without
 * `createdAt`), going on where a poll cut short stopped. Returns the list's order as learned.
 */
async function readSince(reading: PollReading, state: PollState, activating: boolean): Promise<ListOrder> {
	const order = await readByOrder(reading, state, activating);
	if (order === 'none' || !reading.unordered || reading.stoppedAt !== undefined) return order;
	// A window showed the list in no order: what was read by the order learned may not hold all that is new.
	await reading.stretch({});
	return 'none';
}

/** Reads by the order the list is known (or found) to be in; returns it. */
async function readByOrder(reading: PollReading, state: PollState, activating: boolean): Promise<ListOrder> {
	const seen = state.seen ?? {};
	// Before this, every registration is older than `since`, also in a list in the order they were stored. After an
	// activation that read no createdAt (an empty list), every registration listed is new.
	const floor = (window: IDataObject[]) =>
		(sinceOf(state, reading) ?? (activating ? activationSince(reading, window) : -Infinity)) -
		(reading.disordered || twoWays(window) ? LISTED_LATE_WITHIN_MS : 0);
	const beforeFloor = (record: IDataObject, window: IDataObject[]) => (createdAtOf(record) ?? Infinity) < floor(window);
	const reachesFloor = (window: IDataObject[]) => window.some((record) => beforeFloor(record, window));
	const startsBeforeFloor = (window: IDataObject[]) => window.length > 0 && beforeFloor(window[0], window);
	const toTheEnd = (offset: number, startsBefore: ReadFrom['startsBefore']) =>
		reading.stretch({ from: { offset, startsBefore } });

	let order = state.order;
	if (state.goOnAt !== undefined) {
		if (order !== 'newestFirst') {
			await toTheEnd(state.goOnAt, () => true);
			return order ?? 'none';
		}
		// What arrived at the list's start since, then on below what the cut-short poll read.
		const isSeen = (record: IDataObject) => registrationIdentity(record)! in seen;
		const front = await reading.stretch(
			{ firstWindow: MIN_PAGE_SIZE },
			(window) => window.some(isSeen) || reachesFloor(window),
		);
		const arrivals = front.records.filter((record) => !isSeen(record)).length;
		if (!front.ended && reading.stoppedAt === undefined)
			await reading.stretch(
				{
					from: {
						offset: state.goOnAt + arrivals,
						startsBefore: (window) => window.length > 0 && (isSeen(window[0]) || startsBeforeFloor(window)),
					},
				},
				reachesFloor,
			);
		return order;
	}
	if (order === 'oldestFirst' && state.startAt !== undefined) {
		await toTheEnd(state.startAt, startsBeforeFloor);
		return order;
	}

	// The list's start: the newest end of a list of the newest first, and what shows the order of one not yet known.
	const front = await reading.stretch({ firstWindow: MIN_PAGE_SIZE }, (window, reader) => {
		order = reading.untimed ? 'none' : (orderShown(reader.records) ?? order);
		return order !== 'none' && order !== undefined && (order !== 'newestFirst' || reachesFloor(window));
	});
	// Read to its end without showing an order (one moment, or none at all): later polls read it whole.
	order = reading.untimed ? 'none' : (order ?? 'none');
	if (order === 'oldestFirst' && !front.ended && reading.stoppedAt === undefined) {
		// The newest end is the list's end; without a total, the whole list is read to find it.
		if (front.total === undefined) await reading.readOn(front);
		else await toTheEnd(Math.max(0, front.total - MIN_PAGE_SIZE), startsBeforeFloor);
	}
	return order;
}

/** The registrations read that are new: not seen before, and made since `since` (or listed without `createdAt`). */
function newIn(reading: PollReading, state: PollState, since: number | undefined): IDataObject[] {
	const seen = state.seen ?? {};
	return [...reading.read.entries()]
		.filter(([identity, record]) => {
			if (identity in seen) return false;
			const createdAt = createdAtOf(record);
			return createdAt === undefined || since === undefined || createdAt >= since;
		})
		.map(([, record]) => record);
}

/**
 * An activation cut short by the poll budget goes on over several polls, which emit what was made since it began:
 * registrations not seen, whose `createdAt` is at or after its start by the service's clock. (Without a zone or
 * without `createdAt` nothing tells them from those there before: they are taken as there before.)
 */
function madeDuringActivation(reading: PollReading, state: PollState): IDataObject[] {
	const began = state.chainStartedAt;
	if (state.goOnAt === undefined || began === undefined || !state.clocked || !reading.zoned) return [];
	const seen = state.seen ?? {};
	return [...reading.read.entries()]
		.filter(([identity, record]) => !(identity in seen) && (createdAtOf(record) ?? -Infinity) >= began)
		.map(([, record]) => record);
}

/** What the trigger remembers after this poll. */
function stateAfter(reading: PollReading, state: PollState, order: ListOrder, activating: boolean): PollState {
	const newest = newestOf(reading.read.values(), state.newest);
	const cutShort = reading.stoppedAt !== undefined;
	// A chain of polls cut short counts as one poll, begun when its first began.
	const inChain = state.goOnAt !== undefined;
	const began = {
		startedAt: inChain ? state.chainStartedAt : reading.startedAt,
		newest: inChain ? state.newestAtChainStart : activating ? newest : state.newest,
	};
	const next: PollState = {
		list: state.list,
		// One server's clock behind another's does not move `since` back past what was forgotten.
		startedAt: cutShort ? state.startedAt : latest(began.startedAt, state.startedAt),
		// A poll that read nothing learned nothing of how `createdAt` is written.
		clocked: reading.read.size === 0 ? state.clocked : reading.zoned && reading.startedAt !== undefined,
		newest,
		newestBefore: cutShort ? state.newestBefore : began.newest,
		order,
		habits: listHabits(reading.run, reading.list.path),
		goOnAt: reading.stoppedAt,
		chainStartedAt: cutShort ? began.startedAt : undefined,
		newestAtChainStart: cutShort ? began.newest : undefined,
		started: !activating || !cutShort || undefined,
	};
	const since = sinceOf(next, reading);

	const seen: Record<string, number> = {};
	const keep = (identity: string, createdAt: number) => {
		if (reading.untimed || since === undefined || createdAt >= since) seen[identity] = createdAt;
	};
	// Without `createdAt`, a sure read of the whole list shows every registration listed: those not listed are forgotten.
	if (cutShort || !reading.untimed || !reading.wholeList)
		for (const [identity, createdAt] of Object.entries(state.seen ?? {})) keep(identity, createdAt);
	for (const [identity, record] of reading.read) keep(identity, createdAtOf(record) ?? 0);
	next.seen = seen;

	if (order === 'oldestFirst' && since !== undefined) {
		// Where the registrations since `since` begin; with none, the list's end as far as read.
		const offsets = [...reading.read.entries()].map(([identity, record]) => ({
			offset: reading.offsets.get(identity)!,
			inReach: (createdAtOf(record) ?? 0) >= since,
		}));
		const inReach = offsets.filter(({ inReach }) => inReach).map(({ offset }) => offset);
		const start =
			inReach.length > 0 ? Math.min(...inReach) : Math.max(state.startAt ?? 0, ...offsets.map(({ offset }) => offset));
		next.startAt = Math.max(0, start - 1);
	}
	return next;
}

/**
 * Registrations the oldest first: by `createdAt`, and those of one moment (or none) as the service stored them — the
 * list's order reversed, unless what was read leans the oldest first.
 */
function oldestFirst(records: IDataObject[], read: IDataObject[]): IDataObject[] {
	const times = read.map(createdAtOf).filter((time): time is number => time !== undefined);
	const steps = times.slice(1).map((time, index) => Math.sign(time - times[index]));
	const listedNewestFirst = steps.filter((step) => step > 0).length <= steps.filter((step) => step < 0).length;
	return records
		.map((record, position) => ({ record, position: listedNewestFirst ? -position : position }))
		.sort((a, b) => (createdAtOf(a.record) ?? 0) - (createdAtOf(b.record) ?? 0) || a.position - b.position)
		.map(({ record }) => record);
}

function latest(time: number | undefined, before: number | undefined): number | undefined {
	return time === undefined || before === undefined ? (time ?? before) : Math.max(time, before);
}

/** The poll's deadline for reading: a share of n8n's poll budget (n8n 2.x), or none (n8n 1.x). */
function readingDeadline(poll: IPollFunctions): number | undefined {
	const budget = (poll as { getPollBudgetMs?: () => unknown }).getPollBudgetMs?.();
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0
		? Date.now() + budget * BUDGET_SHARE
		: undefined;
}

/**
 * One poll: the registrations new since the last, the oldest first, or null when there are none. The first poll of
 * an activation without a state — or with one about another list — emits nothing and starts from now; a manual run
 * (Fetch Test Event) emits the newest registration and remembers nothing.
 */
export async function pollNewRegistrations(
	this: IPollFunctions,
	formSlug: string | undefined,
): Promise<INodeExecutionData[][] | null> {
	const list: ListRequest = {
		...registrationsList(
			formSlug === undefined ? {} : { formSlug },
			formSlug === undefined ? 'registrations' : `registrations of the form ${formSlug}`,
		),
		identify: registrationIdentity,
	};
	const listKey = formSlug ?? '';
	const manual = this.getMode() === 'manual';
	const saved = this.getWorkflowStaticData('node') as PollState;
	const anotherList = manual || saved.list !== listKey;
	const state: PollState = anotherList ? { list: listKey } : saved;
	// An activation cut short by the poll budget goes on at the next poll, and emits nothing either.
	const activating = state.started !== true;
	// A poll is one run of requests: its own credential read and its own pace, not those of the polls before it.
	const run = Object.create(this) as IPollFunctions;
	Object.assign(listHabits(run, list.path), state.habits);
	const reading = new PollReading(run, list, manual ? undefined : readingDeadline(this));

	const order = await readSince(reading, state, activating);
	const read = [...reading.read.values()];
	if (manual) {
		// Without `createdAt` nothing tells the newest: the service's first is taken.
		const newest = reading.untimed ? read[0] : oldestFirst(read, read).pop();
		return newest === undefined ? null : [[asItem(newest)]];
	}
	const fresh = activating ? madeDuringActivation(reading, state) : newIn(reading, state, sinceOf(state, reading));
	const next = stateAfter(reading, state, order, activating);
	for (const key of Object.keys(saved)) delete (saved as IDataObject)[key];
	Object.assign(saved, JSON.parse(JSON.stringify(next)) as PollState);
	return fresh.length === 0 ? null : [oldestFirst(fresh, read).map(asItem)];
}
