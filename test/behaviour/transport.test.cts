import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INode } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { describeErrorBody } from '../../nodes/shared/transport/quotedAnswer';
import { serviceRoot, serviceUrl } from '../../nodes/shared/transport/session';

const { sandbox, credentials } = useSandbox();

const listRegistrations = { resource: 'registration', operation: 'getAll', returnAll: true };
const node = { name: 'Product Registration' } as INode;

/** The address of an API path for a credential with this Base URL. */
const urlFor = (baseUrl: string, itemIndex = 0) =>
	serviceUrl(node, { root: serviceRoot(baseUrl), authorization: '', token: '' }, 'registrations', itemIndex);

describe('the service URL', () => {
	test.each([
		['https://shop.example.com', 'https://shop.example.com/api/registrations'],
		['https://shop.example.com/', 'https://shop.example.com/api/registrations'],
		['https://shop.example.com///', 'https://shop.example.com/api/registrations'],
		['https://shop.example.com/api/', 'https://shop.example.com/api/registrations'],
		['  http://127.0.0.1:8080/apps/registration  ', 'http://127.0.0.1:8080/apps/registration/api/registrations'],
	])('%s + registrations = %s', (baseUrl, expected) => {
		expect(urlFor(baseUrl)).toBe(expected);
	});

	test('a base URL with a query is refused', () => {
		expect(() => urlFor('https://shop.example.com/?token=abc', 3)).toThrow(
			'The Base URL in the Product Registration API credential must not contain a query (?...) or a fragment (#...)',
		);
	});
});

describe('describeErrorBody', () => {
	test.each([
		[{ message: 'Registration not found' }, 'Registration not found'],
		[{ error: { message: 'Form is closed' } }, 'Form is closed'],
		[{ errors: ['email is invalid', 'date is missing'] }, 'email is invalid; date is missing'],
		[
			'<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>',
			'502 Bad Gateway nginx',
		],
		['upstream timed out', 'upstream timed out'],
		[{ unexpected: true }, '{"unexpected":true}'],
		[undefined, ''],
	])('%j reads as %j', (body, expected) => {
		expect(describeErrorBody(body)).toBe(expected);
	});
});

describe('service failures through the engine', () => {
	test('a JSON error keeps the service message and HTTP status', async () => {
		sandbox().faultQueue.push({ status: 422, body: { message: 'limit is too large' } });

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error?.message).toBe('The service answered HTTP 422: limit is too large');
		expect((result.error as { httpCode?: string }).httpCode).toBe('422');
		expect(result.error?.description).toBe('Request: GET /api/registrations');
	});

	test('an HTML error page becomes one readable line', async () => {
		sandbox().faultQueue.push({
			status: 500,
			body: '<html><body><h1>Internal Server Error</h1><p>Try later</p></body></html>',
		});

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error?.message).toBe('The service answered HTTP 500: Internal Server Error Try later');
		expect(sandbox().requests).toHaveLength(1);
	});

	test('a service message that echoes the token never shows it', async () => {
		sandbox().faultQueue.push({ status: 400, body: { message: `Bad token ${sandbox().token} for this shop` } });

		const result = await runNode({
			parameters: listRegistrations,
			credentials: credentials(),
			items: [{ json: {} }],
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{
				json: { error: 'The service answered HTTP 400: Bad token [access token] for this shop' },
				pairedItem: { item: 0 },
			},
		]);
	});

	test('204 No Content is an empty answer, not an error', async () => {
		sandbox().faultQueue.push({ status: 204 });

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
	});

	test('a refused connection names the address and what to check', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise((resolve) => closed.close(resolve));

		const result = await runNode({
			parameters: { ...listRegistrations, options: { retryDelay: 1 } },
			credentials: { ...credentials(), baseUrl: `http://127.0.0.1:${port}` },
		});

		expect(result.error?.message).toBe(
			`Could not reach the service at http://127.0.0.1:${port}: the connection was refused, after 4 attempts`,
		);
		expect(result.error?.description).toBe(
			'Check the Base URL in the credential and that the service is running. Request: GET /api/registrations',
		);
	});

	test('a redirect to another host is not followed, so the token never reaches it', async () => {
		const received: IncomingHttpHeaders[] = [];
		const otherHost = createServer((request, response) => {
			received.push(request.headers);
			response.end('[]');
		});
		await new Promise<void>((resolve) => otherHost.listen(0, '127.0.0.1', resolve));
		const elsewhere = `http://127.0.0.1:${(otherHost.address() as AddressInfo).port}/api/registrations`;
		sandbox().faultQueue.push({ status: 307, headers: { location: elsewhere }, body: {} });

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });
		await new Promise((resolve) => otherHost.close(resolve));

		expect(result.error?.message).toBe(
			`The service answered with a redirect (HTTP 307 to ${elsewhere}), which the node does not follow so that the access token stays with the service`,
		);
		expect(received).toEqual([]);
	});
});
