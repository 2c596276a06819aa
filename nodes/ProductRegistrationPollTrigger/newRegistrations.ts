import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { ListRequest } from '../ProductRegistration/transport/pagedList';
import { PagedList, readList, readListPage } from '../ProductRegistration/transport/pagedList';

/**
 * Which registrations are new since the last poll, read with as few requests as a quiet shop needs, and remembered
 * in the workflow's static data, bounded whatever the shop's volume.
 *
 * The real service lists registrations the newest first, a page at a time. A registration is new when the trigger
 * has not seen its ID and it is not older than the newest one the trigger has emitted (the mark, by `createdAt`): a
 * seen registration that was deleted, or one created in the same millisecond as the mark, changes nothing. A poll
 * first reads one small page; only when all of it is new does it read on, a page of 100 at a time, until a page
 * reaches registrations older than the mark — so a poll holds only what is new, and a burst of many pages is read
 * whole. A registration that arrives while the poll reads pushes the others a place on: it is read once, by the next
 * poll. The small page also shows the newest registrations that the real service's pages of 100 were seen to leave
 * out. The API document's bare array has no pages and promises no order: each poll reads it whole and puts it in the
 * real service's order by `createdAt`.
 *
 * n8n saves static data after the poll that activated the workflow and with each poll that emits: the state changes
 * only then, so a poll that failed, or found nothing, leaves it as the next poll needs it — also after a restart.
 */

/** The first page of each poll: what a quiet shop costs per poll. */
export const FIRST_PAGE_SIZE = 10;
/** IDs remembered besides those at the mark (for registrations the service lists without `createdAt`). */
export const IDS_KEPT = 100;
/** The most IDs remembered at the mark, for registrations created in the same millisecond. */
export const IDS_AT_MARK_KEPT = 1000;

/** What the trigger remembers between polls, in the workflow's static data. */
export interface PollState {
	/** The list the state is about: the form's slug, or '' for every form. */
	list?: string;
	/** `createdAt` of the newest registration emitted (ms since the epoch). */
	mark?: number;
	/** IDs of the newest registrations seen, the newest first: all of those at the mark, and at least IDS_KEPT. */
	seen?: string[];
}

