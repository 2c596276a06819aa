import type { INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { getSerials, serials, timed } from '../../harness/serialLookups.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { retryAfterMs } from '../../nodes/shared/transport/attemptOutcome';

/**
 * The pace where the service refuses in ways a steady limit does not: for good, with a date in its own clock, with a
 * Retry-After that is no delay — through n8n's engine against the sandbox, on both engine lines.
 */

const { sandbox, credentials } = useSandbox();

const found = (items: INodeExecutionData[]) => items.filter((item) => item.json.found === true).length;

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

const seedSerials = (count: number) =>
	sandbox().state.createSerialNumbers(serials(count).map((item) => ({ serialNumber: item.json.serial as string })));

test('100 lookups (Concurrency 50), Timeout 0.5 s, Retries 1, the service refusing every request (429, Retry-After 0): every item fails in about its bound of 1 s, held or refused, the run within 5 s', async () => {
	sandbox().refuse({ everyRequest: 'forGood', retryAfter: 'zero' });
	let stoppedAt = 0;
	const stop = (async () => {
		await sleep(20_000);
		stoppedAt = Date.now();
	})();

	const { result, seconds } = await timed(() =>
		runNode({
			parameters: getSerials({ timeout: 500, maxRetries: 1 }),
			credentials: credentials(),
			items: serials(100),
			continueOnFail: true,
			stop,
		}),
	);

	expect(stoppedAt).toBe(0);
	expect(result.items.filter((item) => item.json.error !== undefined)).toHaveLength(100);
	for (const item of result.items)
		expect(JSON.stringify(item.json.error)).toContain(
			'kept refusing for as long as this request may take: (Retries + 1) × Timeout = 1 second',
		);
	expect(seconds).toBeLessThan(5);
}, 30_000);

test('a Retry-After date from a service whose clock is 10 s ahead (its Date header says so): the refused lookup waits the 1 s asked, not 11 s', async () => {
	seedSerials(5);
	sandbox().dateHeaderAheadMs = 10_000;
	// The service asks to come back in 1 s, by its own clock (the same clock as its Date header).
	sandbox().faultPlan = (request) =>
		sandbox().requests.indexOf(request) === 0
			? {
					status: 429,
					headers: { 'retry-after': new Date(Date.now() + 10_000 + 1000).toUTCString() },
					body: { message: 'Too many requests' },
				}
			: undefined;

	const { result, seconds } = await timed(() =>
		runNode({ parameters: getSerials(), credentials: credentials(), items: serials(5) }),
	);

	expect(found(result.items)).toBe(5);
	expect(seconds).toBeLessThan(4);
}, 30_000);

describe('malformed Retry-After headers', () => {
	test.each([['-1'], ['+5'], ['3.'], ['1, 2']])(
		'Retry-After %j is neither delay-seconds nor an HTTP-date (RFC 9110 §10.2.3): read as absent, not as a date in 2001',
		(header) => {
			expect(retryAfterMs(header)).toBeUndefined();
		},
	);

	test('a bare 503 is a passing error, retried after the Retry Wait; a 503 whose Retry-After is junk ("-1") is no different: not sent again at once', async () => {
		seedSerials(1);
		for (let index = 0; index < 2; index++)
			sandbox().faultQueue.push({
				status: 503,
				headers: { 'retry-after': '-1' },
				body: { message: 'Service Unavailable' },
			});

		const result = await runNode({
			parameters: getSerials({ retryDelay: 1000, maxRetries: 3 }),
			credentials: credentials(),
			items: serials(1),
		});

		expect(found(result.items)).toBe(1);
		const at = sandbox().requests.map((request) => request.receivedAt);
		// Retry Wait 1 s, doubling, half of each step fixed: at least 500 ms, then 1 s.
		expect(at.slice(1).map((time, index) => time - at[index] >= 500)).toEqual([true, true]);
	}, 15_000);
});

test('Stop while the run waits for the rate ends it at once, and nothing more is sent', async () => {
	seedSerials(60);
	sandbox().limitRate({ perSecond: 2, burst: 2, retryAfter: true });
	let stoppedAt = 0;
	let sentAtStop = 0;
	const stop = (async () => {
		await sleep(2500);
		stoppedAt = Date.now();
		sentAtStop = sandbox().requests.length;
	})();

	const { result } = await timed(() =>
		runNode({ parameters: getSerials(), credentials: credentials(), items: serials(60), continueOnFail: true, stop }),
	);
	const endedAt = Date.now();
	await sleep(1500);

	expect(result.items).toEqual([]);
	expect(endedAt - stoppedAt).toBeLessThan(1000);
	expect(sandbox().requests.length - sentAtStop).toBeLessThanOrEqual(1);
}, 20_000);
