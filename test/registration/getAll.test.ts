import { useSandbox } from '../../harness/sandbox';
import { runNode } from '../../harness/workflowRunner';

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
	test('Return All over 250 registrations in pages of 100: three requests, every registration once', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '100' },
			{ page: '3', limit: '100' },
		]);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Return All over 250 registrations from a service that gives 20 a page whatever is asked: its total carries the reading on', async () => {
		seedMany(250);
		sandbox().pageQuirks.maxPageSize = 20;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toHaveLength(13);
		expect(pages()[12]).toEqual({ page: '13', limit: '100' });
		expect(ids(result.items)).toEqual(newestFirst(250));
	});

	test('Limit 150 over pages of 100: two requests, 150 registrations', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages()).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '100' },
		]);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});

	test('a 429 on the middle page is waited out and the reading resumes: every registration once', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) =>
			request.query.page === '2' && pages().filter((query) => query.page === '2').length === 1
				? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } }
				: undefined;

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages().map((query) => query.page)).toEqual(['1', '2', '2', '3']);
		expect(ids(result.items)).toEqual(newestFirst(250));
	});

	test('a registration that arrives while the list is read (newest first) makes none come out twice, and the user is told', async () => {
		seedMany(250);
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2') seedMany(1, 'late@example.com');
			return undefined;
		};

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(pages().map((query) => query.page)).toEqual(['1', '2', '3', '4']);
		expect(result.hints).toEqual([
			'Item 0: The service said it holds 251 registrations but listed 250: the list changed while it was read, or the service skipped some. Run the node again to read the list anew.',
		]);
	});

	test('fewer registrations than the total said: all that came are given, and the user is told', async () => {
		sandbox().faultQueue.push({ status: 200, body: { data: [{ id: 1 }, { id: 2 }], total: 5 } });
		sandbox().faultQueue.push({ status: 200, body: { data: [], total: 5 } });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual([1, 2]);
		expect(pages()).toHaveLength(2);
		expect(result.hints).toEqual([
			'Item 0: The service said it holds 5 registrations but listed 2: the list changed while it was read, or the service skipped some. Run the node again to read the list anew.',
		]);
	});

	test('the total is also read under meta.total', async () => {
		sandbox().faultQueue.push({ status: 200, body: { data: [{ id: 1 }], meta: { total: 2 } } });
		sandbox().faultQueue.push({ status: 200, body: { data: [{ id: 2 }], meta: { total: 2 } } });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(ids(result.items)).toEqual([1, 2]);
		expect(pages()).toHaveLength(2);
		expect(result.hints).toEqual([]);
	});

	test('a service that ignores page: the reading stops at the page that brings nothing new, and the user is told', async () => {
		const firstPage = { data: Array.from({ length: 100 }, (_, index) => ({ id: index })), total: 300 };
		sandbox().faultPlan = () => ({ status: 200, body: firstPage });

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toHaveLength(2);
		expect(result.items).toHaveLength(100);
		expect(result.hints).toEqual([
			'Item 0: The service said it holds 300 registrations but listed 100: the list changed while it was read, or the service skipped some. Run the node again to read the list anew.',
		]);
	});

	test('a service that never stops answering new records ends in a clear error, not a loop', async () => {
		let next = 0;
		sandbox().faultPlan = () => ({
			status: 200,
			body: { data: Array.from({ length: 100 }, () => ({ id: next++ })) },
		});

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(result.error?.message).toBe(
			"The service's list of registrations did not end after 10,000 pages: the node stopped reading it rather than go on for ever",
		);
		expect(pages()).toHaveLength(10_000);
	}, 60_000);
});

describe('registration: Get Many, the API document reading (a bare array)', () => {
	beforeEach(() => {
		sandbox().listDialect = 'bare';
	});

	test('one request when the list is shorter than a page', async () => {
		seed();

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }]);
		expect(result.items.map((item) => item.json.productName)).toEqual(['Blender B3', 'Toaster T2', 'Kettle K1']);
	});

	test('Return All over 250: a full page, then the same page again (no pages), then the whole list asked without them', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }, { page: '2', limit: '100' }, {}]);
		expect(ids(result.items)).toEqual(newestFirst(250));
		expect(result.hints).toEqual([]);
	});

	test('Limit 150 over 250: the whole list is asked with the Limit', async () => {
		seedMany(250);

		const result = await runNode({ parameters: getAll({ returnAll: false, limit: 150 }), credentials: credentials() });

		expect(pages()).toEqual([{ page: '1', limit: '100' }, { page: '2', limit: '100' }, { limit: '150' }]);
		expect(ids(result.items)).toEqual(newestFirst(250).slice(0, 150));
	});
});
