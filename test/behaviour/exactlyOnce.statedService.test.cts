import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { REAL_SERVICE } from '../../sandbox/lists.cts';

/**
 * Lists that know the service: what a review found against the list reader and the Poll Trigger that inferred the
 * service's habits from its answers, each on the real service as docs/service.md describes it — registrations of one
 * import sharing a moment and listed in another order at each request, pages of 100 leaving out the newest.
 */

const { sandbox, credentials } = useSandbox();

const MINUTE = 60_000;
let made = 0;

beforeEach(() => {
	made = 0;
});

/** `count` registrations made in imports of `batch`, each import one moment, a minute apart: their ids, the oldest first. */
function imported(count: number, batch: number): string[] {
	const entries = Array.from({ length: count }, () => {
		made += 1;
		return { productName: `Kettle K${made % 5}`, customerEmail: `customer${made}@example.com` };
	});
	return sandbox()
		.state.registerOverTime(entries, { batch, apartMs: MINUTE })
		.map((registration) => registration.id);
}

const idsOf = (items: INodeExecutionData[]) => items.map((item) => String(item.json.id));
const listRequests = () => sandbox().requestsTo('GET', '/api/registrations').length;
const getAll = async (parameters: IDataObject) =>
	await runNode({ parameters: { resource: 'registration', operation: 'getAll', ...parameters }, credentials: credentials() });

/** What a user sees of a list that owes `owed`: the hints, and how many of it came out never and twice. */
function seen(result: { items: INodeExecutionData[]; hints: unknown[] }, owed: string[]) {
	const listed = idsOf(result.items);
	const missing = owed.filter((id) => !listed.includes(id)).length;
	return { hints: result.hints, missing, twice: listed.length - new Set(listed).size };
}

/** Deletes the oldest registration still there before each list request that `when` picks (by its number, from 1). */
function deleteOldestWhen(when: (request: { page?: string }, number: number) => boolean): string[] {
	const deleted: string[] = [];
	let number = 0;
	sandbox().faultPlan = (request) => {
		if (request.method !== 'GET' || request.path !== '/api/registrations' || !when(request.query, ++number)) return undefined;
		const oldest = [...sandbox().state.registrations.keys()][0];
		sandbox().state.deleteRegistration(oldest);
		deleted.push(oldest);
		return undefined;
	};
	return deleted;
}

/** At each of the first three reads from the list's start (page 1). */
const atThreeReadsFromTheStart = (deleted: () => number) => (query: { page?: string }) => query.page === '1' && deleted() < 3;

describe('registrations of one import, listed in another order at each request', () => {
	beforeEach(() => {
		sandbox().dialect = { ...REAL_SERVICE, ties: 'reordered' };
	});

	test.each([4, 5, 6, 7, 8, 9, 10, 49])(
		'Get Many over 1,000 imported in batches of %i: each once, nothing said',
		async (batch) => {
			const ids = imported(1000, batch);
			expect(seen(await getAll({ returnAll: true }), ids)).toEqual({ hints: [], missing: 0, twice: 0 });
		},
		30_000,
	);

	test('Get Many over 1,000 imported in batches of 50, each where no window of at most 99 holds it with the record either side ((page − 1) × limit at or before the one before it): said, never twice', async () => {
		const ids = imported(1000, 50);
		const { hints, twice } = seen(await getAll({ returnAll: true }), ids);
		expect({ hints, twice }).toEqual({
			hints: [
				'The list of registrations may be incomplete: more records share one moment (createdAt) than a window of 99 holds with the one before them, and the service may list those in another order at each request. Run the node again to read the list anew [item 0]',
			],
			twice: 0,
		});
	}, 30_000);

	test('Skip, the 1,000 rows imported in batches of 8 run again: every row skipped, none created twice', async () => {
		imported(1000, 8);
		const rows = [...sandbox().state.registrations.values()].map((registration) => ({
			json: { Product: registration.productName, Email: registration.customerEmail },
		}));

		const run = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				dataMode: 'autoMapInputData',
				options: { ifExists: 'skip' },
			},
			credentials: credentials(),
			items: rows,
		});

		expect(run.items.filter((item) => item.json.outcome !== 'skipped')).toEqual([]);
		expect(sandbox().state.registrations.size).toBe(1000);
	}, 30_000);

	test.each([
		[1, 'learn'],
		[1.1, 'newestFirst'],
		[1.1, 'anyOrder'],
	])(
		'the Poll Trigger (version %s, List Order %s) over 1,000 imported in batches of 10: 12 more, each once, no poll fails',
		async (version, listOrder) => {
			imported(1000, 10);
			const poller = new PollingTrigger({ event: 'newRegistration', options: { listOrder } }, credentials(), version);
			await poller.activate();
			sandbox().state.clockAheadMs += 10 * MINUTE;
			const fresh = imported(12, 4);

			const emitted: string[] = [];
			for (let poll = 0; poll < 3; poll++) {
				const { items, error } = await poller.poll();
				expect(error).toBeUndefined();
				emitted.push(...idsOf(items));
			}

			// The oldest import first; those of one moment in whichever order the service lists them.
			expect({ emitted: emitted.length, once: [...emitted].sort() }).toEqual({ emitted: 12, once: [...fresh].sort() });
			expect(emitted.slice(0, 4).sort()).toEqual(fresh.slice(0, 4).sort());
		},
		30_000,
	);
});

