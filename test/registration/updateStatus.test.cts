import { randomBytes } from 'node:crypto';

import { inlineItem, inlineReceipt, storagePuts, storedKey } from '../../harness/receipts.cts';
import { seedRegistration, useSandbox } from '../../harness/sandbox.cts';
import { errorOf, runNode, storeBinary } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

describe('registration: Change Status', () => {
	test('POSTs status, visibility, note and the assets from rows and JSON; returns the updated registration', async () => {
		const id = seedRegistration(sandbox());

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: id,
				status: 'approved',
				isPublic: true,
				additionalFields: {
					note: 'Receipt checked',
					assets: { asset: [{ name: 'receipt.pdf', url: 'https://files.example.com/receipt.pdf' }] },
					assetsJson: '[{ "name": "photo.jpg", "url": "https://files.example.com/photo.jpg" }]',
				},
			},
			credentials: credentials(),
		});

		const [request] = sandbox().requestsTo('POST', `/api/registrations/${id}/status`);
		expect(request.body).toEqual({
			status: 'approved',
			isPublic: true,
			note: 'Receipt checked',
			assets: [
				{ name: 'receipt.pdf', url: 'https://files.example.com/receipt.pdf' },
				{ name: 'photo.jpg', url: 'https://files.example.com/photo.jpg' },
			],
		});
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			id,
			status: 'approved',
			statusHistory: [{ status: 'approved', isPublic: true, note: 'Receipt checked' }],
		});
	});

	test('the minimum is a status; the note and assets are left out when not set', async () => {
		const id = seedRegistration(sandbox());

		await runNode({
			parameters: { resource: 'registration', operation: 'updateStatus', registrationId: id, status: 'received' },
			credentials: credentials(),
		});

		expect(sandbox().requestsTo('POST', `/api/registrations/${id}/status`)[0].body).toEqual({
			status: 'received',
			isPublic: false,
		});
	});

	test.each([
		[{ status: '={{ $json.missing }}' }, "The 'Status' is empty [item 0]"],
		[
			{ status: 'ok', additionalFields: { assetsJson: '{ "name": "a" }' } },
			`The 'Assets (JSON)' must be a JSON array, not "{ \\"name\\": \\"a\\" }" [item 0]`,
		],
		[{ status: 'ok', additionalFields: { assetsJson: '[{ "name": "a" }]' } }, 'The url of asset 1 is empty [item 0]'],
		[
			{ status: 'ok', additionalFields: { assets: { asset: [{ name: '', url: 'https://x.example/a' }] } } },
			'The name of asset 1 is empty [item 0]',
		],
		[
			{ status: 'ok', additionalFields: { assetsJson: '["receipt.pdf"]' } },
			'The asset 1 must be an object with a name and a url [item 0]',
		],
	])('bad input %j is refused before anything is sent', async (parameters, message) => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'updateStatus', registrationId: 'R1', ...parameters },
			credentials: credentials(),
		});

		expect(errorOf(result)).toEqual({ message, itemIndex: 0 });
		expect(sandbox().requests).toHaveLength(0);
	});

	test('a service refusal keeps its message, and under Continue On Fail the next items still change', async () => {
		const id = seedRegistration(sandbox());
		sandbox().faultQueue.push({ status: 409, body: { error: 'Status transition not allowed' } });

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: id,
				status: '={{ $json.status }}',
			},
			credentials: credentials(),
			items: [{ json: { status: 'closed' } }, { json: { status: 'approved' } }],
			continueOnFail: true,
		});

		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.status])).toEqual([
			[{ item: 0 }, 'The service answered HTTP 409: Status transition not allowed'],
			[{ item: 1 }, 'approved'],
		]);
	});
});

/**
 * Status: a text field in nodes of version 1 (saved before 0.6), a dropdown of the admin's four statuses from 1.1. n8n
 * sends an option's value as the workflow holds it (n8n-core checks no options value at run time), so what a saved
 * workflow holds is sent as it is, on both lines.
 */
