import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';

import type { WebhookServer } from '../../harness/webhookServer.cts';
import { startWebhookServer } from '../../harness/webhookServer.cts';
import { ProductRegistrationTrigger } from '../../nodes/ProductRegistrationTrigger/ProductRegistrationTrigger.node';
import { payloadItems, sameSecret, secretProblem } from '../../nodes/ProductRegistrationTrigger/registrationWebhook';

const sample = (file: string) =>
	JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as IDataObject;

/** The body the app's documentation shows. */
const documented = sample('sample-registration-webhook.json');
/** The body captured from a live shop: wrapped under `payload`, the form's slug beside it, extra fields as plain keys. */
const wrapped = sample('sample-registration-webhook-wrapped.json');

/** A documented body with two products, the second without extra fields. */
const knownPayload = {
	type: 'product-registration',
	items: [
		{
			product: { title: 'Kettle K1', handle: 'kettle-k1' },
			purchaseDate: '2024-03-01',
			serialNumbers: ['KT-2024-0001'],
			extraFields: [{ name: 'greetings', type: 'text', value: 'hi' }],
		},
		{ product: { title: 'Toaster T2' }, purchaseDate: '2024-03-01', serialNumbers: [], extraFields: [] },
	],
	customer: { name: 'Ann Lee', email: 'ann.lee@example.com' },
};

let server: WebhookServer | undefined;
let started: INodeExecutionData[][];

/** The credential a node of version 2 names, as a workflow saves it. */
const SAVED_CREDENTIAL = {
	productRegistrationWebhookApi: { id: 'webhook-secret', name: 'Product Registration webhook' },
};

/** The trigger as an active workflow holds it: of the version a node added now gets unless given, with its secret. */
async function startTrigger(parameters: INodeParameters = {}, saved: { typeVersion?: number; secret?: string } = {}) {
	started = [];
	server = await startWebhookServer({
		parameters,
		onWorkflowData: (items) => started.push(items),
		typeVersion: saved.typeVersion,
		credentials:
			saved.secret === undefined
				? undefined
				: { saved: SAVED_CREDENTIAL, data: { productRegistrationWebhookApi: { secret: saved.secret } } },
	});
	return server;
}

afterEach(async () => {
	await server?.stop();
	server = undefined;
});

async function post(
	body: string,
	headers: Record<string, string> = { 'content-type': 'application/json' },
	query = '',
) {
	const response = await fetch(`${server!.url}${query}`, { method: 'POST', body, headers });
	return { status: response.status, body: (await response.json()) as IDataObject };
}

