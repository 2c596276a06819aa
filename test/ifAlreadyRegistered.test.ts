import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../engine/workflowRunner';
import { useSandbox } from './harness/sandbox';

/**
 * If Already Registered on Registration → Create: the same sheet imported on a schedule registers nothing twice; the
 * service is asked once per distinct e-mail; a lost answer is resolved by the same lookup.
 */

const { sandbox, credentials } = useSandbox();

const create = (ifExists: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'registration',
	operation: 'create',
	dataMode: 'autoMapInputData',
	options: { ifExists, retryDelay: 1, ...options },
});
const rows = (...json: IDataObject[]): INodeExecutionData[] => json.map((row) => ({ json: row }));
const sheet = (count: number) =>
	rows(
		...Array.from({ length: count }, (_, index) => ({
			Product: `Kettle K${index % 3}`,
			Email: `customer${Math.floor(index / 3)}@example.com`,
			Serials: `KT-${index}`,
		})),
	);
const posts = () => sandbox().requestsTo('POST', '/api/registrations');
const lookups = () => sandbox().requestsTo('GET', '/api/registrations');
const outcomes = (items: INodeExecutionData[]) => items.map((item) => item.json.error ?? item.json.outcome);

describe('If Already Registered', () => {
	test('the same sheet run twice: the second run creates nothing, every item skipped, one lookup per e-mail', async () => {
		const first = await runNode({ parameters: create('skip'), credentials: credentials(), items: sheet(30) });
		expect(outcomes(first.items)).toEqual(Array(30).fill('created'));
		expect(lookups()).toHaveLength(10);
		sandbox().requests.length = 0;

		const second = await runNode({ parameters: create('skip'), credentials: credentials(), items: sheet(30) });

		expect(outcomes(second.items)).toEqual(Array(30).fill('skipped'));
		expect(posts()).toHaveLength(0);
		expect(lookups().map((request) => request.query)).toEqual(
			Array.from({ length: 10 }, (_, index) => ({ email: `customer${index}@example.com` })),
		);
		expect(sandbox().state.registrations.size).toBe(30);
		expect(second.items[4].json).toMatchObject({ outcome: 'skipped', id: 'R000005', productName: 'Kettle K1' });
		expect(second.items.map((item) => item.pairedItem)).toEqual(Array.from({ length: 30 }, (_, item) => ({ item })));
	});

	test('rows repeating inside one run: the first is created, the later ones skipped naming the row they repeat', async () => {
		const run = await runNode({
			parameters: create('skip'),
			credentials: credentials(),
			items: rows(
				{ Product: 'Kettle K1', Email: 'ann@example.com' },
				{ Product: ' kettle   k1 ', Email: 'ANN@example.com' },
				{ Product: 'Toaster', Email: 'ann@example.com' },
				{ Product: 'Kettle K1', Email: 'ann@example.com', Serials: 'KT-9' },
			),
		});

		expect(run.items.map((item) => [item.json.outcome, item.json.repeatsItem, item.json.id])).toEqual([
			['created', undefined, 'R000001'],
			['skipped', 0, 'R000001'],
			['created', undefined, 'R000002'],
			['skipped', 0, 'R000001'],
		]);
		expect(posts()).toHaveLength(1);
		expect(lookups()).toHaveLength(1);
	});

	test.each<[string, IDataObject, IDataObject, string]>([
		['another product of the same customer is created', { productName: 'Toaster' }, { Product: 'Kettle' }, 'created'],
		[
			'no serial number in common is another registration',
			{ productName: 'Kettle', serialNumbers: ['KT-1'] },
			{ Product: 'Kettle', Serials: 'KT-2' },
			'created',
		],
		[
			'a serial number in common is the same one',
			{ productName: 'Kettle', serialNumbers: ['KT-1', 'KT-2'] },
			{ Product: 'Kettle', Serials: 'KT-2, KT-3' },
			'skipped',
		],
		[
			'a row without serial numbers matches by product',
			{ productName: 'Kettle', serialNumbers: ['KT-1'] },
			{ Product: 'Kettle' },
			'skipped',
		],
		[
			'a registration without serial numbers matches by product',
			{ productName: 'Kettle' },
			{ Product: 'KETTLE', Serials: 'KT-1' },
			'skipped',
		],
	])('%s', async (_case, existing, row, outcome) => {
		sandbox().state.createRegistrations([{ customerEmail: 'ann@example.com', ...existing }]);

		const run = await runNode({
			parameters: create('skip'),
			credentials: credentials(),
			items: rows({ Email: 'ann@example.com', ...row }),
		});

		expect(outcomes(run.items)).toEqual([outcome]);
		expect(posts()).toHaveLength(outcome === 'created' ? 1 : 0);
	});

	test('Update sends exactly the changed registrations, and creates the new ones', async () => {
		sandbox().state.createRegistrations([
			{ productName: 'Kettle', customerEmail: 'ann@example.com', customerName: 'Ann Lee', purchaseDate: '2024-03-01' },
			{ productName: 'Toaster', customerEmail: 'ann@example.com', customerName: 'Ann Lee', purchaseDate: '2024-03-01' },
		]);

		const run = await runNode({
			parameters: create('update'),
			credentials: credentials(),
			items: rows(
				{ Product: 'Kettle', Email: 'ann@example.com', Name: 'Ann Lee', 'Purchase Date': '2024-03-01' },
				{ Product: 'Toaster', Email: 'ann@example.com', Name: 'Ann Lee-Smith', 'Purchase Date': '2024-03-01' },
				{ Product: 'Blender', Email: 'ann@example.com' },
			),
		});

		expect(outcomes(run.items)).toEqual(['skipped', 'updated', 'created']);
		const puts = sandbox().requests.filter((request) => request.method === 'PUT');
		expect(puts.map((request) => [request.path, request.body])).toEqual([
			[
				'/api/registrations/R000002',
				{
					registration: {
						productName: 'Toaster',
						customerEmail: 'ann@example.com',
						customerName: 'Ann Lee-Smith',
						purchaseDate: '2024-03-01',
					},
				},
			],
		]);
		expect(run.items[1].json).toMatchObject({ outcome: 'updated', id: 'R000002', customerName: 'Ann Lee-Smith' });
	});

	test.each<[string, unknown, string]>([
		[
			'an answer that is not a list',
			{ message: 'ok' },
			"The service's list of registrations for ann@example.com could not be read (the answer is not a list), so it is not known whether item 0 is registered already; nothing was sent for it",
		],
		[
			'entries without product names',
			[{ id: 'R1' }],
			"The service's list of registrations for ann@example.com could not be read (an entry has no productName), so it is not known whether item 0 is registered already; nothing was sent for it",
		],
		[
			'a text answer',
			'<html>maintenance</html>',
			'The service answered HTTP 200 with something that is not JSON (text/html; charset=utf-8: "maintenance"), after 2 attempts',
		],
	])(
		'a list answer that cannot be read (%s) fails only the items of that e-mail, clearly',
		async (_case, body, message) => {
			sandbox().faultPlan = (request) =>
				request.method === 'GET' && request.query.email === 'ann@example.com' ? { status: 200, body } : undefined;

			const run = await runNode({
				parameters: create('skip', { maxRetries: 1 }),
				credentials: credentials(),
				items: rows({ Product: 'Kettle', Email: 'ann@example.com' }, { Product: 'Kettle', Email: 'bo@example.com' }),
				continueOnFail: true,
			});

			expect(outcomes(run.items)).toEqual([message, 'created']);
			expect(posts().flatMap((request) => (request.body as { registrations: IDataObject[] }).registrations)).toEqual([
				{ productName: 'Kettle', customerEmail: 'bo@example.com' },
			]);
		},
	);

	test('Update of a listed registration without an id fails that item clearly', async () => {
		sandbox().faultPlan = (request) =>
			request.method === 'GET'
				? { status: 200, body: [{ productName: 'Kettle', customerEmail: 'ann@example.com', customerName: 'Old' }] }
				: undefined;

		const run = await runNode({
			parameters: create('update'),
			credentials: credentials(),
			items: rows({ Product: 'Kettle', Email: 'ann@example.com', Name: 'New' }),
			continueOnFail: true,
		});

		expect(outcomes(run.items)).toEqual([
			'The service lists a registration for item 0 but without an id, so it cannot be updated',
		]);
		expect(sandbox().requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
	});

	test('Create Anyway (the default) looks nothing up and adds no outcome', async () => {
		const run = await runNode({ parameters: create('create'), credentials: credentials(), items: sheet(3) });

		expect(lookups()).toHaveLength(0);
		expect(run.items.every((item) => item.json.outcome === undefined && typeof item.json.id === 'string')).toBe(true);
	});
});

describe('a create whose answer is lost, with If Already Registered', () => {
	test.each<[string, IDataObject]>([
		['the service stores it and drops the connection', { resetAfterHandling: true }],
		['the connection drops before the service acts', { resetBeforeHandling: true }],
		['a proxy answers with an HTML page', { status: 502, body: '<html><body>Bad gateway</body></html>' }],
		['the answer stalls past the Timeout', { delayMs: 1500 }],
	])('%s: each registration exists once and every item says created', async (_case, fault) => {
		let faulted = false;
		sandbox().faultPlan = (request) => {
			if (request.method !== 'POST' || faulted) return undefined;
			faulted = true;
			return fault;
		};

		const run = await runNode({
			parameters: create('skip', { timeout: 500 }),
			credentials: credentials(),
			items: sheet(6),
		});

		expect(run.error).toBeUndefined();
		expect(outcomes(run.items)).toEqual(Array(6).fill('created'));
		expect(sandbox().state.registrations.size).toBe(6);
		expect(run.items.map((item) => item.json.productName)).toEqual(sheet(6).map((row) => row.json.Product));
	});

	test('when the lookup after a lost answer fails too, the outcome stays unknown and nothing is sent again', async () => {
		// Two e-mails are looked up first; the create's answer is lost; the lookups after it fail.
		let lookupsSeen = 0;
		sandbox().faultPlan = (request) => {
			if (request.method === 'POST') return { resetAfterHandling: true };
			return (lookupsSeen += 1) > 2 ? { status: 500, body: { message: 'down' } } : undefined;
		};

		const run = await runNode({
			parameters: create('skip', { maxRetries: 0 }),
			credentials: credentials(),
			items: sheet(6),
		});

		expect(run.error?.message).toMatch(
			/^The outcome is unknown: could not reach the service at .*: the connection was reset, so the service may or may not have created the 6 registrations of items 0 to 5/,
		);
		expect(posts()).toHaveLength(1);
	});
});
