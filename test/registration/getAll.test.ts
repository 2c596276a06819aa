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

const getAll = (parameters: Record<string, unknown>) => ({
	resource: 'registration',
	operation: 'getAll',
	...parameters,
});

describe('registration: Get Many', () => {
	test('returns one item per registration, each linked to the input item', async () => {
		seed();

		const result = await runNode({ parameters: getAll({ returnAll: true }), credentials: credentials() });

		expect(result.items.map((item) => item.json.productName)).toEqual(['Kettle K1', 'Toaster T2', 'Blender B3']);
		expect(result.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(sandbox().requestsTo('GET', '/api/registrations')[0].query).toEqual({});
	});

	test('sends the filters and the limit as the query, and returns at most the limit', async () => {
		seed();

		const result = await runNode({
			parameters: getAll({
				returnAll: false,
				limit: 1,
				filters: { email: 'ann@example.com', customerId: 7, formSlug: 'warranty' },
			}),
			credentials: credentials(),
		});

		expect(sandbox().requestsTo('GET', '/api/registrations')[0].query).toEqual({
			email: 'ann@example.com',
			customerId: '7',
			formSlug: 'warranty',
			limit: '1',
		});
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
			['Kettle K1', { item: 2 }],
			['Toaster T2', { item: 2 }],
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
