import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { createdAtOf, registrationIdentity, registrationsList } from '../shared/registrations';
import type { ListRequest } from '../shared/transport/listAnswer';
import { listHabits } from '../shared/transport/listAnswer';
import { PagedList } from '../shared/transport/pagedList';
import { WITHOUT_ITEM } from '../shared/transport/serviceRequest';
import { PollReading, readingDeadline } from './pollReading';
import type { PollState } from './pollState';
import { carriedOver, pollStart, sinceOf } from './pollState';

/**
 * Which registrations are new since the last poll, each emitted once whatever the service's dialect; pollState.ts
 * holds what is remembered, and `since`. The rules:
 * 1. New: read, not seen, and made at or after `since` — or, without `createdAt`, any registration not seen.
 * 2. A list an answer shows to be the newest first (ORDER_EVIDENCE in a row in it), or that the user states is (List
 *    Order), is read from its start until a window reaches one made before `since` — while no answer lists one newer
 *    than any listed above it by more than the lateness allowed. Any other, or one whose order nothing has shown or
 *    stated, is read whole: page 1 alone cannot tell the newest first from an order of the service's own.
 * 3. Remembered: what was read at or after the next `since`; without `createdAt`, every registration listed (at most
 *    MAX_REMEMBERED, and said when there are more).
 * 4. A poll cut short by n8n's poll budget emits what is new in what it read and leaves the cursor where it was; the
 *    next goes on where it stopped, until the chain is done. What was listed at the start meanwhile comes after it.
 * 5. The activation, cut short or not, emits nothing: what it reads was there before — but, going on over a list taken
 *    for the newest first, what is newer than all it read before was made meanwhile: it is left to the polls after it.
 *    A manual run emits the newest registration and remembers nothing.
 * n8n saves the state after the activation and with each poll that emits; the state only narrows what a later poll
 * reads, so a poll that fails or is not saved leaves a state that still finds every registration not emitted.
 */

/** A registration as the trigger emits it: as listed, with its extra fields also under `fields`, as the webhook's. */
function asItem(record: IDataObject): INodeExecutionData {
	const fieldData = record.fieldData;
	const fields = fieldData !== null && typeof fieldData === 'object' && !Array.isArray(fieldData) ? fieldData : {};
	return { json: { ...record, fields: record.fields ?? fields } };
}

/** The cursor after this poll (and the chain of polls it ends), were it to end now: what the next `since` comes from. */
function cursorAfter(reading: PollReading, state: PollState): PollState {
	// A chain of polls cut short read more than this poll did: its newest is among what it remembers, listed by the
	// time this poll began at the latest.
	const chainNewest = Math.max(...Object.values(state.seen ?? {}), -Infinity);
	const { at, listedAt } = reading.newest;
	const newest = chainNewest > (at ?? -Infinity) ? { at: chainNewest, listedAt: reading.firstDate } : { at, listedAt };
	const date = state.chainDate ?? reading.firstDate;
	return {
		newest: newest.at,
		newestListedAt: newest.listedAt,
		polledAt: pollStart(date, state, newest.at, newest.listedAt),
	};
}

/** Rule 2: whether a list is taken for the newest first: as its answers showed, or as stated where they showed none. */
const takenNewestFirst = (shown: PollState['order'], stated: PollState['order']) => (shown ?? stated) === 'newestFirst';

/**
 * Reads what this poll must (rules 2 and 4); returns the list's order, as far as shown. `stated`: the order the user
 * states, taken where the answers have shown none (it is not saved: the answers' own is).
 */
async function readAsNeeded(
	reading: PollReading,
	state: PollState,
	activating: boolean,
	stated: PollState['order'],
): Promise<PollState['order']> {
	// A pass's small first window shows a quiet shop's new registrations.
	const fromStart = () => new PagedList(reading.run, reading.list, WITHOUT_ITEM);
	const goingOn = state.goOn !== undefined;
	const reader = goingOn ? new PagedList(reading.run, reading.list, WITHOUT_ITEM, { goOnAt: state.goOn }) : fromStart();
	// The activation reads back to the `since` of the next poll; a poll, to its own.
	const reachesSince = (window: IDataObject[]) => {
		const since = sinceOf(activating ? cursorAfter(reading, state) : state);
		return window.some((record) => (createdAtOf(record) ?? Infinity) < since);
	};
	await reading.readOn(reader, (window) => takenNewestFirst(reading.order, stated) && reachesSince(window));
	reading.wholeList = reader.complete && !goingOn;
	// A list taken for the newest first shows otherwise: read from its start, it was then read on to its end; gone on
	// where an earlier poll stopped, it is read whole now.
	if (reading.order === 'other' && takenNewestFirst(state.order, stated) && goingOn && !reading.cutShort)
		reading.wholeList = (await reading.readOn(fromStart())).complete;
	return reading.order;
}

