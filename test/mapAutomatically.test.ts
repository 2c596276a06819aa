import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../engine/workflowRunner';
import { useSandbox } from './harness/sandbox';

/**
 * Map Automatically: a sheet's rows go straight into Create, each row's own columns matched to the fields by name,
 * the way spreadsheet users name them; the same converters and per-item errors as fields set below.
 */

const { sandbox, credentials } = useSandbox();

const autoMap = (resource: string, options: INodeParameters = {}): INodeParameters => ({ resource, operation: 'create', dataMode: 'autoMapInputData', options });
const items = (...rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));
const sent = (path: string, key: string) =>
	sandbox()
		.requestsTo('POST', path)
		.flatMap((request) => (request.body as Record<string, IDataObject[]>)[key]);

describe('registration: Create, Map Automatically', () => {
	test('matches columns by name whatever their case, spaces, underscores or dashes, with the documented aliases', async () => {
		const run = await runNode({
			parameters: autoMap('registration'),
			credentials: credentials(),
			items: items(
				{
					'Product Name': 'Kettle K1',
					Email: 'ann.lee@example.com',
					Name: 'Ann Lee',
					Serials: 'KT-1, KT-2',
					'Purchase Date': '2024-03-01',
					Form: 'extended-warranty',
					'Customer ID': '1001',
					'First Name': 'Ann',
					City: 'Albany',
					State: 'NY',
					Zip: '12207',
					id: 'row-7',
				},
				{
					product_name: 'Toaster T2',
					'customer-email': 'bo.chen@example.com',
					'serial number': 'TS-1',
					customer: { id: 1002, last_name: 'Chen', COUNTRY: 'US' },
				},
			),
		});

		expect(run.error).toBeUndefined();
		expect(sent('/api/registrations', 'registrations')).toEqual([
			{
				productName: 'Kettle K1',
				customerEmail: 'ann.lee@example.com',
				customerName: 'Ann Lee',
				serialNumbers: ['KT-1', 'KT-2'],
				purchaseDate: '2024-03-01',
				type: 'extended-warranty',
				customer: { id: 1001, firstName: 'Ann', city: 'Albany', State: 'NY', postCode: '12207' },
			},
			{
				productName: 'Toaster T2',
				customerEmail: 'bo.chen@example.com',
				serialNumbers: ['TS-1'],
				customer: { id: 1002, lastName: 'Chen', country: 'US' },
			},
		]);
		expect(run.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['R000001', { item: 0 }],
			['R000002', { item: 1 }],
		]);
	});

	test('Unmatched Fields: Send as Extra Form Fields sends the other columns as extra form fields', async () => {
		const run = await runNode({
			parameters: autoMap('registration', { unmatchedFields: 'sendAsExtraFields' }),
			credentials: credentials(),
			items: items({ Product: 'Kettle K1', Email: 'ann@example.com', greetings: 'hi', 'Gift Wrap': true }),
		});

		expect(run.error).toBeUndefined();
		expect(sent('/api/registrations', 'registrations')).toEqual([
			{ productName: 'Kettle K1', customerEmail: 'ann@example.com', greetings: 'hi', 'Gift Wrap': true },
		]);
	});

	test('a column named like the token field is refused, never sent', async () => {
		const run = await runNode({
			parameters: autoMap('registration', { unmatchedFields: 'sendAsExtraFields' }),
			credentials: credentials(),
			items: items({ Product: 'Kettle K1', Email: 'ann@example.com', accessToken: 'someone-elses' }),
		});

		expect(run.error?.message).toBe(
			'The extra field "accessToken" of item 0 has the name of a standard field; set it with its own parameter instead',
		);
		expect(sandbox().requests).toHaveLength(0);
	});

	test.each<[string, IDataObject, string]>([
		[
			'a missing required column names the names it looks for',
			{ Email: 'ann@example.com' },
			'Item 1 has no field for the Product Name: Map Automatically looks for a field named "Product Name", "product_name", "productName" or "Product"',
		],
		[
			'two columns for one field name both',
			{ Product: 'Kettle', Email: 'ann@example.com', customer_email: 'bo@example.com' },
			'Item 1 has two fields for the Customer Email, "Email" and "customer_email": Map Automatically cannot tell which to send. Rename or remove one.',
		],
		['a bad value gets the same error as a mapped one', { Product: 'Kettle', Email: 'ann at example' }, 'The Customer Email of item 1 is not an email address: "ann at example"'],
	])('%s, under Continue On Fail only for its item', async (_case, row, message) => {
		const run = await runNode({
			parameters: autoMap('registration'),
			credentials: credentials(),
			items: items({ Product: 'Kettle K1', Email: 'ann@example.com' }, row),
			continueOnFail: true,
		});

		expect(run.items.map((item) => item.json.error ?? item.json.productName)).toEqual(['Kettle K1', message]);
		expect(run.items[1].pairedItem).toEqual({ item: 1 });
	});
});

describe('serial number: Create, Map Automatically', () => {
	test('matches Serial Number, SKU and Customer Tags by name and alias', async () => {
		const run = await runNode({
			parameters: autoMap('serialNumber'),
			credentials: credentials(),
			items: items({ 'Serial Number': 'SN-1', SKU: 'KETTLE-K1', Tags: 'kettle, vip' }, { serial: 'SN-2', sku: 'K2', Row: 3 }),
		});

		expect(run.error).toBeUndefined();
		expect(sent('/api/serial_numbers', 'serialNumbers')).toEqual([
			{ serialNumber: 'SN-1', sku: 'KETTLE-K1', customerTags: 'kettle,vip' },
			{ serialNumber: 'SN-2', sku: 'K2' },
		]);
	});
});
