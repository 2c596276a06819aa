import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { PRODUCT_REGISTRATION_TOOL_TYPE, runNode, runWorkflow } from '../../harness/workflowRunner.cts';
import { API_PAGE, REAL_SERVICE } from '../../sandbox/lists.cts';
import { createIfExists, items, outcomes, sheet } from './createInput.cts';

/**
 * Registration → Create, If Already Registered: the same sheet imported on a schedule registers nothing twice; the
 * service is asked once per distinct e-mail; a lost answer is resolved by the same lookup. (With files: create.test.cts.)
 */

const { sandbox, credentials } = useSandbox();

const posts = () => sandbox().requestsTo('POST', '/api/registrations');
const lookups = () => sandbox().requestsTo('GET', '/api/registrations');

describe('If Already Registered', () => {
	test('the same sheet run twice: the second run creates nothing, every item skipped, after one listing', async () => {
		const first = await runNode({ parameters: createIfExists('skip'), credentials: credentials(), items: sheet(30) });
		expect(outcomes(first.items)).toEqual(Array(30).fill('created'));
		expect(lookups()).toHaveLength(1);
		sandbox().requests.length = 0;

		const second = await runNode({ parameters: createIfExists('skip'), credentials: credentials(), items: sheet(30) });

		expect(outcomes(second.items)).toEqual(Array(30).fill('skipped'));
		expect(posts()).toHaveLength(0);
		expect(lookups().map((request) => request.query.email)).toEqual([undefined]);
		expect(sandbox().state.registrations.size).toBe(30);
		expect(second.items[4].json).toMatchObject({ outcome: 'skipped', id: 'R000005', productName: 'Kettle K1' });
		expect(second.items.map((item) => item.pairedItem)).toEqual(Array.from({ length: 30 }, (_, item) => ({ item })));
	});

	test('few customers in a large service: the first page of the listing shows lookups are cheaper, so each e-mail is looked up', async () => {
		sandbox().state.createRegistrations(
			Array.from({ length: 1000 }, (_, index) => ({ productName: 'Old', customerEmail: `old${index}@example.com` })),
		);

		const run = await runNode({ parameters: createIfExists('skip'), credentials: credentials(), items: sheet(9) });

		expect(outcomes(run.items)).toEqual(Array(9).fill('created'));
		// The listing's first page, then one lookup a customer.
		expect(lookups().map((request) => request.query.email)).toEqual([
			undefined,
			...[0, 1, 2].map((index) => `customer${index}@example.com`),
		]);
	});

	test('the first page, read for its total, settles the customers whose every row it shows: only the others are looked up', async () => {
		sandbox().state.createRegistrations([
			...Array.from({ length: 1000 }, (_, index) => ({ productName: 'Old', customerEmail: `old${index}@example.com` })),
			{ productName: 'Kettle', customerEmail: 'ann@example.com' },
		]);

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items(
				{ Product: 'Kettle', Email: 'ann@example.com' },
				{ Product: 'Kettle', Email: 'bo@example.com' },
				{ Product: 'Kettle', Email: 'cy@example.com' },
			),
		});

		expect(outcomes(run.items)).toEqual(['skipped', 'created', 'created']);
		expect(lookups().map((request) => request.query.email ?? `page ${request.query.page}`)).toEqual([
			'page 1',
			'bo@example.com',
			'cy@example.com',
		]);
	});

	test('one customer is looked up by e-mail at once, without a listing', async () => {
		const run = await runNode({ parameters: createIfExists('skip'), credentials: credentials(), items: sheet(2) });

		expect(outcomes(run.items)).toEqual(['created', 'created']);
		expect(lookups().map((request) => request.query.email)).toEqual(['customer0@example.com']);
	});

	test('rows naming a form are matched within that form: its registrations are listed, and one in another form does not count', async () => {
		sandbox().state.createRegistrations([
			{ productName: 'Kettle', customerEmail: 'ann@example.com', type: 'warranty-claim' },
			{ productName: 'Kettle', customerEmail: 'bo@example.com', type: 'extended-warranty' },
		]);

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items(
				{ Product: 'Kettle', Email: 'ann@example.com', Form: 'extended-warranty' },
				{ Product: 'Kettle', Email: 'bo@example.com', Form: 'extended-warranty' },
			),
		});

		expect(outcomes(run.items)).toEqual(['created', 'skipped']);
		expect(lookups().map((request) => [request.query.formSlug, request.query.email])).toEqual([
			['extended-warranty', undefined],
		]);
	});

	test('a customer of a form looked up by e-mail is looked up in that form', async () => {
		sandbox().state.createRegistrations([{ productName: 'Kettle', customerEmail: 'ann@example.com' }]);

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com', Form: 'extended-warranty' }),
		});

		expect(outcomes(run.items)).toEqual(['created']);
		expect(lookups().map((request) => [request.query.formSlug, request.query.email])).toEqual([
			['extended-warranty', 'ann@example.com'],
		]);
	});

	test('a listing short of its total is trusted only for the rows it matches: the others are looked up by e-mail', async () => {
		sandbox().state.createRegistrations([{ productName: 'Kettle', customerEmail: 'ann@example.com' }]);
		sandbox().faultPlan = (request) =>
			request.method === 'GET' && request.query.email === undefined
				? {
						status: 200,
						body: { data: [{ id: 'R000001', productName: 'Kettle', customerEmail: 'ann@example.com' }], total: 2 },
					}
				: undefined;

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com' }, { Product: 'Toaster', Email: 'bo@example.com' }),
		});

		expect(outcomes(run.items)).toEqual(['skipped', 'created']);
		// The listing's page 1 (read again small: it held fewer than its total), then only bo looked up.
		expect(lookups().filter((request) => request.query.email === undefined).length).toBeLessThanOrEqual(2);
		expect(lookups().flatMap((request) => request.query.email ?? [])).toEqual(['bo@example.com']);
	});

	test('a listing whose registrations do not say their e-mail cannot say whose they are: each e-mail is looked up', async () => {
		sandbox().faultPlan = (request) =>
			request.method === 'GET' && request.query.email === undefined
				? { status: 200, body: { data: [{ id: 'R9', productName: 'Kettle' }], total: 1 } }
				: undefined;

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com' }, { Product: 'Kettle', Email: 'bo@example.com' }),
		});

		expect(outcomes(run.items)).toEqual(['created', 'created']);
		expect(lookups().map((request) => request.query.email)).toEqual([undefined, 'ann@example.com', 'bo@example.com']);
	});

	test('rows repeating inside one run: the first is created, the later ones skipped naming the row they repeat', async () => {
		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items(
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
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Email: 'ann@example.com', ...row }),
		});

		expect(outcomes(run.items)).toEqual([outcome]);
		expect(posts()).toHaveLength(outcome === 'created' ? 1 : 0);
	});

	test("Skip finds a registration on the third page of the customer's list (newest first) and creates nothing", async () => {
		sandbox().state.createRegistrations([
			{ productName: 'Kettle', customerEmail: 'ann@example.com', serialNumbers: ['KT-1'] },
			...Array.from({ length: 249 }, (_, index) => ({
				productName: `Filter ${index}`,
				customerEmail: 'ann@example.com',
			})),
		]);

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com', Serials: 'KT-1' }),
		});

		expect(outcomes(run.items)).toEqual(['skipped']);
		expect(run.items[0].json).toMatchObject({ id: 'R000001', productName: 'Kettle' });
		expect(lookups().length).toBeLessThanOrEqual(4);
		expect(posts()).toHaveLength(0);
	});

	test('Update compares extra fields with those the service lists under fieldData: an unchanged one sends nothing', async () => {
		sandbox().state.createRegistrations([
			{ productName: 'Kettle', customerEmail: 'ann@example.com', greetings: 'hi' },
			{ productName: 'Toaster', customerEmail: 'ann@example.com', greetings: 'hi' },
		]);

		const run = await runNode({
			parameters: createIfExists('update', { unmatchedFields: 'sendAsExtraFields' }),
			credentials: credentials(),
			items: items(
				{ Product: 'Kettle', Email: 'ann@example.com', greetings: 'hi' },
				{ Product: 'Toaster', Email: 'ann@example.com', greetings: 'hello' },
			),
		});

		expect(outcomes(run.items)).toEqual(['skipped', 'updated']);
		const puts = sandbox().requests.filter((request) => request.method === 'PUT');
		expect(puts.map((request) => [request.path, request.body])).toEqual([
			[
				'/api/registrations/R000002',
				{ registration: { productName: 'Toaster', customerEmail: 'ann@example.com', fields: { greetings: 'hello' } } },
			],
		]);
	});

	test('a customer list that comes back short of its total: a row found in it is skipped, a row not found fails clearly and is not created', async () => {
		sandbox().state.createRegistrations([{ productName: 'Kettle', customerEmail: 'ann@example.com' }]);
		sandbox().faultPlan = (request) =>
			request.method === 'GET'
				? { status: 200, body: { data: [{ id: 'R000001', productName: 'Kettle' }], total: 2 } }
				: undefined;

		const run = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com' }, { Product: 'Toaster', Email: 'ann@example.com' }),
			continueOnFail: true,
		});

		expect(outcomes(run.items)).toEqual([
			'skipped',
			"The service's list of registrations for ann@example.com may be incomplete (the service said it holds 2 but listed 1: it left some out), so it is not known whether the item is registered already; nothing was sent for it. Run it again [item 1]",
		]);
		expect(posts()).toHaveLength(0);
	});

	test('Update sends exactly the changed registrations, and creates the new ones', async () => {
		sandbox().state.createRegistrations([
			{ productName: 'Kettle', customerEmail: 'ann@example.com', customerName: 'Ann Lee', purchaseDate: '2024-03-01' },
			{ productName: 'Toaster', customerEmail: 'ann@example.com', customerName: 'Ann Lee', purchaseDate: '2024-03-01' },
		]);

		const run = await runNode({
			parameters: createIfExists('update'),
			credentials: credentials(),
			items: items(
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
			"The service's list of registrations for ann@example.com could not be read (the answer is not a list), so it is not known whether the item is registered already; nothing was sent for it [item 0]",
		],
		[
			'entries without product names',
			[{ id: 'R1' }],
			"The service's list of registrations for ann@example.com could not be read (an entry has no productName), so it is not known whether the item is registered already; nothing was sent for it [item 0]",
		],
		[
			'a text answer',
			'<html>maintenance</html>',
			'The service answered HTTP 200 with something that is not JSON (text/html; charset=utf-8: "maintenance"), after 2 attempts',
		],
	])(
		'a list answer that cannot be read (%s) fails only the items of that e-mail, clearly',
		async (_case, body, message) => {
			// The listing of all registrations answers the same, so Ann's and Bo's rows are looked up by e-mail.
			sandbox().faultPlan = (request) =>
				request.method === 'GET' && request.query.email !== 'bo@example.com' ? { status: 200, body } : undefined;

			const run = await runNode({
				parameters: createIfExists('skip', { maxRetries: 1 }),
				credentials: credentials(),
				items: items({ Product: 'Kettle', Email: 'ann@example.com' }, { Product: 'Kettle', Email: 'bo@example.com' }),
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
			parameters: createIfExists('update'),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com', Name: 'New' }),
			continueOnFail: true,
		});

		expect(outcomes(run.items)).toEqual([
			'The service lists a registration for the item but without an id, so it cannot be updated [item 0]',
		]);
		expect(sandbox().requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
	});

	test("an item whose own Retries, Retry Wait or Timeout cannot be read fails alone: the others' customers are still looked up and created", async () => {
		const parameters = createIfExists('skip', { timeout: '={{ $json.Timeout }}' });
		const rows = items(
			{ Product: 'Kettle K1', Email: 'ann@example.com', Timeout: 'soon' },
			{ Product: 'Kettle K1', Email: 'bo@example.com', Timeout: 5000 },
			{ Product: 'Toaster T2', Email: 'cy@example.com', Timeout: 5000 },
		);

		const run = await runNode({ parameters, credentials: credentials(), items: rows, continueOnFail: true });

		expect(outcomes(run.items)).toEqual([
			`The 'Timeout' option must be a whole number from 1 to 3600000, not "soon" [item 0]`,
			'created',
			'created',
		]);
		expect(sandbox().state.registrations.size).toBe(2);
	});

	test.each(['compact', 'whole'])(
		'as a tool (answer %s), under Continue On Fail, a row repeating a refused row says the refusal too',
		async (toolAnswer) => {
			sandbox().faultPlan = (request) =>
				request.method === 'POST' ? { status: 422, body: { message: 'Form "retired" is closed' } } : undefined;
			const run = await runWorkflow({
				workflow: {
					nodes: [
						{
							id: 'tool',
							name: 'Register',
							type: PRODUCT_REGISTRATION_TOOL_TYPE,
							typeVersion: 1,
							position: [0, 0],
							parameters: {
								resource: 'registration',
								operation: 'create',
								productName: 'Kettle K1',
								customerEmail: 'ann@example.com',
								toolAnswer,
								options: { ifExists: 'skip', retryDelay: 1 },
							},
							credentials: { productRegistrationApi: { id: 'local-credential', name: 'Product Registration account' } },
							onError: 'continueRegularOutput',
						},
					],
					connections: {},
				},
				credentials: credentials(),
				startNode: 'Register',
				items: [{ json: { row: 1 } }, { json: { row: 2 } }],
			});

			const output = run.outputs.Register as INodeExecutionData[];
			expect(output.map((item) => item.json.error)).toEqual([
				expect.stringContaining('Form "retired" is closed'),
				expect.stringContaining('Form "retired" is closed'),
			]);
			expect(posts()).toHaveLength(1);
		},
	);

	test('Create Anyway (the default) looks nothing up and adds no outcome', async () => {
		const run = await runNode({ parameters: createIfExists('create'), credentials: credentials(), items: sheet(3) });

		expect(lookups()).toHaveLength(0);
		expect(run.items.every((item) => item.json.outcome === undefined && typeof item.json.id === 'string')).toBe(true);
	});
});

describe('If Already Registered in the dialects the API page leaves open', () => {
	/** A sheet of `rows` rows for `customers` customers, a customer's rows together (five products each). */
	const customerSheet = (rows: number, customers: number) =>
		items(
			...Array.from({ length: rows }, (_, index) => ({
				Product: `Kettle K${index % 5}`,
				Email: `customer${Math.floor(index / (rows / customers))}@example.com`,
			})),
		);
	/** Registrations held twice: the same e-mail, product and form. */
	const heldTwice = () => {
		const keys = [...sandbox().state.registrations.values()].map((registration) =>
			[registration.customerEmail, registration.productName, registration.formSlug].join('|'),
		);
		return keys.length - new Set(keys).size;
	};

	test.each([
		['the API page reading: a bare array that limit cuts, no pages, no total', API_PAGE],
		['a bare array that limit cuts to 50 whatever is asked', { ...API_PAGE, limit: 'capped', cap: 50 }],
		['{ data } without a total', { ...REAL_SERVICE, shape: 'dataOnly' }],
		['{ data } without a total, at most 50 a page', { ...REAL_SERVICE, shape: 'dataOnly', cap: 50 }],
		['{ data, meta: { total } }, the oldest first', { ...REAL_SERVICE, shape: 'dataMetaTotal', order: 'oldestFirst' }],
		['pages ignored, with a total', { ...REAL_SERVICE, pages: 'ignored' }],
		['limit ignored: 20 a page', { ...REAL_SERVICE, limit: 'ignored' }],
		['in no order, ids under regId as numbers', { ...REAL_SERVICE, order: 'none', idKey: 'regId', numericIds: true }],
	] as const)(
		'regression, %s: a 1,000-row sheet of 200 customers imported again with Skip creates nothing',
		async (_, dialect) => {
			sandbox().dialect = { ...dialect };
			const first = await runNode({
				parameters: createIfExists('skip'),
				credentials: credentials(),
				items: customerSheet(1000, 200),
			});
			expect(outcomes(first.items).filter((outcome) => outcome !== 'created')).toEqual([]);

			const again = await runNode({
				parameters: createIfExists('skip'),
				credentials: credentials(),
				items: customerSheet(1000, 200),
			});

			expect(outcomes(again.items).filter((outcome) => outcome !== 'skipped')).toEqual([]);
			expect(sandbox().state.registrations.size).toBe(1000);
			expect(heldTwice()).toBe(0);
		},
	);

	test('registrations deleted while the listing is read hide none of the others: nothing is created twice', async () => {
		await runNode({
			parameters: createIfExists('create'),
			credentials: credentials(),
			items: customerSheet(1000, 200),
		});
		const deleted = [...sandbox().state.registrations.keys()].slice(-5);
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2' && sandbox().state.registrations.has(deleted[0]))
				for (const id of deleted) sandbox().state.deleteRegistration(id);
			return undefined;
		};

		const again = await runNode({
			parameters: createIfExists('skip'),
			credentials: credentials(),
			items: customerSheet(1000, 200),
		});

		// The five were read before they were deleted; without windows that overlap, five others would have been
		// skipped over by the listing, taken as absent, and created a second time.
		expect(outcomes(again.items).filter((outcome) => outcome !== 'skipped')).toEqual([]);
		expect(sandbox().state.registrations.size).toBe(995);
		expect(heldTwice()).toBe(0);
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
			parameters: createIfExists('skip', { timeout: 500 }),
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
			parameters: createIfExists('skip', { maxRetries: 0 }),
			credentials: credentials(),
			items: sheet(6),
		});

		expect(run.error?.message).toMatch(
			/^The outcome is unknown: could not reach the service at .*: the connection was reset, so the service may or may not have created the 6 registrations of items 0 to 5/,
		);
		expect(posts()).toHaveLength(1);
	});

	test('when the lookup after a lost answer comes back short of its total, missing is no proof: the outcome stays unknown', async () => {
		// The first lookup (before the create) is whole; the one after the lost answer lists none of the 2 it counts.
		let lookupsSeen = 0;
		sandbox().faultPlan = (request) => {
			if (request.method === 'POST') return { resetAfterHandling: true };
			return (lookupsSeen += 1) > 1 ? { status: 200, body: { data: [], total: 2 } } : undefined;
		};

		// A Retry is allowed, so only the short list keeps the create from being sent again.
		const run = await runNode({
			parameters: createIfExists('skip', { maxRetries: 1 }),
			credentials: credentials(),
			items: items({ Product: 'Kettle', Email: 'ann@example.com' }),
		});

		expect(run.error?.message).toMatch(
			/^The outcome is unknown: could not reach the service at .*: the connection was reset/,
		);
		expect(posts()).toHaveLength(1);
	});
});