describe('Product Registration Trigger, through n8n-core’s WebhookContext over real HTTP', () => {
	test('the documented body: one item per product, its extra fields by name, the customer and type beside it', async () => {
		await startTrigger();

		const answer = await post(JSON.stringify(documented));

		expect(answer).toEqual({ status: 200, body: { message: 'Workflow was started' } });
		const [entry] = documented.items as IDataObject[];
		expect(started).toEqual([
			[
				{
					json: {
						...entry,
						fields: {
							'Where did you buy it?': 'Online',
							'Upload Image (Receipt)': 'https://files.example.com/uploads/receipt-1001.jpg',
						},
						customer: documented.customer,
						type: 'product-registration',
					},
				},
			],
		]);
	});

	test('the body captured from a live shop: unwrapped from payload, its plain keys as fields, the form slug named', async () => {
		await startTrigger();

		await post(JSON.stringify(wrapped));

		const inner = wrapped.payload as IDataObject;
		const [entry] = inner.items as IDataObject[];
		expect(started).toEqual([
			[
				{
					json: {
						...entry,
						fields: {
							serialNumbers1: ['KT-2024-0002'],
							InvoiceUpload: 'https://files.example.com/uploads/invoice-1001.png',
							Age: '18-24',
						},
						customer: inner.customer,
						sendEmails: true,
						formSlug: 'extended-warranty',
					},
				},
			],
		]);
	});

	test("both bodies give items of one outline, where a receipt's URL is read by its field name", () => {
		const [fromDocumented] = payloadItems(documented, true);
		const [fromWrapped] = payloadItems(wrapped, true);
		const outline = ['product', 'purchaseDate', 'serialNumbers', 'fields', 'customer'];

		for (const item of [fromDocumented, fromWrapped])
			expect(Object.keys(item.json)).toEqual(expect.arrayContaining(outline));
		expect((fromDocumented.json.fields as IDataObject)['Upload Image (Receipt)']).toMatch(/^https:/);
		expect((fromWrapped.json.fields as IDataObject).InvoiceUpload).toMatch(/^https:/);
	});

	test('several products: one item each, each with its own fields', async () => {
		await startTrigger();

		await post(JSON.stringify(knownPayload));

		expect(started).toHaveLength(1);
		expect(started[0].map((item) => item.json)).toEqual([
			{
				...knownPayload.items[0],
				fields: { greetings: 'hi' },
				type: 'product-registration',
				customer: knownPayload.customer,
			},
			{ ...knownPayload.items[1], fields: {}, type: 'product-registration', customer: knownPayload.customer },
		]);
	});

	test('not split: one item holding the whole body as sent, in either shape', async () => {
		await startTrigger({ splitIntoItems: false });

		await post(JSON.stringify(knownPayload));
		await post(JSON.stringify(wrapped));

		expect(started).toEqual([[{ json: knownPayload }], [{ json: wrapped }]]);
	});

	test('an unknown shape passes through whole and never fails', async () => {
		await startTrigger();
		const unknown = { event: 'registration.created', data: { id: 'R1', items: 'not a list' }, items: [] };

		const answers = [await post(JSON.stringify(unknown)), await post('[1, 2, 3]'), await post('"just text"')];

		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expect(started).toEqual([[{ json: unknown }], [{ json: { body: [1, 2, 3] } }], [{ json: { body: 'just text' } }]]);
	});

	/** Posts the known payload without the secret, with a wrong one and with one differing in case: all refused. */
	async function refusedWithoutTheSecret(secret: string) {
		const refused = [
			await post(JSON.stringify(knownPayload)),
			await post(JSON.stringify(knownPayload), undefined, '?secret=wrong'),
			await post(JSON.stringify(knownPayload), {
				'content-type': 'application/json',
				'x-webhook-secret': secret.toUpperCase(),
			}),
		];
		expect(refused.map((answer) => answer.status)).toEqual([401, 401, 401]);
		expect(refused[0].body).toEqual({ message: 'The secret is missing or wrong' });
		expect(started).toHaveLength(0);
	}

	/** Posts the known payload with the secret in the URL, then in the header: both start the workflow. */
	async function acceptedWithTheSecret(secret: string) {
		const answers = [
			await post(JSON.stringify(knownPayload), undefined, `?secret=${secret}`),
			await post(JSON.stringify(knownPayload), { 'content-type': 'application/json', 'x-webhook-secret': secret }),
		];
		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		expect(started).toHaveLength(2);
	}

	test('a node added before 0.7 (version 1) with its Shared Secret parameter: calls without it get 401 and start nothing; ?secret= or the header are accepted', async () => {
		await startTrigger({ secret: 's3cret-value' }, { typeVersion: 1 });

		await refusedWithoutTheSecret('s3cret-value');
		await acceptedWithTheSecret('s3cret-value');
	});

	test('version 2 with Authentication: Shared Secret takes the secret from its credential, and refuses and accepts alike', async () => {
		await startTrigger({ authentication: 'sharedSecret' }, { secret: 'kettle-2024-webhook-secret' });

		await refusedWithoutTheSecret('kettle-2024-webhook-secret');
		await acceptedWithTheSecret('kettle-2024-webhook-secret');
	});

	test("a secret holding '+', pasted into the URL as it is, arrives as a space and is refused: why the credential's Test says Error", async () => {
		await startTrigger({ authentication: 'sharedSecret' }, { secret: 'kettle+2024+webhook+secret' });

		const answer = await post(JSON.stringify(knownPayload), undefined, '?secret=kettle+2024+webhook+secret');

		expect(answer.status).toBe(401);
		expect(secretProblem('kettle+2024+webhook+secret')).toContain('characters a URL changes');
	});

	test('version 2 checks no parameter named secret: one left in the parameters neither guards nor blocks', async () => {
		await startTrigger({ secret: 's3cret-value' });

		expect((await post(JSON.stringify(knownPayload))).status).toBe(200);
		expect(started).toHaveLength(1);
	});

	test('version 2 with Shared Secret whose credential holds no secret starts nothing: it never lets a call in unchecked', async () => {
		await startTrigger({ authentication: 'sharedSecret' }, { secret: '' });

		const answer = await post(JSON.stringify(knownPayload));

		expect(answer.status).toBe(500);
		expect(answer.body.message).toBe('The Shared Secret credential holds no secret');
		expect(started).toHaveLength(0);
	});

	test.each([
		['text that is not JSON', 'registration=1', { 'content-type': 'application/x-www-form-urlencoded' }],
		['broken JSON', '{"type": "product-registration", ', { 'content-type': 'application/json' }],
		['JSON without the JSON content type', JSON.stringify(knownPayload), { 'content-type': 'text/plain' }],
	])('%s is refused with 400 and a clear message', async (_, body, headers) => {
		await startTrigger();

		const answer = await post(body, headers);

		expect(answer).toEqual({
			status: 400,
			body: { message: 'The body must be JSON, sent with Content-Type: application/json' },
		});
		expect(started).toHaveLength(0);
	});

	test('a body above the size cap is refused with 413', async () => {
		await startTrigger({ options: { maxBodyKb: 1 } });

		const answer = await post(JSON.stringify({ ...knownPayload, note: 'x'.repeat(2000) }));

		expect(answer).toEqual({ status: 413, body: { message: 'The body is larger than 1 KB' } });
		expect(started).toHaveLength(0);
	});
});

