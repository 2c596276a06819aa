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
 * a page for a list of the newest first (counting a row of one-moment imports as evidence) lost it, silently; so did
 * one that took a whole read of such a list as evidence and watched its total (the last describe).
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

/** What the listed answers say for `total` (none: `{ data }` alone). */
let totalOf: (all: StoredRegistration[]) => number | undefined = (all) => all.length;

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
		const total = totalOf(all);
		return { status: 200, body: total === undefined ? { data } : { data, total } };
	};
}

afterEach(() => {
	delete box().route;
	totalOf = (all) => all.length;
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
const trigger = (parameters: IDataObject = {}) =>
	new PollingTrigger({ event: 'newRegistration', ...parameters }, credentials());
const laterBy = (ms: number) => {
	sandbox().state.clockAheadMs += ms;
};

/** Activates the trigger, then a minute on makes `fresh` and polls twice: what the polls emit. */
async function activateThenPoll(fresh: () => string[]) {
	const poller = trigger();
	await poller.activate();
	laterBy(MINUTE);
	const expected = fresh();
	const emitted: string[] = [];
	for (let poll = 0; poll < 2; poll++) {
		const { items, error } = await poller.poll();
		if (error) throw error;
		emitted.push(...idsOf(items));
		laterBy(MINUTE);
	}
	return { emitted, expected };
}

/** A list by form, then the newest first (those of one moment as stored, the last stored first). */
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

/**
 * A list by form, then the newest first. Form "a-warranty" (listed first): a history moved from another system in 25
 * imports of 10 registrations of one moment, an hour apart; form "b-feedback" (listed after it): a few registrations a
 * month old. No answer of 100 shows 20 in a row, the whole list does (25 moments, then older ones); a new registration
 * of "b-feedback" is listed past all of "a-warranty", past page 1. Gives the ids of "b-feedback"'s history.
 */
function byFormHistory(): string[] {
	const newest = Date.now() - 2 * 60 * MINUTE;
	for (let batch = 0; batch < 25; batch++) register(10, { type: 'a-warranty' }, newest - batch * 60 * MINUTE);
	const old = register(5, { type: 'b-feedback' }, Date.now() - 30 * DAY);
	listsIn(byFormThenNewest);
	return old;
}

/** Polls `times` times a minute apart: what they emitted. */
async function pollTimes(poller: PollingTrigger, times: number): Promise<string[]> {
	const emitted: string[] = [];
	for (let poll = 0; poll < times; poll++) {
		const { items, error } = await poller.poll();
		if (error) throw error;
		emitted.push(...idsOf(items));
		laterBy(MINUTE);
	}
	return emitted;
}

/** After what `meanwhile` does, polls for five minutes, then one more registration of "b-feedback": what came out. */
async function emittedAfter(poller: PollingTrigger, meanwhile: () => string[]) {
	const expected = meanwhile();
	const emitted = await pollTimes(poller, 5);
	expected.push(...register(1, { type: 'b-feedback' }));
	emitted.push(...(await pollTimes(poller, 3)));
	return { emitted: emitted.sort(), expected: expected.sort() };
}

/**
 * Regression (a review of a rule that took such a list for the newest first after one whole read, then watched its
 * total for registrations listed past page 1): a total cannot show what deletions offset, what an answer without a
 * total hides, or what is listed at the start while a poll reads on. Read whole, the list loses none.
 */
describe('Poll Trigger over a list by form, then the newest first, whose whole list looks the newest first', () => {
	test('a registration of the second form, made as an old one is deleted, is emitted', async () => {
		const old = byFormHistory();
		const poller = trigger();
		await poller.activate();
		laterBy(MINUTE);
		const { emitted, expected } = await emittedAfter(poller, () => {
			const made = [...register(1, { type: 'b-feedback' }), ...register(1, { type: 'a-warranty' })];
			sandbox().state.deleteRegistration(old[0]);
			return made;
		});
		expect(emitted).toEqual(expected);
	});

	test('one quiet poll whose answer has no total loses no registration', async () => {
		byFormHistory();
		const poller = trigger();
		await poller.activate();
		laterBy(MINUTE);
		totalOf = () => undefined;
		expect(await pollTimes(poller, 1)).toEqual([]);
		totalOf = (all) => all.length;
		const { emitted, expected } = await emittedAfter(poller, () => [
			...register(1, { type: 'b-feedback' }),
			...register(1, { type: 'a-warranty' }),
		]);
		expect(emitted).toEqual(expected);
	});

	test('a registration of the first form made while a poll reads page 2 hides none of the second form', async () => {
		byFormHistory();
		const poller = trigger();
		await poller.activate();
		laterBy(MINUTE);
		// An old feedback registration is imported (made 40 days ago); while the next poll reads page 2, a customer
		// registers in "a-warranty", listed at the start.
		register(1, { type: 'b-feedback' }, Date.now() - 40 * DAY);
		const expected: string[] = [];
		const original = box().route!;
		let madeWhileRead = false;
		box().route = (request) => {
			if (!madeWhileRead && request.path === '/api/registrations' && Number(request.query.page ?? 1) >= 2) {
				madeWhileRead = true;
				expected.push(...register(1, { type: 'a-warranty' }));
			}
			return original(request);
		};
		const emitted = await pollTimes(poller, 1);
		expect(madeWhileRead).toBe(true);
		const later = await emittedAfter(poller, () => [
			...register(1, { type: 'b-feedback' }),
			...register(1, { type: 'a-warranty' }),
		]);
		expect([...emitted, ...later.emitted].sort()).toEqual([...expected, ...later.expected].sort());
	});

	test('the newest first, one form watched, a total that counts every form: a quiet poll costs one request while another form is busy', async () => {
		const newest = Date.now() - DAY;
		for (let index = 0; index < 400; index++) register(1, { type: 'a-warranty' }, newest - index * MINUTE);
		listsIn((stored) => [...stored].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt)));
		totalOf = () => sandbox().state.matchingRegistrations({}).length;
		const poller = trigger({ formSlug: { __rl: true, mode: 'id', value: 'a-warranty' } });
		await poller.activate();
		await pollTimes(poller, 2);
		sandbox().requests.length = 0;
		for (let poll = 0; poll < 3; poll++) {
			register(1, { type: 'b-feedback' });
			expect(await pollTimes(poller, 1)).toEqual([]);
		}
		expect(sandbox().requestsTo('GET', '/api/registrations').length).toBeLessThanOrEqual(3);
	});
});