describe('registration: Change Status, Status in each version', () => {
	const changeStatus = (status: string) => ({
		resource: 'registration',
		operation: 'updateStatus',
		registrationId: '={{ $json.id }}',
		status,
	});
	const sentStatuses = () =>
		sandbox()
			.requests.filter((request) => request.method === 'POST')
			.map((request) => (request.body as { status: string }).status);

	test('version 1 (saved before 0.6) sends the text it holds, a status the admin does not show included', async () => {
		const ids = [seedRegistration(sandbox()), seedRegistration(sandbox())];

		const result = await runNode({
			parameters: changeStatus('receipt received'),
			credentials: credentials(),
			items: ids.map((id) => ({ json: { id } })),
			typeVersion: 1,
		});

		expect(result.error).toBeUndefined();
		expect(sentStatuses()).toEqual(['receipt received', 'receipt received']);
	});

	test.each(['Confirmed', 'Processing', 'Requested', 'Unqualified'])(
		'version 1.1 sends the status %s chosen in the dropdown as the admin spells it, as typing it into version 1 did',
		async (status) => {
			const id = seedRegistration(sandbox());

			await runNode({ parameters: changeStatus(status), credentials: credentials(), items: [{ json: { id } }] });
			await runNode({
				parameters: changeStatus(status),
				credentials: credentials(),
				items: [{ json: { id } }],
				typeVersion: 1.1,
			});

			expect(sentStatuses()).toEqual([status, status]);
		},
	);

	test('version 1.1 sends any other status given by expression, and a plain value saved outside the four as it is held', async () => {
		const id = seedRegistration(sandbox());
		const items = [{ json: { id, status: 'on hold' } }];

		const byExpression = await runNode({
			parameters: changeStatus('={{ $json.status }}'),
			credentials: credentials(),
			items,
			typeVersion: 1.1,
		});
		const heldAsIs = await runNode({
			parameters: changeStatus('waiting for receipt'),
			credentials: credentials(),
			items,
			typeVersion: 1.1,
		});

		expect([byExpression.error, heldAsIs.error]).toEqual([undefined, undefined]);
		expect(sentStatuses()).toEqual(['on hold', 'waiting for receipt']);
	});

	test('version 1.1 without a status set sends the dropdown default, Confirmed', async () => {
		const id = seedRegistration(sandbox());
		const { status: _, ...withoutStatus } = changeStatus('');

		await runNode({
			parameters: withoutStatus,
			credentials: credentials(),
			items: [{ json: { id } }],
			typeVersion: 1.1,
		});

		expect(sentStatuses()).toEqual(['Confirmed']);
	});
});

describe('registration: Change Status with files', () => {
	test('uploads each named binary field and attaches it as an asset after the name/url ones', async () => {
		const {
			registrations: [registration],
		} = sandbox().state.createRegistrations([{ productName: 'Kettle K1', customerEmail: 'ann@example.com' }]);
		const photo = await storeBinary(randomBytes(2048), { fileName: 'kettle.jpg', mimeType: 'image/jpeg' });

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: registration.id,
				status: 'approved',
				additionalFields: {
					assets: { asset: [{ name: 'manual', url: 'https://files.example.com/manual.pdf' }] },
					binaryAssets: 'data, photo',
				},
			},
			credentials: credentials(),
			items: [{ json: {}, binary: { data: inlineItem(inlineReceipt).binary!.data, photo } }],
		});

		expect(result.error).toBeUndefined();
		const { assets } = sandbox().requestsTo('POST', `/api/registrations/${registration.id}/status`)[0].body as {
			assets: Array<{ name: string; url: string }>;
		};
		expect(assets.map((asset) => asset.name)).toEqual(['manual', 'receipt.pdf', 'kettle.jpg']);
		expect(await sandbox().storage.readObject(storedKey(assets[1].url))).toEqual(inlineReceipt);
		expect(storagePuts(sandbox()).every((put) => put.headers.authorization === undefined)).toBe(true);
	});

	test('a missing binary field fails the item before any file is uploaded', async () => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: 'R1',
				status: 'approved',
				additionalFields: { binaryAssets: 'data, photo' },
			},
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error?.message).toBe("The item has no binary field 'photo' [item 0]");
		expect(sandbox().requests).toHaveLength(0);
		expect(storagePuts(sandbox())).toHaveLength(0);
	});
});

describe('registration: Change Status, Simplify (version 1.1, on by default)', () => {
	test('the changed registration comes out compact, its new status in it; Simplify off gives it whole', async () => {
		const id = seedRegistration(sandbox());
		const parameters = {
			resource: 'registration',
			operation: 'updateStatus',
			registrationId: id,
			status: 'Processing',
		};

		const simplified = await runNode({ parameters, credentials: credentials(), typeVersion: 1.1 });
		const whole = await runNode({
			parameters: { ...parameters, status: 'Confirmed', simplify: false },
			credentials: credentials(),
			typeVersion: 1.1,
		});

		expect(simplified.items.map((item) => item.json)).toEqual([
			{ id, productName: 'Kettle K1', customerEmail: 'ann.lee@example.com', status: 'Processing' },
		]);
		expect(whole.items[0].json).toMatchObject({
			id,
			status: 'Confirmed',
			statusHistory: [
				expect.objectContaining({ status: 'Processing' }),
				expect.objectContaining({ status: 'Confirmed' }),
			],
		});
	});
});
