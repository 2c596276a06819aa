import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { listedRegistration } from '../../sandbox/lists.cts';
import type { RecordedRequest } from '../../sandbox/service.cts';
import type { StoredRegistration } from '../../sandbox/state.cts';

/**
 * The Poll Trigger over lists in orders of their own whose first page runs from the newest registration back, in
 * imports of many registrations of one moment each: a history imported in stored order, a list by form then the
 * newest first. Each is read whole each poll, so a registration listed past page 1 still comes — a rule that took such
 * a page for a list of the newest first (counting a row of one-moment imports as evidence) lost it, silently.
 */

const { sandbox, credentials } = useSandbox();

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let made = 0;

beforeEach(() => {
	made = 0;
});

type Route = (request: RecordedRequest) => unknown;
const box = () => sandbox() as unknown as { route?: Route };

/**
 * The service lists registrations in an order of its own (not one the sandbox's dialects offer), paged as the real
 * service pages them: `{ data, total }`, `page` and `limit` honoured, at most 100 an answer.
 */
function listsIn(order: (storedFirstFirst: StoredRegistration[]) => StoredRegistration[]): void {
	const original = box().route!.bind(sandbox()) as Route;
	box().route = (request) => {
		if (request.method !== 'GET' || request.path !== '/api/registrations') return original(request);
		const all = order(sandbox().state.matchingRegistrations(request.query).reverse());
		const limit = Math.min(Number(request.query.limit ?? 20), 100);
		const page = Number(request.query.page ?? 1);
		const data = all
			.slice((page - 1) * limit, page * limit)
			.map((registration) => listedRegistration(registration, sandbox().dialect));
		return { status: 200, body: { data, total: all.length } };
	};
}

afterEach(() => {
	delete box().route;
});

/** `count` registrations stored in one request, each for a new customer, made at `createdAt` (now if undefined). */
function register(count: number, extra: IDataObject = {}, createdAt?: number): string[] {
	const { registrations } = sandbox().state.createRegistrations(
		Array.from({ length: count }, () => {
			made += 1;
			return { productName: 'Kettle K1', customerEmail: `buyer${made}@example.com`, ...extra };
		}),
		createdAt === undefined ? undefined : new Date(createdAt).toISOString(),
	);
	return registrations.map((registration) => registration.id);
}

const idsOf = (items: INodeExecutionData[]) => items.map((item) => String(item.json.id));
const trigger = () => new PollingTrigger({ event: 'newRegistration' }, credentials());

/** Activates the trigger, then a minute on makes `fresh` and polls twice: what the polls emit. */
async function activateThenPoll(fresh: () => string[]) {
	const poller = trigger();
	await poller.activate();
	sandbox().state.clockAheadMs += MINUTE;
	const expected = fresh();
	const emitted: string[] = [];
	for (let poll = 0; poll < 2; poll++) {
		const { items, error } = await poller.poll();
		if (error) throw error;
		emitted.push(...idsOf(items));
		sandbox().state.clockAheadMs += MINUTE;
	}
	return { emitted, expected };
}

/**
 * Live registrations, each stored after the history and so listed after it in the order stored: the one made after the
 * activation comes out.
 */
async function expectTheLiveOneInTheOrderStored(): Promise<void> {
	register(3);
	listsIn((stored) => stored);
	const { emitted, expected } = await activateThenPoll(() => register(1));
	expect(emitted).toEqual(expected);
}

describe('Poll Trigger over lists in orders of their own, their page 1 the newest first', () => {
	test('a list in the order stored (the first stored first) whose imported history came newest first, in batches of one moment: a new registration is emitted', async () => {
		// The shop's history, moved from another system: exported the newest first (as the real service lists), in
		// imports of 10 registrations of one moment, a day apart; stored in that order, createdAt kept. 15 imports:
		// 15 moments, fewer than ORDER_EVIDENCE in a row.
		const newest = Date.now() - 30 * DAY;
		for (let batch = 0; batch < 15; batch++) register(10, {}, newest - batch * DAY);
		await expectTheLiveOneInTheOrderStored();
	});

	test('a list by form, then the newest first: a new registration of the second form is emitted', async () => {
		// Form "a-warranty": 150 registrations imported in 15 imports of 10 of one moment, an hour apart.
		const newest = Date.now() - 2 * DAY;
		for (let batch = 0; batch < 15; batch++) register(10, { type: 'a-warranty' }, newest - batch * 60 * MINUTE);
		register(2, { type: 'b-feedback' });
		const byFormThenNewest = (stored: StoredRegistration[]) =>
			stored
				.map((registration, position) => ({ registration, position }))
				.sort(
					(a, b) =>
						String(a.registration.formSlug).localeCompare(String(b.registration.formSlug)) ||
						Date.parse(b.registration.createdAt) - Date.parse(a.registration.createdAt) ||
						b.position - a.position,
				)
				.map(({ registration }) => registration);
		listsIn(byFormThenNewest);
		const { emitted, expected } = await activateThenPoll(() => register(1, { type: 'b-feedback' }));
		expect(emitted).toEqual(expected);
	});

	test('the same, createdAt written to the second: a nightly sync stored 10 within a second each night, the newest first', async () => {
		sandbox().dialect.createdAt = 'isoSeconds';
		// 15 nights, 10 registrations each 50 ms apart (distinct as stored), stored the newest first: shown, 15 seconds
		// of 10 registrations each.
		const newest = Math.floor((Date.now() - 30 * DAY) / 1000) * 1000 + 900;
		for (let night = 0; night < 15; night++)
			for (let index = 0; index < 10; index++) register(1, {}, newest - night * DAY - index * 50);
		await expectTheLiveOneInTheOrderStored();
	});

	test('Fetch Test Event over the first list, in the order stored, shows the newest registration', async () => {
		const newest = Date.now() - 30 * DAY;
		for (let batch = 0; batch < 15; batch++) register(10, {}, newest - batch * DAY);
		const [latest] = register(1).slice(-1);
		listsIn((stored) => stored);
		expect(idsOf(await trigger().fetchTestEvent())).toEqual([latest]);
	});
});
