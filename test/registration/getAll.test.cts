import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { API_PAGE } from '../../sandbox/lists.cts';

const { sandbox, credentials } = useSandbox();

function seed() {
	sandbox().state.createRegistrations([
		{ productName: 'Kettle K1', customerEmail: 'ann@example.com', customer: { id: 7 }, type: 'warranty' },
		{ productName: 'Toaster T2', customerEmail: 'ann@example.com', customer: { id: 7 } },
		{ productName: 'Blender B3', customerEmail: 'bob@example.com', customer: { id: 9 }, type: 'warranty' },
	]);
}

/** `count` registrations of one customer, R000001 the oldest; the service lists the newest first. */
/** `count` registrations made a second apart, the first the oldest. */
function seedMany(count: number, email = 'many@example.com') {
	sandbox().state.registerOverTime(
		Array.from({ length: count }, (_, index) => ({ productName: `Product ${index + 1}`, customerEmail: email })),
	);
}

const getAll = (parameters: Record<string, unknown>) => ({
	resource: 'registration',
	operation: 'getAll',
	...parameters,
});

const pages = () =>
	sandbox()
		.requestsTo('GET', '/api/registrations')
		.map((request) => request.query);
const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
/** R000001 … R<count>, the newest first, as the service lists them. */
const newestFirst = (count: number) =>
	Array.from({ length: count }, (_, index) => `R${String(count - index).padStart(6, '0')}`);

describe('registration: Get Many', () => {
	test('returns one item per registration, as the service lists them (the newest first), each linked to the input item', async () => {
		seed();

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(result.items.map((item) => item.json.productName)).toEqual(['Blender B3', 'Toaster T2', 'Kettle K1']);
		expect(result.items[0].json).toEqual({
			id: 'R000003',
			productName: 'Blender B3',
			customerEmail: 'bob@example.com',
			serialNumbers: [],
			createdAt: expect.any(String),
			status: null,
			type: 'warranty',
			fieldData: {},
		});
		expect(result.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(pages()).toHaveLength(1);
		expect(result.hints).toEqual([]);
	});

	test('sends the filters as the query, asks only for the Limit, and returns at most the Limit', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({
				returnAll: false,
				limit: 1,
				filters: { email: 'ann@example.com', customerId: 7, formSlug: 'warranty' },
			}),
			credentials: credentials(),
		});

		expect(pages()).toEqual([
			{ email: 'ann@example.com', customerId: '7', formSlug: 'warranty', page: '1', limit: '1' },
		]);
		expect(result.items.map((item) => item.json.productName)).toEqual(['Kettle K1']);
	});

	test('keeps to the limit even when the service ignores it', async () => {
		sandbox().faultQueue.push({ status: 200, body: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 2 }), credentials: credentials() });

		expect(result.items.map((item) => item.json)).toEqual([{ id: 'a' }, { id: 'b' }]);
	});

	test('each input item runs its own query, and its results are linked to it', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({ returnAll: true, filters: { email: '={{ $json.email }}' } }),
			credentials: credentials(),
			items: [
				{ json: { email: 'bob@example.com' } },
				{ json: { email: 'nobody@example.com' } },
				{ json: { email: 'ann@example.com' } },
			],
		});

		expect(result.items.map((item) => [item.json.productName, item.pairedItem])).toEqual([
			['Blender B3', { item: 0 }],
			['Toaster T2', { item: 2 }],
			['Kettle K1', { item: 2 }],
		]);
	});

	test('an email filter that is not an email is refused before anything is sent, naming the item', async () => {
		const result = await runNode({
			parameters: getAll({ returnAll: true, filters: { email: '={{ $json.email }}' } }),
			credentials: credentials(),
			items: [{ json: { email: 'ann@example.com' } }, { json: { email: 'ann at example' } }],
		});

		expect(result.error?.message).toBe(
			`The 'Customer Email' filter is not an email address: "ann at example" [item 1]`,
		);
		expect((result.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(sandbox().requestsTo('GET', '/api/registrations')).toHaveLength(1);
	});

	test('under Continue On Fail the bad item becomes an error item and the others still run', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({ returnAll: true, filters: { email: '={{ $json.email }}' } }),
			credentials: credentials(),
			items: [{ json: { email: 'not-an-email' } }, { json: { email: 'bob@example.com' } }],
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{
				json: { error: `The 'Customer Email' filter is not an email address: "not-an-email" [item 0]` },
				pairedItem: { item: 0 },
			},
			expect.objectContaining({
				json: expect.objectContaining({ productName: 'Blender B3' }),
				pairedItem: { item: 1 },
			}),
		]);
	});
});