describe('the quirk, pages of 100 leaving out the newest, while old registrations are deleted', () => {
	test('leaving out 10 of 297, the oldest deleted at each of three reads from the start: Return All gives all the others, nothing said', async () => {
		sandbox().dialect = { ...REAL_SERVICE, largePagesMissNewest: 10 };
		const ids = imported(297, 1);
		const deleted: string[] = deleteOldestWhen(atThreeReadsFromTheStart(() => deleted.length));

		const result = await getAll({ returnAll: true });

		expect(seen(result, ids.filter((id) => !deleted.includes(id)))).toEqual({ hints: [], missing: 0, twice: 0 });
	});

	test.each([100, 150, 250])('the same, Limit %i: the newest, in order', async (limit) => {
		sandbox().dialect = { ...REAL_SERVICE, largePagesMissNewest: 10 };
		const ids = imported(297, 1);
		const deleted: string[] = deleteOldestWhen(atThreeReadsFromTheStart(() => deleted.length));

		const result = await getAll({ returnAll: false, limit });

		expect({ listed: idsOf(result.items), hints: result.hints }).toEqual({
			listed: [...ids].reverse().slice(0, limit),
			hints: [],
		});
	});

	test('leaving out 2 of 999, one deleted between the first two reads: all the others, nothing said; Skip over them looks no customer up', async () => {
		sandbox().dialect = { ...REAL_SERVICE, largePagesMissNewest: 2 };
		const ids = imported(999, 1);
		const deleted = deleteOldestWhen((_, number) => number === 2);
		expect(seen(await getAll({ returnAll: true }), ids.filter((id) => !deleted.includes(id)))).toEqual({
			hints: [],
			missing: 0,
			twice: 0,
		});

		// The oldest goes between the listing's first two reads; the rows name 300 others.
		deleteOldestWhen((_, number) => number === 2);
		const rows = [...sandbox().state.registrations.values()]
			.slice(1, 301)
			.map((registration) => ({ json: { Product: registration.productName, Email: registration.customerEmail } }));
		const before = listRequests();
		const run = await runNode({
			parameters: { resource: 'registration', operation: 'create', dataMode: 'autoMapInputData', options: { ifExists: 'skip' } },
			credentials: credentials(),
			items: rows,
		});

		expect(run.items.filter((item) => item.json.outcome !== 'skipped')).toEqual([]);
		expect(sandbox().requestsTo('GET', '/api/registrations').filter((request) => request.query.email !== undefined)).toEqual([]);
		// The form's listing, read once: 12 windows of up to 99 over 998.
		expect(listRequests() - before).toBeLessThanOrEqual(13);
	});
});

describe('a quiet poll of a node added since 0.7 (List Order: Newest First)', () => {
	test('over 5,000 imported in batches of 10: at most 2 requests a poll, however long the shop is quiet', async () => {
		imported(5000, 10);
		const poller = new PollingTrigger({ event: 'newRegistration' }, credentials(), 1.1);
		await poller.activate();

		const perPoll: number[] = [];
		for (let poll = 0; poll < 4; poll++) {
			sandbox().state.clockAheadMs += MINUTE;
			const before = listRequests();
			expect(await poller.poll()).toEqual({ items: [] });
			perPoll.push(listRequests() - before);
		}

		expect(Math.max(...perPoll)).toBeLessThanOrEqual(2);
	}, 30_000);

	test('Any Order reads the list whole at each poll: about as many requests as it has windows of 99', async () => {
		imported(1000, 10);
		const poller = new PollingTrigger({ event: 'newRegistration', options: { listOrder: 'anyOrder' } }, credentials(), 1.1);
		await poller.activate();
		sandbox().state.clockAheadMs += MINUTE;

		const before = listRequests();
		expect(await poller.poll()).toEqual({ items: [] });

		// Each window moves on by all it holds but the record it goes on from and the last moment's: 1,000 / 86 or so.
		expect(listRequests() - before).toBeLessThanOrEqual(13);
	}, 30_000);
});
