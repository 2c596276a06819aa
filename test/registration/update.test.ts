import { seedRegistration, useSandbox } from '../../harness/sandbox';
import { errorOf, runNode } from '../../harness/workflowRunner';

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
		[{ registrationId: '  ', updateFields: { productName: 'X' } }, 'The Registration ID of item 0 is empty'],
		[
			{ registrationId: '..', updateFields: { productName: 'X' } },
			'The Registration ID of item 0 cannot be sent in a URL path: ".." is read as a folder step',
		],
		[
			{ registrationId: 'R1', updateFields: {} },
			'Nothing to update for item 0: add at least one field under Update Fields',
		],
		[
			{ registrationId: 'R1', updateFields: { customerEmail: 'nope' } },
			'The Customer Email of item 0 is not an email address: "nope"',
		],
		[
			{ registrationId: 'R1', updateFields: { extraFieldsJson: '"text"' } },
			'The Extra Fields (JSON) of item 0 must be a JSON object like {"greetings": "hi"}, not "\\"text\\""',
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
