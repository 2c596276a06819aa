import { runNode } from '../engine/workflowRunner';
import { useSandbox } from './harness/sandbox';

const { sandbox, credentials } = useSandbox();

function seedRegistration(): string {
	const {
		registrations: [registration],
	} = sandbox().state.createRegistrations([
		{ productName: 'Kettle K1', customerEmail: 'ann.lee@example.com', greetings: 'hi' },
	]);
	return registration.id;
}

const errorOf = (result: Awaited<ReturnType<typeof runNode>>) => ({
	message: result.error?.message,
	itemIndex: (result.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex,
});

describe('registration: Update', () => {
	test('PUTs the changed fields under `registration`, extra form fields under `fields`', async () => {
		const id = seedRegistration();

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: id,
				updateFields: {
					productName: 'Kettle K2',
					serialNumbers: '={{ ["KT-7", "KT-8"] }}',
					purchaseDate: '2024-04-02T09:00:00',
					extraFields: { field: [{ name: 'greetings', value: 'hello again' }] },
					extraFieldsJson: { color: 'blue' },
				},
			},
			credentials: credentials(),
		});

		const [request] = sandbox().requestsTo('PUT', `/api/registrations/${id}`);
		expect(request.body).toEqual({
			registration: {
				productName: 'Kettle K2',
				serialNumbers: ['KT-7', 'KT-8'],
				purchaseDate: '2024-04-02',
				fields: { color: 'blue', greetings: 'hello again' },
			},
		});
		expect(result.items).toEqual([
			{
				json: expect.objectContaining({ id, productName: 'Kettle K2', fields: { greetings: 'hello again', color: 'blue' } }),
				pairedItem: { item: 0 },
			},
		]);
	});

	test('an ID with "/" or spaces stays one path segment', async () => {
		await runNode({
			parameters: { resource: 'registration', operation: 'update', registrationId: 'A/1 2', updateFields: { productName: 'X' } },
			credentials: credentials(),
			continueOnFail: true,
		});

		expect(sandbox().requests[0].url).toBe('/api/registrations/A%2F1%202');
	});

	test('an unknown ID comes back with the service message and 404', async () => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'update', registrationId: 'R404', updateFields: { productName: 'X' } },
			credentials: credentials(),
		});

		expect(result.error?.message).toBe('The service has no registration "R404" (HTTP 404: Registration R404 not found)');
		expect((result.error as { httpCode?: string }).httpCode).toBe('404');
	});

	test.each([
		[{ registrationId: '  ', updateFields: { productName: 'X' } }, 'The Registration ID of item 0 is empty'],
		[{ registrationId: '..', updateFields: { productName: 'X' } }, 'The Registration ID of item 0 cannot be sent in a URL path: ".." is read as a folder step'],
		[{ registrationId: 'R1', updateFields: {} }, 'Nothing to update for item 0: add at least one field under Update Fields'],
		[{ registrationId: 'R1', updateFields: { customerEmail: 'nope' } }, 'The Customer Email of item 0 is not an email address: "nope"'],
		[{ registrationId: 'R1', updateFields: { extraFieldsJson: '"text"' } }, 'The Extra Fields (JSON) of item 0 must be a JSON object like {"greetings": "hi"}, not "\\"text\\""'],
	])('bad input %j is refused before anything is sent', async (parameters, message) => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'update', ...parameters },
			credentials: credentials(),
		});

		expect(errorOf(result)).toEqual({ message, itemIndex: 0 });
		expect(sandbox().requests).toHaveLength(0);
	});
});

describe('registration: Change Status', () => {
	test('POSTs status, visibility, note and the assets from rows and JSON; returns the updated registration', async () => {
		const id = seedRegistration();

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
		const id = seedRegistration();

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
		[{ status: 'ok', additionalFields: { assetsJson: '{ "name": "a" }' } }, 'The Assets (JSON) of item 0 must be a JSON array, not "{ \\"name\\": \\"a\\" }"'],
		[{ status: 'ok', additionalFields: { assetsJson: '[{ "name": "a" }]' } }, 'The Asset 1 URL of item 0 is empty'],
		[{ status: 'ok', additionalFields: { assets: { asset: [{ name: '', url: 'https://x.example/a' }] } } }, 'The Asset 1 name of item 0 is empty'],
		[{ status: 'ok', additionalFields: { assetsJson: '["receipt.pdf"]' } }, 'The Asset 1 of item 0 must be an object with name and url'],
	])('bad input %j is refused before anything is sent', async (parameters, message) => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'updateStatus', registrationId: 'R1', ...parameters },
			credentials: credentials(),
		});

		expect(errorOf(result)).toEqual({ message, itemIndex: 0 });
		expect(sandbox().requests).toHaveLength(0);
	});

	test('a service refusal keeps its message, and under Continue On Fail the next items still change', async () => {
		const id = seedRegistration();
		sandbox().faultQueue.push({ status: 409, body: { error: 'Status transition not allowed' } });

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'updateStatus', registrationId: id, status: '={{ $json.status }}' },
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

describe('registration: Delete', () => {
	test('DELETEs the registration and says so', async () => {
		const id = seedRegistration();

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: id },
			credentials: credentials(),
		});

		expect(sandbox().requestsTo('DELETE', `/api/registrations/${id}`)).toHaveLength(1);
		expect(result.items).toEqual([{ json: { deleted: true, registrationId: id }, pairedItem: { item: 0 } }]);
		expect(sandbox().state.registrations.has(id)).toBe(false);
	});

	test('each item deletes its own registration; an unknown one becomes an error item under Continue On Fail', async () => {
		const id = seedRegistration();

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: '={{ $json.id }}' },
			credentials: credentials(),
			items: [{ json: { id: 'R404' } }, { json: { id } }, { json: { id: '' } }],
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{ json: { error: 'The service has no registration "R404" (HTTP 404: Registration R404 not found)' }, pairedItem: { item: 0 } },
			{ json: { deleted: true, registrationId: id }, pairedItem: { item: 1 } },
			{ json: { error: 'The Registration ID of item 2 is empty' }, pairedItem: { item: 2 } },
		]);
	});
});
