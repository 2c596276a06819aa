import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { backoffMs, retryAfterMs } from '../../nodes/shared/transport/attemptOutcome';

const { sandbox, credentials } = useSandbox();

/** Fast retries for tests; the defaults (3 retries, 1 s doubling, 30 s timeout) are asserted in the unit tests. */
const fast = { retryDelay: 1, timeout: 2000 };

const listRegistrations = { resource: 'registration', operation: 'getAll', returnAll: true, options: fast };

const createRegistrations = (options: INodeParameters = fast) => ({
	resource: 'registration',
	operation: 'create',
	productName: '={{ $json.product }}',
	customerEmail: '={{ $json.email }}',
	options,
});

const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({
		json: { product: `Kettle ${index}`, email: `c${index}@example.com` },
	}));

const httpCodeOf = (error: unknown) => (error as { httpCode?: string } | undefined)?.httpCode;

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

describe('Retry-After and backoff', () => {
	test('Retry-After in seconds or as an HTTP date, capped at 60 s', () => {
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(retryAfterMs('2', now)).toBe(2000);
		expect(retryAfterMs('0', now)).toBe(0);
		expect(retryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
		expect(retryAfterMs('Sun, 22 Nov 2026 09:59:00 GMT', now)).toBe(0);
		expect(retryAfterMs('3600', now)).toBe(60_000);
		expect(retryAfterMs('soon', now)).toBeUndefined();
		expect(retryAfterMs(undefined, now)).toBeUndefined();
	});

	test('the wait doubles with each retry, half of it random, capped at 30 s', () => {
		expect([1, 2, 3].map((retry) => backoffMs(1000, retry, () => 0))).toEqual([500, 1000, 2000]);
		expect([1, 2, 3].map((retry) => backoffMs(1000, retry, () => 1))).toEqual([1000, 2000, 4000]);
		expect(backoffMs(1000, 10, () => 1)).toBe(30_000);
	});
});

describe('retries that never duplicate', () => {
	test('a 503 on a read is repeated until it succeeds', async () => {
		sandbox().faultQueue.push({ status: 503, body: { message: 'down' } }, { status: 502 }, { status: 504 });

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error).toBeUndefined();
		expect(sandbox().requestsTo('GET', '/api/registrations')).toHaveLength(4);
	});

	test('a 5xx that outlasts the retries says how many attempts were made', async () => {
		sandbox().faultPlan = () => ({ status: 503, body: { message: 'Service Unavailable' } });

		const result = await runNode({ parameters: listRegistrations, credentials: credentials() });

		expect(result.error?.message).toBe('The service answered HTTP 503: Service Unavailable, after 4 attempts');
		expect(httpCodeOf(result.error)).toBe('503');
		expect(sandbox().requests).toHaveLength(4);
	});

	test('Retries 0 makes one attempt', async () => {
		sandbox().faultPlan = () => ({ status: 502, body: '<html><h1>502 Bad Gateway</h1></html>' });

		const result = await runNode({
			parameters: { ...listRegistrations, options: { ...fast, maxRetries: 0 } },
			credentials: credentials(),
		});

		expect(result.error?.message).toBe('The service answered HTTP 502: 502 Bad Gateway, after 1 attempt');
	});

	test('a 429 waits as long as Retry-After says, then the create goes through exactly once', async () => {
		sandbox().faultQueue.push({ status: 429, headers: { 'retry-after': '1' }, body: { message: 'Slow down' } });

		const started = Date.now();
		const result = await runNode({ parameters: createRegistrations(), credentials: credentials(), items: rows(3) });

		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(result.error).toBeUndefined();
		expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(2);
		expect(sandbox().state.registrations.size).toBe(3);
	});

	test('a 429 that never ends spends no Retries: the request fails once refused for (Retries + 1) × Timeout from when it was asked', async () => {
		sandbox().faultPlan = () => ({
			status: 429,
			headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:00 GMT' },
			body: {},
		});

		const started = Date.now();
		const result = await runNode({
			parameters: createRegistrations({ retryDelay: 50, timeout: 1500, maxRetries: 1 }),
			credentials: credentials(),
			items: rows(1),
		});

		expect(result.error?.message).toBe(
			'The service is limiting the rate of requests (HTTP 429). The service kept refusing for as long as this request may take: (Retries + 1) × Timeout = 3 seconds',
		);
		// Sent again at the slowest rate, one request every 2 s, spending no Retries, until its bound: 3 s from the
		// first attempt (a second attempt that spent a Retry would have failed at once, after 2 attempts).
		expect(Date.now() - started).toBeGreaterThanOrEqual(2950);
		expect(Date.now() - started).toBeLessThan(3500);
		expect(sandbox().requestsTo('POST', '/api/registrations').length).toBeGreaterThanOrEqual(2);
		expect(sandbox().mostRequestsInASecond()).toBeLessThanOrEqual(4);
		expect(sandbox().state.registrations.size).toBe(0);
	});

	test('a create that met a 503 is not repeated: the outcome is unknown, and the error says what to check', async () => {
		sandbox().faultQueue.push({ status: 503, body: { message: 'Service Unavailable' } });

		const result = await runNode({ parameters: createRegistrations(), credentials: credentials(), items: rows(2) });

		expect(result.error?.message).toBe(
			'The outcome is unknown: the service answered HTTP 503: Service Unavailable, so the service may or may not have created the 2 registrations of items 0 to 1. The request was not repeated, so that nothing is created twice.',
		);
		expect(result.error?.description).toBe(
			'Check in the shop admin (or with Get Many / Get) what exists before running these items again. Request: POST /api/registrations',
		);
		expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(1);
	});

	test('a create whose connection was reset after the service acted is not repeated, so nothing is created twice', async () => {
		sandbox().faultQueue.push({ resetAfterHandling: true });

		const result = await runNode({
			parameters: createRegistrations(),
			credentials: credentials(),
			items: rows(1),
			continueOnFail: true,
		});

		expect(result.items).toEqual([
			{
				json: {
					error:
						'The outcome is unknown: could not reach the service at ' +
						`${sandbox().baseUrl}: the connection was reset, so the service may or may not have created the registration of item 0. The request was not repeated, so that nothing is created twice.`,
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(sandbox().state.registrations.size).toBe(1);
	});

	test('a status change that timed out is not repeated either', async () => {
		const {
			registrations: [registration],
		} = sandbox().state.createRegistrations([{ productName: 'K' }]);
		sandbox().faultQueue.push({ delayMs: 600 });

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: registration.id,
				status: 'approved',
				options: { ...fast, timeout: 200 },
			},
			credentials: credentials(),
		});

		expect(result.error?.message).toBe(
			`The outcome is unknown: the service at ${sandbox().baseUrl} did not answer within 0.2 seconds, so the service may or may not have created the status change to "approved". The request was not repeated, so that nothing is created twice.`,
		);
		expect(sandbox().requests).toHaveLength(1);
	});

	test('a hung service cannot hang the workflow: reads time out and are repeated', async () => {
		sandbox().faultQueue.push({ delayMs: 600 }, { delayMs: 600 });

		const result = await runNode({
			parameters: { ...listRegistrations, options: { ...fast, timeout: 200, maxRetries: 1 } },
			credentials: credentials(),
		});

		expect(result.error?.message).toBe(
			`The service at ${sandbox().baseUrl} did not answer within 0.2 seconds, after 2 attempts`,
		);
		expect(result.error?.description).toBe(
			'Raise Options > Timeout if the service is just slow. Request: GET /api/registrations',
		);
	});

	test('a refused connection is repeated even for a create: nothing reached the service', async () => {
		const port = await closedPort();

		const result = await runNode({
			parameters: createRegistrations({ ...fast, maxRetries: 2 }),
			credentials: { ...credentials(), baseUrl: `http://127.0.0.1:${port}` },
			items: rows(1),
		});

		expect(result.error?.message).toBe(
			`Could not reach the service at http://127.0.0.1:${port}: the connection was refused, after 3 attempts`,
		);
	});

	test('malformed JSON is repeated for a read and an unknown outcome for a create', async () => {
		sandbox().faultQueue.push({ status: 200, body: '{"registrations": [' });
		const read = await runNode({ parameters: listRegistrations, credentials: credentials() });
		expect(read.error).toBeUndefined();
		expect(sandbox().requests).toHaveLength(2);

		sandbox().faultQueue.push({
			status: 200,
			body: '{"registrations": [',
			headers: { 'content-type': 'application/json' },
		});
		const create = await runNode({ parameters: createRegistrations(), credentials: credentials(), items: rows(1) });
		expect(create.error?.message).toBe(
			'The outcome is unknown: the service answered HTTP 200 with something that is not JSON (application/json: "{\\"registrations\\": ["), so the service may or may not have created the registration of item 0. The request was not repeated, so that nothing is created twice.',
		);
	});

	test('a delete whose answer was lost is repeated, and "not found" then means it is done', async () => {
		const {
			registrations: [registration],
		} = sandbox().state.createRegistrations([{ productName: 'K' }]);
		sandbox().faultQueue.push({ resetAfterHandling: true });

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: registration.id, options: fast },
			credentials: credentials(),
		});

		expect(result.items).toEqual([
			{ json: { deleted: true, registrationId: registration.id }, pairedItem: { item: 0 } },
		]);
		expect(sandbox().requestsTo('DELETE', `/api/registrations/${registration.id}`)).toHaveLength(2);
	});

	test('an update is repeated after a reset: PUT sets the same fields again', async () => {
		const {
			registrations: [registration],
		} = sandbox().state.createRegistrations([{ productName: 'K' }]);
		sandbox().faultQueue.push({ resetBeforeHandling: true });

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'update',
				registrationId: registration.id,
				updateFields: { productName: 'Kettle K2' },
				options: fast,
			},
			credentials: credentials(),
		});

		expect(result.items[0].json).toMatchObject({ id: registration.id, productName: 'Kettle K2' });
	});

	test.each([
		[{ timeout: 0 }, "The 'Timeout' option must be a whole number from 1 to 3600000, not 0 [item 0]"],
		[{ maxRetries: 11 }, "The 'Retries' option must be a whole number from 0 to 10, not 11 [item 0]"],
		[{ retryDelay: -1 }, "The 'Retry Wait' option must be a whole number from 0 to 600000, not -1 [item 0]"],
	])('option %j is refused, naming the item', async (options, message) => {
		const result = await runNode({ parameters: { ...listRegistrations, options }, credentials: credentials() });

		expect(result.error?.message).toBe(message);
		expect(sandbox().requests).toHaveLength(0);
	});
});

describe('the token stays with the service', () => {
	test('a redirect of a create to another host is not followed and sends nothing there', async () => {
		const seen: string[] = [];
		const elsewhere = createServer((request, response) => {
			seen.push(JSON.stringify(request.headers));
			response.end('{}');
		});
		await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
		const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/collect`;
		sandbox().faultQueue.push({ status: 307, headers: { location: target }, body: {} });

		const result = await runNode({ parameters: createRegistrations(), credentials: credentials(), items: rows(1) });
		await new Promise((resolve) => elsewhere.close(resolve));

		expect(result.error?.message).toBe(
			`The service answered with a redirect (HTTP 307 to ${target}), which the node does not follow so that the access token stays with the service`,
		);
		expect(seen).toEqual([]);
	});
});
