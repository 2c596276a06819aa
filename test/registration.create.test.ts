import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../engine/workflowRunner';
import { useSandbox } from './harness/sandbox';

const { sandbox, credentials } = useSandbox();

/** Create mapped from the input item's columns, as a sheet-fed workflow would set it up. */
const createFromColumns = (extra: Record<string, unknown> = {}) => ({
	resource: 'registration',
	operation: 'create',
	productName: '={{ $json.product }}',
	customerEmail: '={{ $json.email }}',
	...extra,
});

const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({
		json: { product: `Kettle K${index}`, email: `customer${index}@example.com` },
	}));

const sentRegistrations = () =>
	sandbox()
		.requestsTo('POST', '/api/registrations')
		.map((request) => (request.body as { registrations: Array<Record<string, unknown>> }).registrations);

describe('registration: Create', () => {
	test('sends every field the API takes, with the customer State key and extra fields at the top level', async () => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: 'ann.lee@example.com',
				customerName: 'Ann Lee',
				serialNumbers: 'KT-1, KT-2 ,, KT-3',
				purchaseDate: '2024-03-01',
				additionalFields: {
					formSlug: 'extended-warranty',
					customer: {
						details: {
							id: 42,
							firstName: 'Ann',
							lastName: 'Lee',
							address1: '1 Main St',
							address2: '',
							city: 'Albany',
							state: 'NY',
							country: 'US',
							postCode: '12207',
							phone: '+1 518 555 0100',
						},
					},
					extraFields: { field: [{ name: 'greetings', value: 'hi' }] },
					extraFieldsJson: '{ "color": "red", "giftWrap": true }',
				},
			},
			credentials: credentials(),
		});

		expect(result.error).toBeUndefined();
		expect(sentRegistrations()).toEqual([
			[
				{
					productName: 'Kettle K1',
					customerEmail: 'ann.lee@example.com',
					customerName: 'Ann Lee',
					serialNumbers: ['KT-1', 'KT-2', 'KT-3'],
					purchaseDate: '2024-03-01',
					type: 'extended-warranty',
					customer: {
						id: 42,
						firstName: 'Ann',
						lastName: 'Lee',
						address1: '1 Main St',
						city: 'Albany',
						State: 'NY',
						country: 'US',
						postCode: '12207',
						phone: '+1 518 555 0100',
					},
					greetings: 'hi',
					color: 'red',
					giftWrap: true,
				},
			],
		]);
		expect(result.items).toHaveLength(1);
		expect(result.items[0]).toMatchObject({
			json: { id: 'R000001', productName: 'Kettle K1', formSlug: 'extended-warranty' },
			pairedItem: { item: 0 },
		});
	});

	test('accepts what sheets and CRMs hold: serial arrays, timestamps, Luxon and JS dates; blanks are left out', async () => {
		await runNode({
			parameters: createFromColumns({
				customerName: '={{ $json.name }}',
				serialNumbers: '={{ $json.serials }}',
				purchaseDate: '={{ $json.bought }}',
			}),
			credentials: credentials(),
			items: [
				{ json: { product: 'A', email: 'a@example.com', name: '', serials: ['S-1', ' S-2 '], bought: '2024-03-01T23:30:00-05:00' } },
				{ json: { product: 'B', email: 'b@example.com', name: '  ', serials: 'S-3;S-4', bought: '2024-02-29' } },
				{ json: { product: 'C', email: 'c@example.com', serials: [], bought: '' } },
			],
		});
		await runNode({
			parameters: createFromColumns({ purchaseDate: "={{ DateTime.fromISO('2024-12-31T22:00:00', { zone: 'America/New_York' }) }}" }),
			credentials: credentials(),
			items: rows(1),
		});
		await runNode({
			parameters: createFromColumns({ purchaseDate: "={{ new Date('2024-07-04T00:00:00Z') }}" }),
			credentials: credentials(),
			items: rows(1),
		});

		expect(sentRegistrations()).toEqual([
			[
				{ productName: 'A', customerEmail: 'a@example.com', serialNumbers: ['S-1', 'S-2'], purchaseDate: '2024-03-01' },
				{ productName: 'B', customerEmail: 'b@example.com', serialNumbers: ['S-3', 'S-4'], purchaseDate: '2024-02-29' },
				{ productName: 'C', customerEmail: 'c@example.com' },
			],
			[{ productName: 'Kettle K0', customerEmail: 'customer0@example.com', purchaseDate: '2024-12-31' }],
			[{ productName: 'Kettle K0', customerEmail: 'customer0@example.com', purchaseDate: '2024-07-04' }],
		]);
	});

	test('registering a known serial number marks it registered', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'KT-9' }]);

		await runNode({ parameters: createFromColumns({ serialNumbers: 'KT-9' }), credentials: credentials(), items: rows(1) });

		expect(sandbox().state.findSerial('KT-9')).toMatchObject({ registered: true, registrationId: 'R000001' });
	});

	test('sends items in batches of Batch Size, each output linked to its own input', async () => {
		const result = await runNode({
			parameters: createFromColumns({ options: { batchSize: 40 } }),
			credentials: credentials(),
			items: rows(100),
		});

		expect(sentRegistrations().map((batch) => batch.length)).toEqual([40, 40, 20]);
		expect(result.items).toHaveLength(100);
		result.items.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json).toMatchObject({ productName: `Kettle K${index}`, customerEmail: `customer${index}@example.com` });
		});
	});

	test('1,000 items make ceil(1000 / 100) = 10 requests with the default batch size', async () => {
		const result = await runNode({ parameters: createFromColumns(), credentials: credentials(), items: rows(1000) });

		expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(10);
		expect(sandbox().state.registrations.size).toBe(1000);
		expect(result.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			Array.from({ length: 1000 }, (_, index) => index),
		);
	});

	test('a refused batch fails only its own items under Continue On Fail; the other batches go through', async () => {
		sandbox().faultQueue.push({}, { status: 422, body: { message: 'Form "retired" is closed' } });

		const result = await runNode({
			parameters: createFromColumns({ options: { batchSize: 2 } }),
			credentials: credentials(),
			items: rows(5),
			continueOnFail: true,
		});

		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.productName])).toEqual([
			[{ item: 0 }, 'Kettle K0'],
			[{ item: 1 }, 'Kettle K1'],
			[{ item: 2 }, 'The service answered HTTP 422: Form "retired" is closed'],
			[{ item: 3 }, 'The service answered HTTP 422: Form "retired" is closed'],
			[{ item: 4 }, 'Kettle K4'],
		]);
		expect(sandbox().state.registrations.size).toBe(3);
	});

	test('without Continue On Fail a refused batch fails the run with the service message and status, and no batch starts after it', async () => {
		sandbox().faultQueue.push({}, { status: 422, body: { message: 'Form "retired" is closed' } });

		const result = await runNode({
			parameters: createFromColumns({ options: { batchSize: 2, concurrency: 1 } }),
			credentials: credentials(),
			items: rows(5),
		});

		expect(result.error?.message).toBe('The service answered HTTP 422: Form "retired" is closed');
		expect((result.error as { httpCode?: string }).httpCode).toBe('422');
		expect((result.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(2);
		expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(2);
	});

	test('batches go out up to Concurrency (default 4) at once, and the output keeps the input order', async () => {
		sandbox().latencyMs = 50;

		const result = await runNode({ parameters: createFromColumns({ options: { batchSize: 10 } }), credentials: credentials(), items: rows(100) });

		expect(result.error).toBeUndefined();
		expect(sandbox().peakInFlight).toBe(4);
		expect(result.items.map((item) => [item.pairedItem, item.json.productName])).toEqual(
			rows(100).map((row, index) => [{ item: index }, row.json.product]),
		);
	});

	test.each([
		[{ email: 'ann.lee(at)example.com' }, 'The Customer Email of item 2 is not an email address: "ann.lee(at)example.com"'],
		[{ email: '' }, 'The Customer Email of item 2 is empty'],
		[{ bought: '03/01/2024' }, 'The Purchase Date of item 2 is not a date: "03/01/2024". Use YYYY-MM-DD, e.g. 2024-03-01'],
		[{ bought: '2024-02-30' }, 'The Purchase Date of item 2 is not a date: "2024-02-30". Use YYYY-MM-DD, e.g. 2024-03-01'],
		[{ extra: '[1, 2]' }, 'The Extra Fields (JSON) of item 2 must be a JSON object like {"greetings": "hi"}, not "[1, 2]"'],
		[{ extra: '{ "greetings": ' }, 'The Extra Fields (JSON) of item 2 is not valid JSON: "{ \\"greetings\\": "'],
		[{ extra: '{ "type": "other-form" }' }, 'The extra field "type" of item 2 has the name of a standard field; set it with its own parameter instead'],
		[{ serials: [{ sn: 1 }] }, 'The Serial Numbers of item 2 must be a list of texts, but holds "{\\"sn\\":1}"'],
	])('bad input %j is refused before anything is sent', async (bad: IDataObject, message) => {
		const items: INodeExecutionData[] = rows(4).map((item) => ({
			json: { ...item.json, bought: '2024-01-01', extra: '', serials: '' },
		}));
		items[2].json = { ...items[2].json, ...bad };

		const result = await runNode({
			parameters: createFromColumns({
				purchaseDate: '={{ $json.bought }}',
				serialNumbers: '={{ $json.serials }}',
				additionalFields: { extraFieldsJson: '={{ $json.extra }}' },
			}),
			credentials: credentials(),
			items,
		});

		expect(result.error?.message).toBe(message);
		expect((result.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(2);
		expect(sandbox().requests).toHaveLength(0);
	});

	test('under Continue On Fail a bad item becomes an error item and the others are created in one batch', async () => {
		const items = rows(3);
		items[1].json.email = 'not an email';

		const result = await runNode({ parameters: createFromColumns(), credentials: credentials(), items, continueOnFail: true });

		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.id])).toEqual([
			[{ item: 0 }, 'R000001'],
			[{ item: 1 }, 'The Customer Email of item 1 is not an email address: "not an email"'],
			[{ item: 2 }, 'R000002'],
		]);
		expect(sentRegistrations().map((batch) => batch.length)).toEqual([2]);
	});

	test('when the service does not list the created registrations, each item reports what was sent', async () => {
		sandbox().faultQueue.push({ status: 200, body: { ok: true } });

		const result = await runNode({ parameters: createFromColumns(), credentials: credentials(), items: rows(2) });

		expect(result.items).toEqual([
			{ json: { productName: 'Kettle K0', customerEmail: 'customer0@example.com' }, pairedItem: { item: 0 } },
			{ json: { productName: 'Kettle K1', customerEmail: 'customer1@example.com' }, pairedItem: { item: 1 } },
		]);
	});
});
