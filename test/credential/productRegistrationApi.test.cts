import { ProductRegistrationApi } from '../../credentials/ProductRegistrationApi.credentials';
import { testCredential } from '../../harness/editorCalls.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';

const { sandbox, credentials } = useSandbox();

const listRegistrations = { resource: 'registration', operation: 'getAll', returnAll: true };

describe('credential', () => {
	test('the engine sends the token as "Authorization: Bearer <token>" and nowhere else, naming the package as User-Agent', async () => {
		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error).toBeUndefined();
		const [request] = sandbox().requestsTo('GET', '/api/registrations');
		expect(request.headers.authorization).toBe(`Bearer ${sandbox().token}`);
		expect(request.headers['user-agent']).toBe('n8n-nodes-product-registration');
		expect(request.url).not.toContain(sandbox().token);
		expect(request.body).toBeUndefined();
	});

	test('a wrong token fails the run with a credential error that says where to get a new one', async () => {
		const result = await runNode({
			parameters: listRegistrations,
			credentials: { ...credentials(), accessToken: 'not-the-token' },
		});

		expect(result.error?.message).toBe('The service rejected the access token (HTTP 401): Invalid access token');
		expect(result.error?.description).toContain(
			'Generate a new token in the shop admin under Apps > the product-registration app > Settings > General > API Access Token',
		);
		expect((result.error as { httpCode?: string }).httpCode).toBe('401');
		expect(JSON.stringify(result.error)).not.toContain('not-the-token');
	});

	test('under Continue On Fail a wrong token becomes an error item linked to its input', async () => {
		const result = await runNode({
			parameters: listRegistrations,
			credentials: { ...credentials(), accessToken: 'not-the-token' },
			items: [{ json: { row: 1 } }, { json: { row: 2 } }],
			continueOnFail: true,
		});

		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([
			{
				json: { error: 'The service rejected the access token (HTTP 401): Invalid access token' },
				pairedItem: { item: 0 },
			},
			{
				json: { error: 'The service rejected the access token (HTTP 401): Invalid access token' },
				pairedItem: { item: 1 },
			},
		]);
	});

	test.each([
		['ftp://registrations.example.com', 'must start with https:// or http://, not ftp://'],
		[
			'https://admin:secret@registrations.example.com',
			'must not contain a user name or password; the access token is the only credential needed',
		],
		['admin:secret@registrations.example.com', 'must start with https:// or http://, not admin://'],
		['registrations.example.com', 'is not a web address'],
	])('the base URL %s is refused before anything is sent', async (baseUrl, reason) => {
		const result = await runNode({
			parameters: listRegistrations,
			credentials: { ...credentials(), baseUrl },
		});

		expect(result.error?.message).toBe(`The Base URL in the Product Registration API credential ${reason}`);
		expect(sandbox().requests).toHaveLength(0);
		expect(JSON.stringify(result.error)).not.toContain('secret');
	});

	test("the credential's Test button, run as n8n runs it, says OK for the right token and Error for a wrong one", async () => {
		const credential = new ProductRegistrationApi();
		const test = async (accessToken: string) =>
			await testCredential(credential, { baseUrl: `${sandbox().baseUrl}//`, accessToken });

		expect(await test(sandbox().token)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect((await test('not-the-token')).status).toBe('Error');
		// n8n's helper asks once more after a 401 (to refresh tokens that can be refreshed); each ask is the same read.
		expect(new Set(sandbox().requests.map(({ method, url }) => `${method} ${url}`))).toEqual(
			new Set(['GET /api/registrations?page=1&limit=1']),
		);
		expect(sandbox().requests[0].headers.authorization).toBe(`Bearer ${sandbox().token}`);
	});
});
