import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { errorOf, runNode } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

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

/** Map Automatically: a sheet's rows go straight into Create, each row's own columns matched by name. */
const autoMap = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'serialNumber',
	operation: 'create',
	dataMode: 'autoMapInputData',
	options,
});
const items = (...rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const sentSerialNumbers = () =>
	sandbox()
		.requestsTo('POST', '/api/serial_numbers')
		.flatMap((request) => (request.body as Record<string, IDataObject[]>).serialNumbers);

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

		expect(
			sandbox()
				.requestsTo('POST', '/api/serial_numbers')
				.map((request) => request.body),
		).toEqual([
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
		const result = await runNode({
			parameters: createFromSheet(),
			credentials: credentials(),
			items: sheetRows(10_000),
		});

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
		[{ serial: '' }, "The 'Serial Number' is empty [item 1]"],
		[{ tags: { vip: true } }, `The 'Customer Tags' must be a list of texts, but holds "{\\"vip\\":true}" [item 1]`],
		[{ sku: ['A', 'B'] }, `The 'SKU' must be text, not a list: "[\\"A\\",\\"B\\"]" [item 1]`],
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

		expect(result.error?.message).toBe("The 'Batch Size' option must be a whole number from 1 to 1000, not 0 [item 0]");
	});
});

describe('serial number: Create, Map Automatically', () => {
	test('matches Serial Number, SKU and Customer Tags by name and alias', async () => {
		const run = await runNode({
			parameters: autoMap(),
			credentials: credentials(),
			items: items(
				{ 'Serial Number': 'SN-1', SKU: 'KETTLE-K1', Tags: 'kettle, vip' },
				{ serial: 'SN-2', sku: 'K2', Row: 3 },
			),
		});

		expect(run.error).toBeUndefined();
		expect(sentSerialNumbers()).toEqual([
			{ serialNumber: 'SN-1', sku: 'KETTLE-K1', customerTags: 'kettle,vip' },
			{ serialNumber: 'SN-2', sku: 'K2' },
		]);
	});
});
