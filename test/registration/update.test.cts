import { inlineItem, inlineReceipt, storedKey } from '../../harness/receipts.cts';
import { seedRegistration, useSandbox } from '../../harness/sandbox.cts';
import { errorOf, runNode } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

describe('registration: Update', () => {
	test('PUTs the changed fields under `registration`, extra form fields under `fields`', async () => {
		const id = seedRegistration(sandbox());

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
				json: expect.objectContaining({
					id,
					productName: 'Kettle K2',
					fields: { greetings: 'hello again', color: 'blue' },
				}),
				pairedItem: { item: 0 },
			},
		]);
	});

	test('an ID with "/" or spaces stays one path segment', async () => {
		await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: 'A/1 2',
				updateFields: { productName: 'X' },
			},
			credentials: credentials(),
			continueOnFail: true,
		});

		expect(sandbox().requests[0].url).toBe('/api/registrations/A%2F1%202');
	});

	test('an unknown ID comes back with the service message and 404', async () => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: 'R404',
				updateFields: { productName: 'X' },
			},
			credentials: credentials(),
		});

		expect(result.error?.message).toBe(
			'The service has no registration "R404" (HTTP 404: Registration R404 not found)',
		);
		expect((result.error as { httpCode?: string }).httpCode).toBe('404');
	});

	test.each([
		[{ registrationId: '  ', updateFields: { productName: 'X' } }, "The 'Registration' ID is empty [item 0]"],
		[
			{ registrationId: '..', updateFields: { productName: 'X' } },
			`The 'Registration' ID cannot be sent in a URL path: ".." is read as a folder step [item 0]`,
		],
		[
			{ registrationId: 'R1', updateFields: {} },
			"Nothing to update: add at least one field under 'Update Fields' [item 0]",
		],
		[
			{ registrationId: 'R1', updateFields: { customerEmail: 'nope' } },
			`The 'Customer Email' is not an email address: "nope" [item 0]`,
		],
		[
			{ registrationId: 'R1', updateFields: { extraFieldsJson: '"text"' } },
			`The 'Extra Fields (JSON)' must be a JSON object like {"greetings": "hi"}, not "\\"text\\"" [item 0]`,
		],
	])('bad input %j is refused before anything is sent', async (parameters, message) => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'update', ...parameters },
			credentials: credentials(),
		});

		expect(errorOf(result)).toEqual({ message, itemIndex: 0 });
		expect(sandbox().requests).toHaveLength(0);
	});
});

describe('registration: Update with files', () => {
	test('uploads the file first and sends its URL under fields; the output says which file went where', async () => {
		const id = seedRegistration(sandbox());

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: id,
				updateFields: { files: { file: [{ binaryPropertyName: 'data', fieldName: 'receipt' }] } },
			},
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error).toBeUndefined();
		const [request] = sandbox().requestsTo('PUT', `/api/registrations/${id}`);
		const { receipt } = (request.body as { registration: { fields: { receipt: string } } }).registration.fields;
		expect(request.body).toEqual({ registration: { fields: { receipt } } });
		expect(await sandbox().storage.readObject(storedKey(receipt))).toEqual(inlineReceipt);
		expect(result.items[0].json.files).toEqual([
			{
				field: 'receipt',
				url: receipt,
				fileName: 'receipt.pdf',
				fileType: 'application/pdf',
				fileSize: inlineReceipt.length,
			},
		]);
	});

	test('a file that cannot be uploaded changes nothing, and the error names the item and the binary field', async () => {
		const id = seedRegistration(sandbox());
		sandbox().uploadUrlTtlSeconds = -60;

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: id,
				updateFields: { productName: 'Kettle K2', files: { file: [{ binaryPropertyName: 'data' }] } },
			},
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(errorOf(result)).toEqual({
			message: expect.stringMatching(/^The file in the binary field 'data' could not be uploaded, .* \[item 0\]$/),
			itemIndex: 0,
		});
		expect(sandbox().requestsTo('PUT', `/api/registrations/${id}`)).toHaveLength(0);
	});
});

describe('registration: Update, Simplify (version 1.1, on by default)', () => {
	test('the updated registration comes out compact; a node of version 1 gives it whole, as before 0.6', async () => {
		const id = seedRegistration(sandbox());
		const parameters = {
			resource: 'registration',
			operation: 'update',
			registrationId: id,
			updateFields: { customerName: 'Ann Lee-Smith' },
		};

		const simplified = await runNode({ parameters, credentials: credentials(), typeVersion: 1.1 });
		const savedBefore06 = await runNode({ parameters, credentials: credentials() });

		expect(simplified.items.map((item) => item.json)).toEqual([
			{ id, productName: 'Kettle K1', customerName: 'Ann Lee-Smith', customerEmail: 'ann.lee@example.com' },
		]);
		expect(savedBefore06.items[0].json).toMatchObject({ id, fields: { greetings: 'hi' }, statusHistory: [] });
	});
});