describe("the Shared Secret credential's Test button", () => {
	const { webhookSecretTest } = new ProductRegistrationTrigger().methods.credentialTest;
	const testSecret = async (secret: unknown) =>
		await webhookSecretTest.call(
			{} as ICredentialTestFunctions,
			{
				id: 'webhook-secret',
				name: 'Product Registration webhook',
				type: 'productRegistrationWebhookApi',
				data: { secret },
			} as ICredentialsDecrypted,
		);

	test('says OK for a secret of 16 or more characters that a URL carries unchanged', async () => {
		expect(await testSecret('kettle-2024_webhook.secret~1')).toEqual({
			status: 'OK',
			message: 'The secret can go in the URL as it is: add ?secret=<the secret> to the Production URL',
		});
	});

	test.each([
		['empty', '', 'The Shared Secret is empty: make one up, of 16 or more letters and digits'],
		['with a "+", which a query reads as a space', 'kettle+2024+webhook+secret', 'characters a URL changes'],
		['with a "&", which ends the query value', 'kettle&2024&webhook&secret', 'characters a URL changes'],
		['with a space', 'kettle 2024 webhook secret', 'characters a URL changes'],
		['short', 'kettle-2024', 'short enough to be guessed: use 16 or more characters'],
	])('says Error for a secret %s, naming what to change', async (_, secret, problem) => {
		const result = await testSecret(secret);
		expect(result.status).toBe('Error');
		expect(result.message).toContain(problem);
		expect(secretProblem(secret)).toBe(result.message);
	});

	test('a secret that is not text is taken as empty', async () => {
		expect(await testSecret(undefined)).toEqual({ status: 'Error', message: secretProblem('') });
	});
});

describe('pure parts', () => {
	test('sameSecret compares whole values', () => {
		expect(sameSecret('abc', 'abc')).toBe(true);
		expect(sameSecret('abd', 'abc')).toBe(false);
		expect(sameSecret('ab', 'abc')).toBe(false);
		expect(sameSecret('abcd', 'abc')).toBe(false);
		expect(sameSecret('', 'abc')).toBe(false);
	});

	test('entries that are not objects keep their value under "item"', () => {
		expect(payloadItems({ items: ['KT-1', 7], customer: { id: 1 } }, true).map((item) => item.json)).toEqual([
			{ item: 'KT-1', fields: {}, customer: { id: 1 } },
			{ item: 7, fields: {}, customer: { id: 1 } },
		]);
	});
});
