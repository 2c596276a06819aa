import { seedRegistration, useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

describe('registration: Delete', () => {
	test('DELETEs the registration and says so', async () => {
		const id = seedRegistration(sandbox());

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: id },
			credentials: credentials(),
		});

		expect(sandbox().requestsTo('DELETE', `/api/registrations/${id}`)).toHaveLength(1);
		expect(result.items).toEqual([{ json: { deleted: true, registrationId: id }, pairedItem: { item: 0 } }]);
		expect(sandbox().state.registrations.has(id)).toBe(false);
	});

	test('each item deletes its own registration; an unknown one becomes an error item under Continue On Fail', async () => {
		const id = seedRegistration(sandbox());

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: '={{ $json.id }}' },
			credentials: credentials(),
			items: [{ json: { id: 'R404' } }, { json: { id } }, { json: { id: '' } }],
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{
				json: { error: 'The service has no registration "R404" (HTTP 404: Registration R404 not found)' },
				pairedItem: { item: 0 },
			},
			{ json: { deleted: true, registrationId: id }, pairedItem: { item: 1 } },
			{ json: { error: "The 'Registration' ID is empty [item 2]" }, pairedItem: { item: 2 } },
		]);
	});
});