function idOf(record: IDataObject): string | undefined {
	const id = record.id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

function createdAtOf(record: IDataObject): number | undefined {
	const time = typeof record.createdAt === 'string' ? Date.parse(record.createdAt) : NaN;
	return Number.isNaN(time) ? undefined : time;
}

/** A registration as the trigger emits it: as listed, with its extra fields also under `fields`, as the webhook's. */
function asItem(record: IDataObject): INodeExecutionData {
	const fieldData = record.fieldData;
	const fields = fieldData !== null && typeof fieldData === 'object' && !Array.isArray(fieldData) ? fieldData : {};
	return { json: { ...record, fields: record.fields ?? fields } };
}

/** `records` the newest first by `createdAt`, those of the same moment (or none) in the order given. */
function newestFirst(records: IDataObject[]): IDataObject[] {
	return records
		.map((record, position) => ({ record, position, createdAt: createdAtOf(record) ?? -Infinity }))
		.sort((a, b) => (a.createdAt === b.createdAt ? a.position - b.position : b.createdAt - a.createdAt))
		.map(({ record }) => record);
}

/**
 * The newest registrations, the newest first, and whether the service holds more after them: the first page of `size`
 * of a paged list, or all of a bare array (which holds more than `size` only when it was cut to it).
 */
async function newestPage(
	run: IPollFunctions,
	list: ListRequest,
	size: number,
): Promise<{ records: IDataObject[]; more: boolean }> {
	const first = await readListPage.call(run, list, 1, size);
	if (first.wrapped) return first;
	const every = first.records.length < size ? first.records : (await readList.call(run, list, 0)).records;
	return { records: newestFirst(every), more: false };
}

/** What the trigger remembers after `records` (the newest first), on top of what it remembered. */
function remembered(list: string, records: IDataObject[], before: PollState): PollState {
	const mark = records.reduce(
		(newest, record) => Math.max(newest, createdAtOf(record) ?? -Infinity),
		before.mark ?? -Infinity,
	);
	const ids = [...records.map(idOf), ...(before.seen ?? [])].filter((id): id is string => id !== undefined);
	// Those remembered before may be at the mark too, when it has not moved.
	const atMark =
		records.filter((record) => createdAtOf(record) === mark).length +
		(mark === before.mark ? (before.seen?.length ?? 0) : 0);
	const kept = Math.min(Math.max(IDS_KEPT, atMark), IDS_AT_MARK_KEPT);
	return { list, mark: Number.isFinite(mark) ? mark : undefined, seen: [...new Set(ids)].slice(0, kept) };
}

/** The registrations new since `state`, the newest first. */
async function readNew(run: IPollFunctions, list: ListRequest, state: PollState): Promise<IDataObject[]> {
	const seen = new Set(state.seen);
	const isNew = (record: IDataObject) => {
		const id = idOf(record);
		const createdAt = createdAtOf(record);
		if (id !== undefined && seen.has(id)) return false;
		return state.mark === undefined || createdAt === undefined || createdAt >= state.mark;
	};
	// The newest first: past a registration seen or older than the mark, every one is known.
	const isOld = (record: IDataObject) => {
		const id = idOf(record);
		const createdAt = createdAtOf(record);
		return (
			(id !== undefined && seen.has(id)) ||
			(state.mark !== undefined && createdAt !== undefined && createdAt < state.mark)
		);
	};
	const fresh = new Map<string, IDataObject>();
	const keep = (records: IDataObject[]) => {
		for (const record of records.filter(isNew)) fresh.set(idOf(record) ?? JSON.stringify(record), record);
	};

	const first = await newestPage(run, list, FIRST_PAGE_SIZE);
	keep(first.records);
	if (!first.more || first.records.some(isOld)) return [...fresh.values()];
	const pages = new PagedList(run, list, 0);
	for (;;) {
		const more = await pages.readPage();
		keep(pages.lastPage);
		if (!more || pages.lastPage.some(isOld)) return [...fresh.values()];
	}
}

/**
 * What the trigger remembers when it starts from now: the newest registrations, and every one made in the same moment
 * as the newest (one small request, unless that moment holds more than the first page). More of them than it keeps
 * moves the mark just past that moment.
 */
async function startFromNow(run: IPollFunctions, list: ListRequest, listKey: string): Promise<PollState> {
	const { records } = await newestPage(run, list, FIRST_PAGE_SIZE);
	const state = remembered(listKey, records, {});
	const { mark } = state;
	if (mark === undefined || records.length < FIRST_PAGE_SIZE || records.some((record) => createdAtOf(record) !== mark))
		return state;
	const atMark = await readNew(run, list, { mark });
	return atMark.length > IDS_AT_MARK_KEPT ? { ...state, mark: mark + 1 } : remembered(listKey, atMark, {});
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
		path: 'registrations',
		qs: formSlug === undefined ? {} : { formSlug },
		resourceKey: 'registrations',
		what: formSlug === undefined ? 'registrations' : `registrations of the form ${formSlug}`,
	};
	// A poll is one run of requests: its own credential read and its own pace, not those of the polls before it.
	const run = Object.create(this) as IPollFunctions;
	if (this.getMode() === 'manual') {
		const { records } = await newestPage(run, list, 1);
		return records.length === 0 ? null : [[asItem(records[0])]];
	}
	const state = this.getWorkflowStaticData('node') as PollState;
	const listKey = formSlug ?? '';
	if (state.list !== listKey) {
		Object.assign(state, await startFromNow(run, list, listKey));
		return null;
	}
	const fresh = await readNew(run, list, state);
	if (fresh.length === 0) return null;
	Object.assign(state, remembered(listKey, fresh, state));
	const oldestFirst = fresh
		.map((record, position) => ({ record, position }))
		.sort(
			(a, b) =>
				(createdAtOf(a.record) ?? 0) - (createdAtOf(b.record) ?? 0) ||
				// The same moment, or none: the service lists the newest first.
				b.position - a.position,
		);
	return [oldestFirst.map(({ record }) => asItem(record))];
}
