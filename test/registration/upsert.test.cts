import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import type { RunNodeResult } from '../../harness/workflowRunner.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { items, outcomes } from './createInput.cts';

/**
 * Registration → Create or Update (upsert): Create with If Already Registered: Update, under the name n8n's
 * guidelines give it. One implementation, two ways in: the same lookups, decisions and requests as Create with the
 * option set (ifAlreadyRegistered.test.ts holds the option's cases), through n8n's engine against the sandbox.
 */

const { sandbox, credentials } = useSandbox();

const upsert = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'registration',
	operation: 'upsert',
	productName: '={{ $json.product }}',
	customerEmail: '={{ $json.email }}',
	customerName: '={{ $json.name }}',
	...parameters,
});

/** Ann's two registrations; the sheet below holds one of them unchanged, one changed and one new. */
function seedAnn() {
	sandbox().state.createRegistrations([
		{ productName: 'Kettle K1', customerEmail: 'ann@example.com', customerName: 'Ann Lee' },
		{ productName: 'Toaster T2', customerEmail: 'ann@example.com', customerName: 'Ann Lee' },
	]);
}

const sheet = () =>
	items(
		{ product: 'Kettle K1', email: 'ann@example.com', name: 'Ann Lee' },
		{ product: 'Toaster T2', email: 'ann@example.com', name: 'Ann Lee-Smith' },
		{ product: 'Blender B3', email: 'ann@example.com', name: 'Ann Lee' },
	);

/** What the service was asked, without when. */
const requests = () => sandbox().requests.map(({ method, path, query, body }) => ({ method, path, query, body }));

/** What a run gave, without the times the service stamped. */
const output = (result: RunNodeResult) =>
	result.items.map(({ json, pairedItem }) => {
		const { createdAt: _, ...rest } = json;
		return { json: rest, pairedItem };
	});

describe('registration: Create or Update', () => {
	test('creates what the service does not hold, updates what changed, and leaves what holds these details already', async () => {
		seedAnn();

		const result = await runNode({ parameters: upsert(), credentials: credentials(), items: sheet() });

		expect(outcomes(result.items)).toEqual(['skipped', 'updated', 'created']);
		expect(requests().filter(({ method }) => method !== 'GET')).toEqual([
			{
				method: 'PUT',
				path: '/api/registrations/R000002',
				query: {},
				body: {
					registration: { productName: 'Toaster T2', customerEmail: 'ann@example.com', customerName: 'Ann Lee-Smith' },
				},
			},
			{
				method: 'POST',
				path: '/api/registrations',
				query: {},
				body: {
					registrations: [{ productName: 'Blender B3', customerEmail: 'ann@example.com', customerName: 'Ann Lee' }],
				},
			},
		]);
		expect(result.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['R000001', { item: 0 }],
			['R000002', { item: 1 }],
			['R000003', { item: 2 }],
		]);
		expect(sandbox().state.registrations.size).toBe(3);
	});

	test('is Create with If Already Registered: Update — the same requests and the same output, defined below or mapped', async () => {
		const runs: Array<{ requests: ReturnType<typeof requests>; output: ReturnType<typeof output> }> = [];
		const mapped = items(
			{ Product: 'Kettle K1', Email: 'ann@example.com', Name: 'Ann Lee', Serials: 'KT-1' },
			{ Product: 'Toaster T2', Email: 'ann@example.com', 'Purchase Date': '2024-03-01' },
			{ Product: 'Toaster T2', Email: 'ann@example.com', 'Purchase Date': '2024-03-02' },
			{ Product: 'Blender B3', Email: 'bo@example.com' },
		);
		const ways: Array<[INodeParameters, INodeExecutionData[]]> = [
			[upsert(), sheet()],
			[{ ...upsert(), operation: 'create', options: { ifExists: 'update' } }, sheet()],
			[{ resource: 'registration', operation: 'upsert', dataMode: 'autoMapInputData' }, mapped],
			[
				{
					resource: 'registration',
					operation: 'create',
					dataMode: 'autoMapInputData',
					options: { ifExists: 'update' },
				},
				mapped,
			],
		];
		for (const [parameters, input] of ways) {
			sandbox().reset();
			seedAnn();
			const result = await runNode({ parameters, credentials: credentials(), items: input });
			runs.push({ requests: requests(), output: output(result) });
		}

		expect(runs[0].requests.length).toBeGreaterThan(2);
		expect(runs[1]).toEqual(runs[0]);
		expect(outcomes(runs[2].output as INodeExecutionData[])).toEqual(['updated', 'updated', 'skipped', 'created']);
		expect(runs[3]).toEqual(runs[2]);
	});

	test('an Options > If Already Registered saved into it by hand changes nothing: it always updates', async () => {
		seedAnn();

		const result = await runNode({
			parameters: upsert({ options: { ifExists: 'create' } }),
			credentials: credentials(),
			items: sheet(),
		});

		expect(outcomes(result.items)).toEqual(['skipped', 'updated', 'created']);
		expect(sandbox().state.registrations.size).toBe(3);
	});

	test('bad input is refused before anything is sent, as Create refuses it', async () => {
		const result = await runNode({
			parameters: upsert(),
			credentials: credentials(),
			items: items({ product: 'Kettle K1', email: 'ann at example' }),
		});

		expect(result.error?.message).toBe(`The 'Customer Email' is not an email address: "ann at example" [item 0]`);
		expect(sandbox().requests).toHaveLength(0);
	});

	test('a node added now (version 1.1) answers compact, Simplify being on, and each item still says its outcome', async () => {
		seedAnn();

		const result = await runNode({
			parameters: upsert(),
			credentials: credentials(),
			items: sheet(),
			typeVersion: 1.1,
		});

		expect(result.items.map((item) => item.json)).toEqual([
			{
				id: 'R000001',
				productName: 'Kettle K1',
				customerName: 'Ann Lee',
				customerEmail: 'ann@example.com',
				outcome: 'skipped',
			},
			{
				id: 'R000002',
				productName: 'Toaster T2',
				customerName: 'Ann Lee-Smith',
				customerEmail: 'ann@example.com',
				outcome: 'updated',
			},
			{
				id: 'R000003',
				productName: 'Blender B3',
				customerName: 'Ann Lee',
				customerEmail: 'ann@example.com',
				outcome: 'created',
			},
		]);
	});

	test('with Simplify off, version 1.1 answers as version 1 does: the registrations whole', async () => {
		seedAnn();
		const whole = await runNode({
			parameters: upsert({ simplify: false }),
			credentials: credentials(),
			items: sheet(),
			typeVersion: 1.1,
		});
		const wholeOutput = output(whole);
		sandbox().reset();
		seedAnn();

		const savedBefore06 = await runNode({ parameters: upsert(), credentials: credentials(), items: sheet() });

		expect(wholeOutput).toEqual(output(savedBefore06));
		expect((wholeOutput[2].json as IDataObject).statusHistory).toEqual([]);
	});
});
