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
		[{ status: '={{ $json.missing }}' }, 'The Status of item 0 is empty'],
		[
			{ status: 'ok', additionalFields: { assetsJson: '{ "name": "a" }' } },
			'The Assets (JSON) of item 0 must be a JSON array, not "{ \\"name\\": \\"a\\" }"',
		],
		[{ status: 'ok', additionalFields: { assetsJson: '[{ "name": "a" }]' } }, 'The Asset 1 URL of item 0 is empty'],
		[
			{ status: 'ok', additionalFields: { assets: { asset: [{ name: '', url: 'https://x.example/a' }] } } },
			'The Asset 1 name of item 0 is empty',
		],
		[
			{ status: 'ok', additionalFields: { assetsJson: '["receipt.pdf"]' } },
			'The Asset 1 of item 0 must be an object with name and url',
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
