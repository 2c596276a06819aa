import type { INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../engine/workflowRunner';
import { MAX_ATTEMPTS } from '../nodes/ProductRegistration/actions/serialNumber/getUnregistered.operation';
import { seededRandom } from '../sandbox/random';
import { useSandbox } from './harness/sandbox';

const { sandbox, credentials } = useSandbox();

const errorOf = (result: Awaited<ReturnType<typeof runNode>>) => ({
	message: result.error?.message,
	itemIndex: (result.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex,
});

const sheetRows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({
		json: { serial: `SN-${String(index).padStart(5, '0')}`, sku: 'KETTLE-K1', tags: 'kettle, 2024' },
	}));

const createFromSheet = (extra: Record<string, unknown> = {}) => ({
	resource: 'serialNumber',
	operation: 'create',
	serialNumber: '={{ $json.serial }}',
	sku: '={{ $json.sku }}',
	customerTags: '={{ $json.tags }}',
	...extra,
});

describe('serial number: Create', () => {
	test('sends serialNumber, sku and the tags as comma-separated text, from text or a list', async () => {
		const result = await runNode({
			parameters: createFromSheet(),
			credentials: credentials(),
			items: [
				{ json: { serial: 'SN-1', sku: 'KETTLE-K1', tags: ' kettle ,vip,' } },
				{ json: { serial: 'SN-2', sku: '', tags: ['toaster', 'gift'] } },
				{ json: { serial: 'SN-3', sku: 'BLENDER', tags: '' } },
			],
		});

		expect(sandbox().requestsTo('POST', '/api/serial_numbers').map((request) => request.body)).toEqual([
			{
				serialNumbers: [
					{ serialNumber: 'SN-1', sku: 'KETTLE-K1', customerTags: 'kettle,vip' },
					{ serialNumber: 'SN-2', customerTags: 'toaster,gift' },
					{ serialNumber: 'SN-3', sku: 'BLENDER' },
				],
			},
		]);
		expect(result.items.map((item) => [item.pairedItem, item.json.serialNumber, item.json.registered])).toEqual([
			[{ item: 0 }, 'SN-1', false],
			[{ item: 1 }, 'SN-2', false],
			[{ item: 2 }, 'SN-3', false],
		]);
	});

	test('10,000 serial numbers from a sheet go through in one execution, in ceil(10000 / 100) = 100 requests', async () => {
		const result = await runNode({ parameters: createFromSheet(), credentials: credentials(), items: sheetRows(10_000) });

		expect(result.error).toBeUndefined();
		expect(sandbox().requestsTo('POST', '/api/serial_numbers')).toHaveLength(100);
		expect(sandbox().state.serialNumbers.size).toBe(10_000);
		expect(result.items).toHaveLength(10_000);
		expect(result.items[9_999]).toMatchObject({ json: { serialNumber: 'SN-09999' }, pairedItem: { item: 9_999 } });
	});

	test('a refused batch fails only its own items under Continue On Fail', async () => {
		sandbox().faultQueue.push({ status: 400, body: { message: 'Duplicate serial number SN-00003' } });

		const result = await runNode({
			parameters: createFromSheet({ options: { batchSize: 3 } }),
			credentials: credentials(),
			items: sheetRows(5),
			continueOnFail: true,
		});

		expect(result.items.map((item) => item.json.error ?? item.json.serialNumber)).toEqual([
			'The service answered HTTP 400: Duplicate serial number SN-00003',
			'The service answered HTTP 400: Duplicate serial number SN-00003',
			'The service answered HTTP 400: Duplicate serial number SN-00003',
			'SN-00003',
			'SN-00004',
		]);
	});

	test.each([
		[{ serial: '' }, 'The Serial Number of item 1 is empty'],
		[{ tags: { vip: true } }, 'The Customer Tags of item 1 must be a list of texts, but holds "{\\"vip\\":true}"'],
		[{ sku: ['A', 'B'] }, 'The SKU of item 1 must be text, not a list: "[\\"A\\",\\"B\\"]"'],
	])('bad input %j is refused before anything is sent', async (bad, message) => {
		const items = sheetRows(3);
		items[1].json = { ...items[1].json, ...bad };

		const result = await runNode({ parameters: createFromSheet(), credentials: credentials(), items });

		expect(errorOf(result)).toEqual({ message, itemIndex: 1 });
		expect(sandbox().requests).toHaveLength(0);
	});

	test('a Batch Size outside 1 to 1000 is refused', async () => {
		const result = await runNode({
			parameters: createFromSheet({ options: { batchSize: '={{ 0 }}' } }),
			credentials: credentials(),
			items: sheetRows(1),
		});

		expect(result.error?.message).toBe('The Batch Size option of item 0 must be a whole number from 1 to 1000, not 0');
	});
});

describe('serial number: Get', () => {
	beforeEach(() => {
		sandbox().state.createSerialNumbers([
			{ serialNumber: 'BL/2024 #7', sku: 'BLENDER-B3', customerTags: 'blender' },
			{ serialNumber: '..', sku: 'ODD' },
		]);
	});

	test('a known serial with "/", "#" and spaces is found, URL-encoded as one path segment', async () => {
		const result = await runNode({
			parameters: { resource: 'serialNumber', operation: 'get', serialNumber: 'BL/2024 #7' },
			credentials: credentials(),
		});

		expect(sandbox().requests.map((request) => request.url)).toEqual(['/api/serial_numbers/BL%2F2024%20%237']);
		expect(result.items).toEqual([
			{
				json: {
					serialNumber: 'BL/2024 #7',
					sku: 'BLENDER-B3',
					customerTags: 'blender',
					registered: false,
					registrationId: null,
					found: true,
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('a serial made only of dots is refused: URL parsing would turn it into a step up to another endpoint', async () => {
		const result = await runNode({
			parameters: { resource: 'serialNumber', operation: 'get', serialNumber: '..' },
			credentials: credentials(),
		});

		expect(errorOf(result)).toEqual({
			message: 'The Serial Number of item 0 cannot be sent in a URL path: ".." is read as a folder step',
			itemIndex: 0,
		});
		expect(sandbox().requests).toHaveLength(0);
	});

	test('204 for an unknown serial is an item saying found: false, not an error and not a lost item', async () => {
		const result = await runNode({
			parameters: { resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' },
			credentials: credentials(),
			items: [{ json: { serial: 'NOPE-1' } }, { json: { serial: 'BL/2024 #7' } }],
		});

		expect(result.items.map((item) => [item.pairedItem, item.json.found, item.json.serialNumber])).toEqual([
			[{ item: 0 }, false, 'NOPE-1'],
			[{ item: 1 }, true, 'BL/2024 #7'],
		]);
		expect(result.items[0].json).toEqual({ found: false, serialNumber: 'NOPE-1' });
	});

	test('an empty serial is refused, naming the item', async () => {
		const result = await runNode({
			parameters: { resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' },
			credentials: credentials(),
			items: [{ json: { serial: ' ' } }],
		});

		expect(errorOf(result)).toEqual({ message: 'The Serial Number of item 0 is empty', itemIndex: 0 });
	});
});

describe('serial number: Get Unregistered', () => {
	const getUnregistered = { resource: 'serialNumber', operation: 'getUnregistered' };
	const orders = (count: number): INodeExecutionData[] =>
		Array.from({ length: count }, (_, index) => ({ json: { order: 1000 + index } }));

	test('204 when the pool is empty is an item saying found: false', async () => {
		const result = await runNode({ parameters: getUnregistered, credentials: credentials() });

		expect(result.items).toEqual([
			{ json: { found: false, message: 'The service has no unregistered serial number left' }, pairedItem: { item: 0 } },
		]);
	});

	test('a registered serial is never handed out', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'FREE-1' }, { serialNumber: 'TAKEN-1' }]);
		sandbox().state.createRegistrations([{ productName: 'K', serialNumbers: ['TAKEN-1'] }]);

		const result = await runNode({ parameters: getUnregistered, credentials: credentials(), items: orders(3) });

		expect(result.items.map((item) => item.json.serialNumber ?? item.json.found)).toEqual(['FREE-1', false, false]);
	});

	test('items of one execution never share a serial; the ones left without one are told the pool is used up', async () => {
		sandbox().state.random = seededRandom(7);
		sandbox().state.createSerialNumbers([{ serialNumber: 'P-1' }, { serialNumber: 'P-2' }, { serialNumber: 'P-3' }]);

		// One item at a time with a seeded pick, so the run is the same every time.
		const result = await runNode({
			parameters: { ...getUnregistered, options: { concurrency: 1 } },
			credentials: credentials(),
			items: orders(5),
		});

		const found = result.items.filter((item) => item.json.found === true);
		expect(found.map((item) => item.json.serialNumber).sort()).toEqual(['P-1', 'P-2', 'P-3']);
		const leftWithout = result.items.filter((item) => item.json.found !== true);
		expect(leftWithout).toHaveLength(2);
		for (const item of leftWithout) {
			expect(item.json).toEqual({
				found: false,
				message: `Every serial number the service offered in ${MAX_ATTEMPTS} tries was already given to an earlier item of this execution: the unregistered pool is probably used up. Add serial numbers, or register the ones handed out, and run again.`,
			});
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		// The items left without one asked the bounded number of times and no more.
		expect(sandbox().requestsTo('GET', '/api/serial_number').length).toBeLessThanOrEqual(5 * MAX_ATTEMPTS);
	});

	test('items running concurrently never share a serial either', async () => {
		sandbox().state.createSerialNumbers(Array.from({ length: 100 }, (_, index) => ({ serialNumber: `C-${index}` })));
		sandbox().latencyMs = 5;

		const result = await runNode({
			parameters: { ...getUnregistered, options: { concurrency: 10 } },
			credentials: credentials(),
			items: orders(25),
		});

		const serials = result.items.map((item) => item.json.serialNumber);
		expect(result.items.every((item) => item.json.found === true)).toBe(true);
		expect(new Set(serials).size).toBe(25);
		expect(sandbox().peakInFlight).toBeGreaterThan(1);
	});

	test('a new execution may hand out the same serial again: nothing is remembered between executions', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'ONLY-1' }]);

		const first = await runNode({ parameters: getUnregistered, credentials: credentials() });
		const second = await runNode({ parameters: getUnregistered, credentials: credentials() });

		expect(first.items[0].json.serialNumber).toBe('ONLY-1');
		expect(second.items[0].json.serialNumber).toBe('ONLY-1');
	});
});
