import { randomBytes } from 'node:crypto';
import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import type { Misbehaviour, MisbehavingServer } from '../../harness/misbehavingServer.cts';
import { startMisbehavingServer } from '../../harness/misbehavingServer.cts';
import { connectionsTo, eventually, openBinaryFiles } from '../../harness/openHandles.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { nodeTypes, PRODUCT_REGISTRATION_TYPE, runNode, storeBinary } from '../../harness/workflowRunner.cts';

/**
 * Services that fail over time, on real sockets: an answer that trickles, a socket that never answers, a body that
 * stops half way, a storage that reads a byte a second. The Timeout bounds each request as a whole, Stop ends what
 * is in flight, and nothing is left open or sent twice.
 */

const { sandbox, credentials } = useSandbox();

const TIMEOUT_MS = 2000;
/** What a run may take beyond the deadline: the engine, the error's way out, a busy machine. */
const SLACK_MS = 1000;

let server: MisbehavingServer | undefined;
afterEach(async () => {
	await server?.stop();
	server = undefined;
});

async function misbehavingService(mode: Misbehaviour) {
	server = await startMisbehavingServer(mode);
	return { baseUrl: server.url, accessToken: 'token-of-the-slow-service' };
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
	const started = Date.now();
	const result = await work();
	return { result, ms: Date.now() - started };
}

/** Resolves with the time the Product Registration node's execute() returned (or threw), for Stop tests. */
function whenTheNodeReturns(): { returned: Promise<number>; restore: () => void } {
	const nodeType = nodeTypes.getByNameAndVersion(PRODUCT_REGISTRATION_TYPE, 1) as INodeType;
	const execute = nodeType.execute!;
	let settle: (at: number) => void = () => undefined;
	const returned = new Promise<number>((resolve) => (settle = resolve));
	nodeType.execute = async function (this: IExecuteFunctions) {
		try {
			return await execute.call(this);
		} finally {
			settle(Date.now());
		}
	};
	return { returned, restore: () => delete (nodeType as { execute?: unknown }).execute };
}

const getMany = (options: Record<string, number>) => ({
	resource: 'registration',
	operation: 'getAll',
	returnAll: true,
	options,
});

describe.each<[Misbehaviour, string]>([
	['trickle', 'sends its headers, then a byte a second'],
	['silent', 'never answers'],
	['halfBody', 'stops half way through its answer'],
])('a service that %s', (mode) => {
	test('Get Many with Timeout 2 s and Retries 0 fails within Timeout + 1 s, says so, and leaves no socket open', async () => {
		const service = await misbehavingService(mode);

		const { result, ms } = await timed(() =>
			runNode({ parameters: getMany({ timeout: TIMEOUT_MS, maxRetries: 0 }), credentials: service }),
		);

		expect(result.error?.message).toBe(
			`The service at ${server!.url} did not answer within 2 seconds, after 1 attempt`,
		);
		expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
		expect(await eventually(() => server!.openConnections() === 0)).toBe(true);
	}, 15_000);

	test('a create is sent once and reported as an unknown outcome, never repeated', async () => {
		const service = await misbehavingService(mode);

		const { result, ms } = await timed(() =>
			runNode({
				parameters: {
					resource: 'registration',
					operation: 'create',
					productName: 'Kettle K1',
					customerEmail: 'ann@example.com',
					options: { timeout: TIMEOUT_MS, maxRetries: 3, retryDelay: 1 },
				},
				credentials: service,
			}),
		);

		expect(result.error?.message).toBe(
			`The outcome is unknown: the service at ${server!.url} did not answer within 2 seconds, so the service may or may not have created the registration of item 0. The request was not repeated, so that nothing is created twice.`,
		);
		expect(server!.requests).toEqual(['POST /api/registrations']);
		expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
	}, 15_000);
});

test('a read that timed out is repeated: Retries 1 makes two attempts, within 2 × Timeout + the wait + 1 s', async () => {
	const service = await misbehavingService('trickle');

	const { result, ms } = await timed(() =>
		runNode({ parameters: getMany({ timeout: TIMEOUT_MS, maxRetries: 1, retryDelay: 100 }), credentials: service }),
	);

	expect(result.error?.message).toBe(`The service at ${server!.url} did not answer within 2 seconds, after 2 attempts`);
	// The list's first window, asked twice.
	expect(server!.requests).toHaveLength(2);
	expect(server!.requests[1]).toBe(server!.requests[0]);
	expect(server!.requests[0]).toMatch(/^GET \/api\/registrations\?page=1&limit=\d+$/);
	expect(ms).toBeLessThan(2 * TIMEOUT_MS + 100 + SLACK_MS);
}, 15_000);

