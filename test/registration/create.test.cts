import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { inlineItem, inlineReceipt, storagePuts, storedKey } from '../../harness/receipts.cts';
import { PAST_CAUTIOUS_START_LATENCY_MS, useSandbox } from '../../harness/sandbox.cts';
import { errorOf, runNode } from '../../harness/workflowRunner.cts';
import { items, outcomes } from './createInput.cts';

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

/**
 * Map Automatically: a sheet's rows go straight into Create, each row's own columns matched to the fields by name,
 * the way spreadsheet users name them; the same converters and per-item errors as fields set below.
 */

const autoMap = (resource: string, options: INodeParameters = {}): INodeParameters => ({
	resource,
	operation: 'create',
	dataMode: 'autoMapInputData',
	options,
});
const sent = (path: string, key: string) =>
	sandbox()
		.requestsTo('POST', path)
		.flatMap((request) => (request.body as Record<string, IDataObject[]>)[key]);

const posts = () => sandbox().requestsTo('POST', '/api/registrations');

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
				{
					json: {
						product: 'A',
						email: 'a@example.com',
						name: '',
						serials: ['S-1', ' S-2 '],
						bought: '2024-03-01T23:30:00-05:00',
					},
				},
				{ json: { product: 'B', email: 'b@example.com', name: '  ', serials: 'S-3;S-4', bought: '2024-02-29' } },
				{ json: { product: 'C', email: 'c@example.com', serials: [], bought: '' } },
			],
		});
		await runNode({
			parameters: createFromColumns({
				purchaseDate: "={{ DateTime.fromISO('2024-12-31T22:00:00', { zone: 'America/New_York' }) }}",
			}),
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

		await runNode({
			parameters: createFromColumns({ serialNumbers: 'KT-9' }),
			credentials: credentials(),
			items: rows(1),
		});

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
			expect(item.json).toMatchObject({
				productName: `Kettle K${index}`,
				customerEmail: `customer${index}@example.com`,
			});
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
		sandbox().latencyMs = PAST_CAUTIOUS_START_LATENCY_MS;

		const result = await runNode({
			parameters: createFromColumns({ options: { batchSize: 4 } }),
			credentials: credentials(),
			items: rows(100),
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().peakInFlight).toBe(4);
		expect(result.items.map((item) => [item.pairedItem, item.json.productName])).toEqual(
			rows(100).map((row, index) => [{ item: index }, row.json.product]),
		);
	});

	test.each([
		[
			{ email: 'ann.lee(at)example.com' },
			`The 'Customer Email' is not an email address: "ann.lee(at)example.com" [item 2]`,
		],
		[{ email: '' }, "The 'Customer Email' is empty [item 2]"],
		[
			{ bought: '03/01/2024' },
			`The 'Purchase Date' is not a date: "03/01/2024". Use YYYY-MM-DD, e.g. 2024-03-01 [item 2]`,
		],
		[
			{ bought: '2024-02-30' },
			`The 'Purchase Date' is not a date: "2024-02-30". Use YYYY-MM-DD, e.g. 2024-03-01 [item 2]`,
		],
		[
			{ extra: '[1, 2]' },
			`The 'Extra Fields (JSON)' must be a JSON object like {"greetings": "hi"}, not "[1, 2]" [item 2]`,
		],
		[{ extra: '{ "greetings": ' }, `The 'Extra Fields (JSON)' is not valid JSON: "{ \\"greetings\\": " [item 2]`],
		[
			{ extra: '{ "type": "other-form" }' },
			"The extra field 'type' has the name of a standard field; set it with its own parameter instead [item 2]",
		],
		[{ serials: [{ sn: 1 }] }, `The 'Serial Numbers' must be a list of texts, but holds "{\\"sn\\":1}" [item 2]`],
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

		const result = await runNode({
			parameters: createFromColumns(),
			credentials: credentials(),
			items,
			continueOnFail: true,
		});

		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.id])).toEqual([
			[{ item: 0 }, 'R000001'],
			[{ item: 1 }, `The 'Customer Email' is not an email address: "not an email" [item 1]`],
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
			"The extra field 'accessToken' has the name of a standard field; set it with its own parameter instead [item 0]",
		);
		expect(sandbox().requests).toHaveLength(0);
	});

	test.each<[string, IDataObject, string]>([
		[
			'a missing required column names the names it looks for',
			{ Email: 'ann@example.com' },
			"The item has no field for the 'Product Name': Map Automatically looks for a field named 'Product Name', 'product_name', 'productName' or 'Product' [item 1]",
		],
		[
			'two columns for one field name both',
			{ Product: 'Kettle', Email: 'ann@example.com', customer_email: 'bo@example.com' },
			"The item has two fields for the 'Customer Email', 'Email' and 'customer_email': Map Automatically cannot tell which to send. Rename or remove one [item 1]",
		],
		[
			'a bad value gets the same error as a mapped one',
			{ Product: 'Kettle', Email: 'ann at example' },
			`The 'Customer Email' is not an email address: "ann at example" [item 1]`,
		],
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

/** A form submission as n8n's Form Trigger gives it: the fields by their labels, the receipt's file under its label. */
const formSubmission = (email = 'ann.lee@example.com'): INodeExecutionData => ({
	json: {
		'Product Name': 'Kettle K1',
		Email: email,
		Name: 'Ann Lee',
		Receipt: { filename: 'receipt.pdf', mimetype: 'application/pdf', size: inlineReceipt.length },
		submittedAt: '2026-11-23T10:00:00.000Z',
		formMode: 'production',
	},
	binary: { Receipt: inlineItem(inlineReceipt).binary!.data },
});

/** Map Automatically with the receipt uploaded into the form field `receipt`, as the form example sets it up. */
const registerFromForm = (options: INodeParameters = {}): INodeParameters =>
	autoMap('registration', {
		files: { file: [{ binaryPropertyName: 'Receipt', fieldName: 'receipt' }] },
		unmatchedFields: 'sendAsExtraFields',
		retryDelay: 1,
		...options,
	});

const uploadRequests = () => sandbox().requestsTo('GET', '/api/upload_file');

describe('registration: Create with files', () => {
	test('uploads each file first and sends its URL as a form field; the output says which file went where', async () => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: 'ann.lee@example.com',
				additionalFields: { files: { file: [{ binaryPropertyName: 'data', fieldName: 'receipt' }] } },
			},
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error).toBeUndefined();
		const [sent] = sentRegistrations()[0];
		expect(sent).toEqual({
			productName: 'Kettle K1',
			customerEmail: 'ann.lee@example.com',
			receipt: expect.stringMatching(new RegExp(`^${sandbox().storage.url}/`)),
		});
		expect(await sandbox().storage.readObject(storedKey(sent.receipt as string))).toEqual(inlineReceipt);
		expect(result.items[0].json.files).toEqual([
			{
				field: 'receipt',
				url: sent.receipt,
				fileName: 'receipt.pdf',
				fileType: 'application/pdf',
				fileSize: inlineReceipt.length,
			},
		]);
		expect(result.items[0].json.productName).toBe('Kettle K1');
	});

	test('a form submission, mapped automatically: the receipt goes to "receipt", its description is not sent', async () => {
		const result = await runNode({
			parameters: registerFromForm(),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(result.error).toBeUndefined();
		const [sent] = sentRegistrations()[0];
		expect(Object.keys(sent).sort()).toEqual([
			'customerEmail',
			'customerName',
			'formMode',
			'productName',
			'receipt',
			'submittedAt',
		]);
		expect(await sandbox().storage.readObject(storedKey(sent.receipt as string))).toEqual(inlineReceipt);
	});

	test('Upload Every File sends each binary field of the item under its own name', async () => {
		const photo = Buffer.from('photo of the kettle');
		const result = await runNode({
			parameters: autoMap('registration', { uploadEveryFile: true }),
			credentials: credentials(),
			items: [
				{
					json: { Product: 'Kettle K1', Email: 'ann@example.com' },
					binary: {
						receipt: inlineItem(inlineReceipt).binary!.data,
						photo: inlineItem(photo, 'kettle.jpg', 'image/jpeg').binary!.data,
					},
				},
			],
		});

		expect(result.error).toBeUndefined();
		const [sent] = sentRegistrations()[0];
		expect(await sandbox().storage.readObject(storedKey(sent.receipt as string))).toEqual(inlineReceipt);
		expect(await sandbox().storage.readObject(storedKey(sent.photo as string))).toEqual(photo);
		expect((result.items[0].json.files as IDataObject[]).map((file) => file.field)).toEqual(['receipt', 'photo']);
	});

	test('with Skip, a registration that exists already uploads nothing', async () => {
		await runNode({
			parameters: registerFromForm({ ifExists: 'skip' }),
			credentials: credentials(),
			items: [formSubmission()],
		});
		expect(uploadRequests()).toHaveLength(1);

		const again = await runNode({
			parameters: registerFromForm({ ifExists: 'skip' }),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(outcomes(again.items)).toEqual(['skipped']);
		expect(uploadRequests()).toHaveLength(1);
		expect(storagePuts(sandbox())).toHaveLength(1);
		expect(sandbox().state.registrations.size).toBe(1);
	});

	test('a create whose answer is lost is resolved without uploading again', async () => {
		let creates = 0;
		sandbox().faultPlan = (request) =>
			request.method === 'POST' && creates++ === 0 ? { resetAfterHandling: true } : undefined;

		const result = await runNode({
			parameters: registerFromForm({ ifExists: 'skip' }),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(result.error).toBeUndefined();
		expect(outcomes(result.items)).toEqual(['created']);
		expect(sandbox().state.registrations.size).toBe(1);
		expect(uploadRequests()).toHaveLength(1);
		expect(storagePuts(sandbox())).toHaveLength(1);
		expect(result.items[0].json.files).toEqual([expect.objectContaining({ field: 'receipt' })]);
	});

	test('an item whose file cannot be uploaded is not created; under Continue On Fail it is an error item naming the field', async () => {
		sandbox().uploadUrlTtlSeconds = -60;
		const result = await runNode({
			parameters: registerFromForm(),
			credentials: credentials(),
			items: [formSubmission()],
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{
				json: {
					error: expect.stringMatching(
						/^The file in the binary field 'Receipt' could not be uploaded, so nothing was sent for it: Could not upload "receipt\.pdf" to the storage \(HTTP 403\): AccessDenied.* \[item 0\]$/,
					),
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(posts()).toHaveLength(0);
	});

	test('without Continue On Fail the failed upload fails the run, naming the item and the field', async () => {
		sandbox().uploadUrlTtlSeconds = -60;
		const result = await runNode({
			parameters: registerFromForm(),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(errorOf(result)).toEqual({
			message: expect.stringMatching(/^The file in the binary field 'Receipt' could not be uploaded, .* \[item 0\]$/),
			itemIndex: 0,
		});
		expect(posts()).toHaveLength(0);
	});

	test('an item without the binary field is refused before anything is uploaded or sent', async () => {
		const [submission] = [formSubmission()];
		delete submission.binary;

		const result = await runNode({ parameters: registerFromForm(), credentials: credentials(), items: [submission] });

		expect(result.error?.message).toMatch(/Receipt/);
		expect(errorOf(result).itemIndex).toBe(0);
		expect(uploadRequests()).toHaveLength(0);
		expect(posts()).toHaveLength(0);
	});

	test('a file sent to a standard field is refused', async () => {
		const result = await runNode({
			parameters: registerFromForm({ files: { file: [{ binaryPropertyName: 'Receipt', fieldName: 'productName' }] } }),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(result.error?.message).toBe(
			"The form field 'productName' is a standard field of the registration; send the file to a field of the form's own [item 0]",
		);
		expect(uploadRequests()).toHaveLength(0);
	});

	test('with Update, an existing registration gets the new file under fields', async () => {
		sandbox().state.createRegistrations([{ productName: 'Kettle K1', customerEmail: 'ann.lee@example.com' }]);

		const result = await runNode({
			parameters: registerFromForm({ ifExists: 'update', unmatchedFields: 'ignore' }),
			credentials: credentials(),
			items: [formSubmission()],
		});

		expect(outcomes(result.items)).toEqual(['updated']);
		const [put] = sandbox().requests.filter((request) => request.method === 'PUT');
		expect(put.body).toEqual({
			registration: {
				productName: 'Kettle K1',
				customerEmail: 'ann.lee@example.com',
				customerName: 'Ann Lee',
				fields: { receipt: expect.stringMatching(new RegExp(`^${sandbox().storage.url}/`)) },
			},
		});
		expect(result.items[0].json.files).toEqual([expect.objectContaining({ field: 'receipt' })]);
		expect(posts()).toHaveLength(0);
	});
});

describe('registration: Create, Simplify (version 1.1, on by default)', () => {
	test('each created registration comes out compact, as the tool gives it to a model; Simplify off gives it whole', async () => {
		const parameters = createFromColumns({ serialNumbers: 'KT-1', additionalFields: { formSlug: 'warranty' } });

		const simplified = await runNode({ parameters, credentials: credentials(), items: rows(2), typeVersion: 1.1 });
		const whole = await runNode({
			parameters: { ...parameters, simplify: false },
			credentials: credentials(),
			items: rows(1),
			typeVersion: 1.1,
		});

		expect(simplified.items.map((item) => item.json)).toEqual([
			{
				id: 'R000001',
				productName: 'Kettle K0',
				customerEmail: 'customer0@example.com',
				serialNumbers: ['KT-1'],
				form: 'warranty',
			},
			{
				id: 'R000002',
				productName: 'Kettle K1',
				customerEmail: 'customer1@example.com',
				serialNumbers: ['KT-1'],
				form: 'warranty',
			},
		]);
		expect(whole.items[0].json).toMatchObject({ id: 'R000003', formSlug: 'warranty', statusHistory: [], fields: {} });
	});
});