/**
 * Rule 1: the registrations read that are new. The activation emits none (rule 5): what a chain of polls cut short
 * reads while it activates is taken as there before — registrations made meanwhile at the start of a list of the newest
 * first lie before all it reads, and come out after it; anywhere else, nothing but a clock that the service's `Date`
 * and `createdAt` may not share tells them from those there before.
 */
function newIn(reading: PollReading, state: PollState, activating: boolean): IDataObject[] {
	if (activating) return [];
	const seen = state.seen ?? {};
	const since = sinceOf(state);
	return [...reading.read]
		.filter(([identity, record]) => !(identity in seen) && (createdAtOf(record) ?? Infinity) >= since)
		.map(([, record]) => record);
}

/** What the trigger remembers after this poll (rules 3 and 4). */
function stateAfter(
	reading: PollReading,
	state: PollState,
	order: PollState['order'],
	activating: boolean,
): PollState {
	const { cutShort } = reading;
	const { newest, newestListedAt, polledAt } = state;
	const cursor = cutShort ? { newest, newestListedAt, polledAt } : undefined;
	const next: PollState = {
		list: state.list,
		...(cursor ?? cursorAfter(reading, state)),
		order,
		habits: listHabits(reading.run, reading.list.path),
		goOn: reading.stoppedAt,
		chainDate: cutShort ? (state.chainDate ?? reading.firstDate) : undefined,
		started: !activating || !cutShort || undefined,
	};
	const since = sinceOf(next);
	const seen: Record<string, number> = {};
	const keep = (identity: string, createdAt: number) => {
		if (reading.untimed || createdAt >= since) seen[identity] = createdAt;
	};
	// Without `createdAt`, a sure read of the whole list shows every registration listed: those not listed are forgotten.
	if (!(reading.untimed && reading.wholeList && !cutShort))
		for (const [identity, createdAt] of Object.entries(state.seen ?? {})) keep(identity, createdAt);
	for (const [identity, record] of reading.read) keep(identity, createdAtOf(record) ?? 0);
	next.seen = seen;
	return next;
}

/**
 * Registrations the oldest first: by `createdAt`; those of one moment (or without) as the service stored them — the
 * list's order reversed (the real service lists the newest first), unless what was read leans the oldest first.
 */
function oldestFirst(records: IDataObject[], times: number[]): IDataObject[] {
	const steps = times.slice(1).map((time, index) => Math.sign(time - times[index]));
	const listedOldestFirst = steps.filter((step) => step > 0).length > steps.filter((step) => step < 0).length;
	return records
		.map((record, position) => ({ record, position: listedOldestFirst ? position : -position }))
		.sort((a, b) => (createdAtOf(a.record) ?? 0) - (createdAtOf(b.record) ?? 0) || a.position - b.position)
		.map(({ record }) => record);
}

/** One poll: the registrations new since the last, the oldest first, or null when there are none. */
export async function pollNewRegistrations(
	this: IPollFunctions,
	formSlug: string | undefined,
	statedNewestFirst: boolean,
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
	const saved = this.getWorkflowStaticData('node');
	const remembered = carriedOver(saved);
	// A manual run, or a state about another list, starts as an activation does.
	const state: PollState = manual || remembered.list !== listKey ? { list: listKey } : remembered;
	const activating = state.started !== true;
	// A poll is one run of requests: its own credential read, and the pace it finds (servicePace.ts).
	const run = Object.create(this) as IPollFunctions;
	Object.assign(listHabits(run, list.path), state.habits);
	const stated = statedNewestFirst ? 'newestFirst' : undefined;
	// An activation under way that starts its list over reads at its start what was made since it began.
	const readBefore = Object.values(state.seen ?? {});
	const madeMeanwhileAfter =
		activating && readBefore.length > 0 && takenNewestFirst(state.order, stated) ? Math.max(...readBefore) : undefined;
	const reading = new PollReading(run, list, manual ? undefined : readingDeadline(this), state, madeMeanwhileAfter);

	const order = await readAsNeeded(reading, state, activating, stated);
	const read = [...reading.read.values()];
	if (manual) {
		// Without `createdAt` nothing tells the newest: the service's first is taken.
		const newest = reading.untimed ? read[0] : oldestFirst(read, reading.times).pop();
		return newest === undefined ? null : [[asItem(newest)]];
	}
	const fresh = newIn(reading, state, activating);
	const next = stateAfter(reading, state, order, activating);
	for (const key of Object.keys(saved)) delete saved[key];
	Object.assign(saved, JSON.parse(JSON.stringify(next)) as PollState);
	return fresh.length === 0 ? null : [oldestFirst(fresh, reading.times).map(asItem)];
}