test('an upload to a storage that reads a byte a second fails within the idle limit (Timeout) + 1 s, closing its file', async () => {
	const storage = await startMisbehavingServer('slowReader');
	server = storage;
	sandbox().faultQueue.push({
		status: 200,
		body: { signedRequest: `${storage.url}/receipts/big.tiff?Signature=x`, url: `${storage.url}/receipts/big.tiff` },
	});
	const binary = await storeBinary(randomBytes(48 * 1024 * 1024), { fileName: 'big.tiff', mimeType: 'image/tiff' });

	const { result, ms } = await timed(() =>
		runNode({
			parameters: { resource: 'file', operation: 'upload', options: { timeout: TIMEOUT_MS } },
			credentials: credentials(),
			items: [{ json: {}, binary: { data: binary } }],
		}),
	);

	expect(result.error?.message).toBe(
		'Could not upload "big.tiff" to the storage: the storage took no data for 2 seconds before the upload completed. The file is not stored; run the step again.',
	);
	expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS + 1000);
	expect(await eventually(() => connectionsTo(storage.port) === 0 && openBinaryFiles().length === 0)).toBe(true);
}, 20_000);

describe('Stop', () => {
	let tracked: ReturnType<typeof whenTheNodeReturns>;
	beforeEach(() => (tracked = whenTheNodeReturns()));
	afterEach(() => tracked.restore());

	test('ends every request in flight: the node returns within 1 s and sends nothing afterwards', async () => {
		const items = Array.from({ length: 80 }, (_, index) => ({ json: { serial: `SN-${index}` } }));
		// The first 40 answer; the next 20 (Concurrency) hang.
		sandbox().faultPlan = () => (sandbox().requests.length > 40 ? { delayMs: 10_000 } : { delayMs: 20 });
		let stoppedAt = 0;
		const stop = (async () => {
			await eventually(() => sandbox().requests.length >= 60 && sandbox().inFlight >= 20, 5000);
			stoppedAt = Date.now();
		})();

		const run = await runNode({
			parameters: {
				resource: 'serialNumber',
				operation: 'get',
				serialNumber: '={{ $json.serial }}',
				options: { timeout: 60_000, concurrency: 20 },
			},
			credentials: credentials(),
			items,
			continueOnFail: true,
			stop,
		});

		expect(run.error).toBeUndefined();
		expect((await tracked.returned) - stoppedAt).toBeLessThan(1000);
		const sentWhenStopped = sandbox().requests.length;
		expect(sentWhenStopped).toBe(60);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(sandbox().requests.length).toBe(sentWhenStopped);
		expect(await eventually(() => connectionsTo(Number(new URL(sandbox().baseUrl).port)) === 0)).toBe(true);
	}, 15_000);

	test('ends a wait between retries at once', async () => {
		sandbox().faultPlan = () => ({ status: 503, headers: { 'retry-after': '60' }, body: { message: 'down' } });
		let stoppedAt = 0;
		const stop = (async () => {
			await eventually(() => sandbox().requests.length >= 1, 5000);
			stoppedAt = Date.now();
		})();

		await runNode({ parameters: getMany({ maxRetries: 3 }), credentials: credentials(), stop });

		expect((await tracked.returned) - stoppedAt).toBeLessThan(1000);
		expect(sandbox().requests).toHaveLength(1);
	}, 15_000);

	test('ends an upload in flight and closes its file', async () => {
		const storage = await startMisbehavingServer('slowReader');
		server = storage;
		sandbox().faultQueue.push({
			status: 200,
			body: { signedRequest: `${storage.url}/receipts/big.tiff?Signature=x`, url: `${storage.url}/receipts/big.tiff` },
		});
		const binary = await storeBinary(randomBytes(48 * 1024 * 1024), { fileName: 'big.tiff', mimeType: 'image/tiff' });
		let stoppedAt = 0;
		const stop = (async () => {
			await eventually(() => storage.requests.length >= 1, 5000);
			stoppedAt = Date.now();
		})();

		await runNode({
			parameters: { resource: 'file', operation: 'upload', options: { timeout: 60_000 } },
			credentials: credentials(),
			items: [{ json: {}, binary: { data: binary } }],
			stop,
		});

		expect((await tracked.returned) - stoppedAt).toBeLessThan(1000);
		expect(await eventually(() => connectionsTo(storage.port) === 0 && openBinaryFiles().length === 0)).toBe(true);
	}, 20_000);
});
