import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { WebhookServer } from '../../harness/webhookServer';
import { startWebhookServer } from '../../harness/webhookServer';
import { payloadItems, sameSecret } from '../../nodes/ProductRegistrationTrigger/registrationWebhook';

/** The shape the service is known to post; its spec does not show it. */
const knownPayload = {
	type: 'product-registration',
	items: [
		{
			product: { name: 'Kettle K1', sku: 'KETTLE-K1' },
			purchaseDate: '2024-03-01',
			serialNumbers: ['KT-2024-0001'],
			extraFields: [{ name: 'greetings', type: 'string', value: 'hi' }],
		},
		{ product: { name: 'Toaster T2' }, purchaseDate: '2024-03-01', serialNumbers: [], extraFields: [] },
	],
	customer: { name: 'Ann Lee', email: 'ann.lee@example.com' },
};

let server: WebhookServer | undefined;
let started: INodeExecutionData[][];

async function startTrigger(parameters: INodeParameters = {}) {
	started = [];
	server = await startWebhookServer({ parameters, onWorkflowData: (items) => started.push(items) });
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
	test('the known payload, split: one item per registered product, with the customer and type beside each', async () => {
		await startTrigger();

		const answer = await post(JSON.stringify(knownPayload));

		expect(answer).toEqual({ status: 200, body: { message: 'Workflow was started' } });
		expect(started).toHaveLength(1);
		expect(started[0].map((item) => item.json)).toEqual([
			{ ...knownPayload.items[0], type: 'product-registration', customer: knownPayload.customer },
			{ ...knownPayload.items[1], type: 'product-registration', customer: knownPayload.customer },
		]);
	});

	test('not split: one item holding the whole payload', async () => {
		await startTrigger({ splitIntoItems: false });

		await post(JSON.stringify(knownPayload));

		expect(started).toEqual([[{ json: knownPayload }]]);
	});

	test('an unknown shape passes through whole and never fails', async () => {
		await startTrigger();
		const unknown = { event: 'registration.created', data: { id: 'R1', items: 'not a list' }, items: [] };

		const answers = [await post(JSON.stringify(unknown)), await post('[1, 2, 3]'), await post('"just text"')];

		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expect(started).toEqual([[{ json: unknown }], [{ json: { body: [1, 2, 3] } }], [{ json: { body: 'just text' } }]]);
	});

	test('with a shared secret, calls without it get 401 and start nothing; ?secret= or the header are accepted', async () => {
		await startTrigger({ secret: 's3cret-value' });

		const refused = [
			await post(JSON.stringify(knownPayload)),
			await post(JSON.stringify(knownPayload), undefined, '?secret=wrong'),
			await post(JSON.stringify(knownPayload), {
				'content-type': 'application/json',
				'x-webhook-secret': 's3cret-valuE',
			}),
		];
		expect(refused.map((answer) => answer).every((answer) => answer.status === 401)).toBe(true);
		expect(refused[0].body).toEqual({ message: 'The secret is missing or wrong' });
		expect(started).toHaveLength(0);

		await post(JSON.stringify(knownPayload), undefined, '?secret=s3cret-value');
		await post(JSON.stringify(knownPayload), {
			'content-type': 'application/json',
			'x-webhook-secret': 's3cret-value',
		});
		expect(started).toHaveLength(2);
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
			{ item: 'KT-1', customer: { id: 1 } },
			{ item: 7, customer: { id: 1 } },
		]);
	});
});
