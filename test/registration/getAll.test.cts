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
function seedMany(count: number, email = 'many@example.com') {
	sandbox().state.createRegistrations(
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
		expect(pages()).toEqual([{ page: '1', limit: '100' }]);
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

		expect(result.error?.message).toBe('The Customer Email filter of item 1 is not an email address: "ann at example"');
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
				json: { error: 'The Customer Email filter of item 0 is not an email address: "not-an-email"' },
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

		// Then the newest end again through a small window: the real service's pages of 100 were seen to leave it out.
		expect(pages()).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '99' },
			{ page: '3', limit: '98' },
			{ page: '1', limit: '10' },
		]);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Return All over 250 registrations from a service that gives at most 20 a page: its total carries the reading on', async () => {
		seedMany(250);
		sandbox().dialect.cap = 20;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()[0]).toEqual({ page: '1', limit: '100' });
		expect(
			pages()
				.slice(1)
				.every((query) => Number(query.limit) <= 20),
		).toBe(true);
		expect(pages()).toHaveLength(18);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Limit 150 over windows of up to 100: two requests, 150 registrations', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages()).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '99' },
		]);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});

	test('a 429 on the middle window is waited out and the reading resumes: every registration once', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) =>
			request.query.page === '2' && pages().filter((query) => query.page === '2').length === 1
				? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } }
				: undefined;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages().map((query) => query.page)).toEqual(['1', '2', '2', '3', '1']);
		expect(ids(result.items)).toEqual(newestFirst(250));
	});

	test('a registration that arrives while the list is read (newest first) makes none come out twice', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2' && sandbox().state.registrations.size === 250) seedMany(1, 'late@example.com');
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		// The newest end, looked at again at the end, shows the one that arrived.
		expect(ids(result.items)).toEqual(newestFirst(251));
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

	test('pages of 100 that leave out the newest registrations miss nothing: the small window at the end shows them', async () => {
		seedMany(250);
		sandbox().dialect.largePagesMissNewest = 3;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('a list short of its total: all that came are given, and the user is told', async () => {
		sandbox().faultQueue.push({ status: 200, body: { data: [{ id: 1 }, { id: 2 }], total: 5 } });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual([1, 2]);
		expect(result.hints).toEqual([
			'Item 0: the list of registrations may be incomplete: the service said it holds 5 but listed 2: some were added while the list was read, or the service left them out. Run the node again to read the list anew.',
		]);
	});

	test('a service that ignores page: the reading stops at the window that starts over, and the user is told', async () => {
		seedMany(300);
		sandbox().dialect.pages = 'ignored';

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toHaveLength(2);
		expect(result.items).toHaveLength(100);
		expect(result.hints).toEqual([
			'Item 0: the list of registrations may be incomplete: the service ignores page. Run the node again to read the list anew.',
		]);
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

	test('{ data } without a total, 250 registrations: one window more than pages would take, to be sure of the end', async () => {
		seedMany(250);
		sandbox().dialect.shape = 'dataOnly';

		await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '99' },
			{ page: '3', limit: '98' },
			{ page: '1', limit: '10' },
		]);
	});

	test('a service that gives 20 a page whatever is asked: every registration once, and the user is told pages could not overlap', async () => {
		seedMany(250);
		Object.assign(sandbox().dialect, { limit: 'ignored', defaultPageSize: 20 });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([
			'Item 0: the list of registrations may be incomplete: the service gives 20 records a page whatever is asked, so its pages cannot overlap and a record deleted while the list was read could hide another. Run the node again to read the list anew.',
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

		expect(pages()).toEqual([{ page: '1', limit: '100' }]);
		expect(result.items.map((item) => item.json.productName)).toEqual(['Blender B3', 'Toaster T2', 'Kettle K1']);
	});

	test('Return All over 250: a window of 100, then the whole list asked without pages, in one answer', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }, {}]);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Limit 150 over 250: a window of 100, then the list asked with the Limit', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }, { limit: '150' }]);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});

	test('regression: a bare array that limit cuts to 50 whatever is asked is still read whole', async () => {
		seedMany(250);
		Object.assign(sandbox().dialect, { limit: 'capped', cap: 50 });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }, {}]);
		expect(ids(result.items)).toEqual(newestFirst(250));
	});
});
