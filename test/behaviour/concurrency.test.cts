import type { INodeExecutionData } from 'n8n-workflow';

import { PAST_CAUTIOUS_START_LATENCY_MS, useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { seededRandom } from '../../sandbox/random.cts';

const { sandbox, credentials } = useSandbox();

const serials = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({ json: { serial: `S-${index}` } }));

const getSerial = (options: Record<string, number> = {}) => ({
	resource: 'serialNumber',
	operation: 'get',
	serialNumber: '={{ $json.serial }}',
	options: { retryDelay: 1, ...options },
});

function seedSerials(count: number) {
	sandbox().state.createSerialNumbers(serials(count).map((item) => ({ serialNumber: item.json.serial as string })));
}

describe('bounded concurrency', () => {
	test('keeps at most Concurrency requests in flight, and the outputs in input order', async () => {
		seedSerials(60);
		sandbox().latencyMs = PAST_CAUTIOUS_START_LATENCY_MS;
		const random = seededRandom(3);
		sandbox().faultPlan = () => ({ delayMs: Math.floor(random() * 15) });

		const result = await runNode({
			parameters: getSerial({ concurrency: 7 }),
			credentials: credentials(),
			items: serials(60),
		});

		expect(sandbox().peakInFlight).toBe(7);
		expect(result.items.map((item) => [item.pairedItem, item.json.serialNumber])).toEqual(
			serials(60).map((item, index) => [{ item: index }, item.json.serial]),
		);
	});

	test('the default runs 50 at once', async () => {
		seedSerials(200);
		sandbox().latencyMs = 20;

		await runNode({ parameters: getSerial(), credentials: credentials(), items: serials(200) });

		expect(sandbox().peakInFlight).toBe(50);
	});

	test('a rate-limited service slows the run down instead of failing it', async () => {
		seedSerials(200);
		sandbox().latencyMs = 5;
		// The account allows 4 requests at once; more get 429 with a Retry-After of 0.
		sandbox().faultPlan = () =>
			sandbox().inFlight > 4
				? { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } }
				: undefined;

		const result = await runNode({
			parameters: getSerial({ concurrency: 32, maxRetries: 10 }),
			credentials: credentials(),
			items: serials(200),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.filter((item) => item.json.found === true)).toHaveLength(200);
		const refused = sandbox().requests.length - 200;
		// Without backing off, about 28 of every 32 requests in flight would be refused, again and again.
		expect(refused).toBeLessThan(200);
	});

	test('without Continue On Fail, the earliest failing item is reported and no new items start after a failure', async () => {
		seedSerials(100);
		sandbox().latencyMs = 5;
		sandbox().faultPlan = (request) =>
			['/api/serial_numbers/S-30', '/api/serial_numbers/S-31'].includes(request.path)
				? { status: 400, body: { message: `Refused ${request.path.slice(20)}` } }
				: undefined;

		const result = await runNode({
			parameters: getSerial({ concurrency: 5 }),
			credentials: credentials(),
			items: serials(100),
		});

		expect(result.error?.message).toBe('The service answered HTTP 400: Refused S-30');
		expect((result.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(30);
		expect(sandbox().requests.length).toBeLessThan(40);
	});

	test('with Continue On Fail, failures become error items in place and every other item is processed', async () => {
		seedSerials(50);
		sandbox().faultPlan = (request) =>
			request.path.endsWith('-7') ? { status: 400, body: { message: 'Refused' } } : undefined;

		const result = await runNode({
			parameters: getSerial({ concurrency: 9 }),
			credentials: credentials(),
			items: serials(50),
			continueOnFail: true,
		});

		expect(result.items).toHaveLength(50);
		expect(result.items[7]).toEqual({
			json: { error: 'The service answered HTTP 400: Refused' },
			pairedItem: { item: 7 },
		});
		expect(result.items.filter((item) => item.json.error === undefined)).toHaveLength(49);
	});

	test.each([[0], [101]])('a Concurrency of %j is refused', async (concurrency) => {
		const result = await runNode({
			parameters: getSerial({ concurrency }),
			credentials: credentials(),
			items: serials(1),
		});

		expect(result.error?.message).toBe(
			`The 'Concurrency' option must be a whole number from 1 to 100, not ${concurrency} [item 0]`,
		);
	});
});