describe('registration: Get Many over a paged list', () => {
	test('Return All over 250 registrations in windows of up to 100, each starting at one already read: every registration once', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages().every((query) => Number(query.limit) <= 100)).toBe(true);
		// A small window first (the real service's pages of 100 leave out its newest), then windows of up to 100.
		expect(pages().length).toBeLessThanOrEqual(4);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Return All over 250 registrations from a service that gives at most 20 a page: its total carries the reading on', async () => {
		seedMany(250);
		sandbox().dialect.cap = 20;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		// Past page 1, no window asks for more than the service gives.
		expect(pages().every((query) => query.page === '1' || Number(query.limit) <= 20)).toBe(true);
		expect(pages().length).toBeLessThanOrEqual(18);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Limit 150 over windows of up to 100: three requests, 150 registrations', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages().length).toBeLessThanOrEqual(3);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});

	test('a 429 on the middle window is waited out and the reading resumes: every registration once', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) =>
			request.query.page === '2' && pages().filter((query) => query.page === '2').length === 1
				? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } }
				: undefined;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(sandbox().requests.filter((request) => request.query.page === '2')).toHaveLength(2);
		expect(pages().length).toBeLessThanOrEqual(5);
		expect(ids(result.items)).toEqual(newestFirst(250));
	});

	test('Return All over 3,000 registrations: windows of 99 one after another, each holding the record before the last one\'s closing moment', async () => {
		seedMany(3000);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(3000));
		expect(pages().every((query) => query.limit !== undefined && Number(query.limit) <= 99)).toBe(true);
		// Each window starts where (page − 1) × limit lands at or before the anchor: 86 further on, on average.
		expect(pages().length).toBeLessThanOrEqual(35);
		expect(result.hints).toEqual([]);
	}, 15_000);

	test('registrations that arrive and others deleted while windows are read: none comes out twice, none still there is left out', async () => {
		seedMany(3000);
		const deleted = newestFirst(3000).slice(100, 110);
		sandbox().faultPlan = (request) => {
			if (request.query.page === '25' && sandbox().state.registrations.has(deleted[0])) {
				for (const id of deleted) sandbox().state.deleteRegistration(id);
				seedMany(3, 'late@example.com');
			}
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		const listed = ids(result.items);
		expect(listed.length - new Set(listed).size).toBe(0);
		expect(newestFirst(3000).filter((id) => !deleted.includes(id) && !listed.includes(id))).toEqual([]);
	}, 15_000);

	test('regression: a window that fails (502, sent again) while 20 arrive and the 20 oldest go: none still there is left out, the list read once', async () => {
		seedMany(3000);
		const deleted: string[] = [];
		let failed: { page: string; limit: string } | undefined;
		let failedOnce = false;
		sandbox().faultPlan = (request) => {
			if (request.path !== '/api/registrations') return undefined;
			const { page, limit } = request.query;
			if (failed !== undefined && page === failed.page && limit === failed.limit) {
				// Sent again: the list changes meanwhile, its total does not.
				failed = undefined;
				seedMany(20, 'late@example.com');
				for (const id of newestFirst(3000).reverse().slice(deleted.length, deleted.length + 20)) {
					sandbox().state.deleteRegistration(id);
					deleted.push(id);
				}
				return undefined;
			}
			if (!failedOnce && (Number(page) - 1) * Number(limit) >= 2000) {
				failedOnce = true;
				failed = { page, limit };
				return { status: 502, body: { message: 'Bad gateway' } };
			}
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		const listed = ids(result.items);
		expect(newestFirst(3000).filter((id) => !deleted.includes(id) && !listed.includes(id))).toEqual([]);
		expect(listed.length - new Set(listed).size).toBe(0);
		expect(result.hints).toEqual([]);
		expect(pages().filter((query) => query.page === '1').length).toBe(1);
		// As read undisturbed (35), the window sent again, and one asked again where the list moved under it.
		expect(pages().length).toBeLessThanOrEqual(35 + 2);
	}, 30_000);

	test('a registration that arrives while the list is read (newest first) makes none come out twice, and leaves none out', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2' && sandbox().state.registrations.size === 250) seedMany(1, 'late@example.com');
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		const listed = ids(result.items);
		expect(listed.length - new Set(listed).size).toBe(0);
		expect(newestFirst(250).filter((id) => !listed.includes(id))).toEqual([]);
		expect(result.hints).toEqual([]);
	});

	test('regression: registrations deleted while the list is read hide none of the others', async () => {
		seedMany(250);
		const deleted = newestFirst(250).slice(0, 5);
		sandbox().faultPlan = (request) => {
			// Deletes registrations already read: pages that did not overlap would skip five of the rest.
			if (request.query.page === '2' && sandbox().state.registrations.has(deleted[0]))
				for (const id of deleted) sandbox().state.deleteRegistration(id);
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('pages of 100 that leave out the newest registrations miss nothing: the small first window shows them', async () => {
		seedMany(250);
		sandbox().dialect.largePagesMissNewest = 3;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('a list short of its total: all that came are given, and the user is told', async () => {
		sandbox().faultPlan = () => ({ status: 200, body: { data: [{ id: 1 }, { id: 2 }], total: 5 } });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual([1, 2]);
		expect(result.hints).toEqual([
			'The list of registrations may be incomplete: the service said it holds 5 but listed 2: it left some out. Run the node again to read the list anew [item 0]',
		]);
	});

	test('a service that ignores page and gives at most 100: the reading starts over, asks page 1 for more, and tells the user', async () => {
		seedMany(300);
		sandbox().dialect.pages = 'ignored';

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		// Each of 3 reads from the start: page 1, the window after it, and that window asked again further back.
		expect(pages().length).toBeLessThanOrEqual(12);
		expect(ids(result.items)).toEqual(newestFirst(300).slice(0, 100));
		expect(result.hints).toEqual([
			'The list of registrations may be incomplete: on each of 3 reads from its start, a page held none of what the read before it held, or nothing more: the service ignores page, or the list changed too much while it was read. Run the node again to read the list anew [item 0]',
		]);
	});

	test('a service that ignores page but gives as many as asked: page 1 asked for more gives the whole list', async () => {
		seedMany(300);
		Object.assign(sandbox().dialect, { pages: 'ignored', limit: 'honoured' });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(300));
		expect(result.hints).toEqual([]);
	});

	test('a service that never stops answering new records ends in a clear error, not a loop', async () => {
		sandbox().faultPlan = (request) => {
			const limit = Number(request.query.limit);
			const from = (Number(request.query.page) - 1) * limit;
			return { status: 200, body: { data: Array.from({ length: limit }, (_, index) => ({ id: from + index })) } };
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(result.error?.message).toBe(
			"The service's list of registrations did not end after 10,000 pages: the node stopped reading it rather than go on for ever",
		);
		expect(pages()).toHaveLength(10_000);
	}, 60_000);
});

describe('registration: Get Many in the dialects the API page leaves open', () => {
	test.each([
		['{ data, meta: { total } }', { shape: 'dataMetaTotal' }],
		['{ data } without a total', { shape: 'dataOnly' }],
		['the oldest first', { order: 'oldestFirst' }],
		['in no order', { order: 'none' }],
		['ids under regId, as numbers', { idKey: 'regId', numericIds: true }],
		['ids under registrationId', { idKey: 'registrationId' }],
		['at most 50 a page, without a total', { shape: 'dataOnly', cap: 50 }],
	] as const)(
		'%s: Return All gives each of 250 registrations once, and says nothing is missing',
		async (_, dialect) => {
			seedMany(250);
			Object.assign(sandbox().dialect, dialect);

			const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

			const listed = result.items.map((item) => String(item.json.id ?? item.json.regId ?? item.json.registrationId));
			expect(new Set(listed).size).toBe(250);
			expect(listed).toHaveLength(250);
			expect(result.hints).toEqual([]);
		},
	);

	test('{ data } without a total, 250 registrations: the last window, shorter than asked, ends the list', async () => {
		seedMany(250);
		sandbox().dialect.shape = 'dataOnly';

		await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages().length).toBeLessThanOrEqual(4);
	});

	test('a service that gives 20 a page whatever is asked: every registration once, and the user is told pages could not overlap', async () => {
		seedMany(250);
		Object.assign(sandbox().dialect, { limit: 'ignored', defaultPageSize: 20 });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([
			'The list of registrations may be incomplete: the service gives 20 records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another. Run the node again to read the list anew [item 0]',
		]);
	});
});

describe("registration: Get Many, the API page's reading (a bare array)", () => {
	beforeEach(() => {
		sandbox().dialect = { ...API_PAGE };
	});

	test('one request when the list is shorter than any page', async () => {
		seed();

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toHaveLength(1);
		expect(result.items.map((item) => item.json.productName)).toEqual(['Blender B3', 'Toaster T2', 'Kettle K1']);
	});

	test('Return All over 250: a small window, then the whole list asked without limit, in one answer', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toHaveLength(2);
		expect(pages()[1]).toEqual({});
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Limit 150 over 250: two requests, the first 150', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages().length).toBeLessThanOrEqual(2);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});

	test('regression: a bare array that limit cuts to 50 whatever is asked is still read whole', async () => {
		seedMany(250);
		Object.assign(sandbox().dialect, { limit: 'capped', cap: 50 });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages().length).toBeLessThanOrEqual(2);
		expect(ids(result.items)).toEqual(newestFirst(250));
	});
});

/**
 * Simplify, from version 1.1 (a node added now), on by default: each registration compact, as the tool's Output
 * Simplified gives it to a model. A node of version 1 (saved before 0.6) answers with whole registrations, as above.
 */
describe('registration: Get Many, Simplify', () => {
	const compactBlender = {
		id: 'R000003',
		productName: 'Blender B3',
		customerEmail: 'bob@example.com',
		form: 'warranty',
	};

	test('version 1.1 answers with each registration compact by default: at most 10 fields, one item each', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({ returnAll: true }),
			credentials: credentials(),
			typeVersion: 1.1,
		});

		expect(result.items.map((item) => item.json.productName)).toEqual(['Blender B3', 'Toaster T2', 'Kettle K1']);
		expect(result.items[0].json).toEqual(compactBlender);
		expect(result.items.every((item) => Object.keys(item.json).length <= 10)).toBe(true);
		expect(result.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('version 1.1 with Simplify off answers with the registrations as the service lists them, as version 1 does', async () => {
		seed();

		const whole = await runNode({
			parameters: getAll({ returnAll: true, simplify: false }),
			credentials: credentials(),
			typeVersion: 1.1,
		});
		const savedBefore06 = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(whole.items[0].json).toMatchObject({
			id: 'R000003',
			type: 'warranty',
			fieldData: {},
			createdAt: expect.any(String),
		});
		expect(whole.items.map((item) => item.json)).toEqual(savedBefore06.items.map((item) => item.json));
	});

	test('a node of version 1 holding simplify (set by hand) still answers whole: Simplify is not part of version 1', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({ returnAll: true, simplify: true }),
			credentials: credentials(),
		});

		expect(result.items[0].json).toHaveProperty('fieldData');
	});
});
