import { useSandbox } from '../../harness/sandbox.cts';
import { errorOf, runNode } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

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
			message: `The 'Serial Number' cannot be sent in a URL path: ".." is read as a folder step [item 0]`,
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

		expect(errorOf(result)).toEqual({ message: "The 'Serial Number' is empty [item 0]", itemIndex: 0 });
	});
});
