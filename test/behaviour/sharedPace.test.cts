import { useSandbox } from '../../harness/sandbox.cts';
import { getSerials, serials, timed } from '../../harness/serialLookups.cts';
import { paceAgainst } from '../../harness/virtualPace.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { retryAfterMs } from '../../nodes/shared/transport/attemptOutcome';
import { DEFAULT_REQUEST_POLICY } from '../../nodes/shared/transport/serviceRequest';
import type { ServicePace } from '../../nodes/shared/transport/servicePace';
import { servicePace } from '../../nodes/shared/transport/servicePace';

/**
 * Which runs share a pace (transport/servicePace.ts): runs in one n8n process that send to the same service with the
 * same Options join the pace started for them in the last minute. What sharing must bring (one pace learned, not
 * one per execution), and what it must not: one execution's Options governing another's requests, a rate learned in a
 * busy spell holding later runs back for good, two shops' tokens taken for one.
 */

const { sandbox, credentials } = useSandbox();

const until = async (condition: () => boolean) => {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
};

test('30 form submissions at once, each an execution that creates one registration, against 10 a second: they learn one pace, with at most 2 refused, and nothing is lost or made twice', async () => {
	sandbox().limitRate({ perSecond: 10, burst: 10, retryAfter: true });
	const submission = (index: number) => [{ json: { Product: 'Kettle K1', Email: `buyer${index}@example.com` } }];

	const { result: runs, seconds } = await timed(() =>
		Promise.all(
			Array.from({ length: 30 }, (_, index) =>
				runNode({
					parameters: { resource: 'registration', operation: 'create', dataMode: 'autoMapInputData' },
					credentials: credentials(),
					items: submission(index),
				}),
			),
		),
	);

	expect(runs.map((run) => run.error?.message)).toEqual(Array(30).fill(undefined));
	const emails = [...sandbox().state.registrations.values()].map((registration) => registration.customerEmail);
	expect(new Set(emails).size).toBe(30);
	expect(emails).toHaveLength(30);
	expect(sandbox().refusals!.refused).toBeLessThanOrEqual(2);
	// 20 requests beyond the burst at 10 a second, and 30 executions' start.
	expect(seconds).toBeLessThanOrEqual(1.05 * 2 + 1);
}, 20_000);

describe('queue mode in virtual time: two workers, each a pace its ten executions share, against 5 a second', () => {
	// Each worker learns from its own share. Before its pace gave up a fifth at each refusal and grew alike with the
	// other's (docs/reliability.md, "Where runs share a pace"), the slower worker kept a share it measured crowded:
	// 3.69 to 5.04 a second in these cases.
	test.each([
		[0, true],
		[100, true],
		[300, true],
		[0, false],
		[100, false],
		[300, false],
	])(
		'the second worker %j ms after the first, the service remembered as calm: %j: every request taken once, at most 0.5 refused per request served, 4.5 a second or more',
		async (startsApartMs, calm) => {
			const run = await paceAgainst(
				{ bucket: { perSecond: 5, burst: 5 }, retryAfter: 'seconds' },
				[{ count: 300, concurrency: 10 }],
				{ retryDelayMs: 1000, workers: { count: 2, startsApartMs, calm, runsAtOnce: true } },
			);

			expect([run.served, run.outwaited]).toEqual([300, 0]);
			expect(run.refused).toBeLessThanOrEqual(0.5 * run.served);
			expect(run.served / (run.ms / 1000)).toBeGreaterThanOrEqual(4.5);
		},
	);
});

describe("one execution's Options never govern another's requests, through the engine", () => {
	test("another workflow's Retry Wait: a lookup the service takes at once is sent and found, not failed as refused", async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'S-0' }]);
		// The service is unavailable for one request only, without Retry-After.
		sandbox().faultQueue.push({ status: 503, body: { message: 'Service Unavailable' } });
		let stopFirst: () => void = () => undefined;
		// A workflow with Retry Wait 30 s meets it and pauses for 30 s.
		const first = runNode({
			parameters: getSerials({ retryDelay: 30_000 }),
			credentials: credentials(),
			items: serials(1),
			continueOnFail: true,
			stop: new Promise<void>((resolve) => (stopFirst = resolve)),
		});
		await until(() => sandbox().requests.length >= 1);

		// Another (Retry Wait 0, Timeout 1 s, Retries 1) looks the serial number up meanwhile.
		const second = await runNode({
			parameters: getSerials({ retryDelay: 0, timeout: 1000, maxRetries: 1 }),
			credentials: credentials(),
			items: serials(1),
			continueOnFail: true,
		});
		stopFirst();
		await first;

		expect(second.items.map((item) => [item.json.found, item.json.error])).toEqual([[true, undefined]]);
	}, 15_000);

	test("another workflow's Timeout: a lookup with Timeout 1 s does not wait behind another's slow request", async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'S-0' }]);
		sandbox().faultQueue.push({ delayMs: 5000 });
		const first = runNode({ parameters: getSerials(), credentials: credentials(), items: serials(1) });
		await until(() => sandbox().requests.length >= 1);

		const { result: second, seconds } = await timed(() =>
			runNode({
				parameters: getSerials({ timeout: 1000, maxRetries: 0 }),
				credentials: credentials(),
				items: serials(1),
				continueOnFail: true,
			}),
		);
		await first;

		expect(second.items.map((item) => item.json.found)).toEqual([true]);
		expect(seconds).toBeLessThan(1);
	}, 15_000);
});

/** A service whose limit changes: `perSecond(now)` requests a second, a bucket of as many; 429 with Retry-After. */
class ChangingLimit {
	/** Requests refused so far. */
	refused = 0;

	private tokens: number;

	private at = 0;

	constructor(private readonly perSecond: (now: number) => number) {
		this.tokens = perSecond(0);
	}

	/** Takes a request at `now`: undefined, or the Retry-After (seconds) of a refusal. */
	take(now: number): string | undefined {
		const rate = this.perSecond(now);
		this.tokens = Math.min(rate, this.tokens + ((now - this.at) / 1000) * rate);
		this.at = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return undefined;
		}
		this.refused += 1;
		return String(Math.max(1, Math.ceil((1 - this.tokens) / rate)));
	}

	/** Another app of the shop's spends the whole bucket at `now`. */
	spendAll(now: number): void {
		this.tokens = 0;
		this.at = now;
	}
}

/** One request through `pace`, sent as serviceRequest sends it (10 ms each way); resolves when the service took it. */
async function sendThrough(pace: ServicePace, service: ChangingLimit): Promise<void> {
	const since = Date.now();
	for (;;) {
		const ticket = await pace.acquire({ since, patienceMs: 4 * 30_000 });
		if (typeof ticket === 'string') throw new Error(ticket);
		await new Promise((resolve) => setTimeout(resolve, 10));
		const refusal = service.take(Date.now());
		await new Promise((resolve) => setTimeout(resolve, 10));
		if (refusal === undefined) return pace.answered(ticket);
		pace.refused(ticket, {
			why: 'rate',
			retryAfterMs: retryAfterMs(refusal, Date.now()),
			problem: 'the service is limiting the rate of requests (HTTP 429)',
			httpCode: '429',
		});
	}
}

describe('how long a pace is joined (fake time)', () => {
	beforeEach(() => jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
	afterEach(() => jest.useRealTimers());

	test('a rate learned while the service was busy holds new runs back for at most a minute: form submissions after it are through at once', async () => {
		const start = Date.now();
		// Another app of the shop's spends most of the limit for the first 20 s: 1 a second is left; then 50.
		const service = new ChangingLimit((now) => (now - start < 20_000 ? 1 : 50));
		const origin = `https://changing-${start}.example`;
		const waited: Array<{ arrived: number; ms: number }> = [];
		// One execution, one create (a form submission).
		const submission = async () => {
			const arrived = Date.now() - start;
			await sendThrough(servicePace({}, DEFAULT_REQUEST_POLICY, origin, 'token'), service);
			waited.push({ arrived, ms: Date.now() - start - arrived });
		};
		// 3 submissions a second for 2 minutes.
		const all: Array<Promise<void>> = [];
		for (let second = 0; second < 120; second++) {
			for (let index = 0; index < 3; index++) {
				all.push(submission());
				await jest.advanceTimersByTimeAsync(333);
			}
			await jest.advanceTimersByTimeAsync(1);
		}
		await jest.advanceTimersByTimeAsync(600_000);
		await Promise.all(all);

		expect(waited).toHaveLength(360);
		// The pace started in the busy spell is joined until 60 s; the one started after it learns 50 a second.
		const afterTheMinute = waited.filter((submission) => submission.arrived >= 61_000);
		expect(afterTheMinute.length).toBeGreaterThan(170);
		expect(Math.max(...afterTheMinute.map((submission) => submission.ms))).toBeLessThan(2000);
	}, 30_000);

	test('regression (issue 50): a worker running ten executions at once for three minutes, each one create, against 5 a second: after the first minute the service still takes 4.5 a second, and at most 4 a minute are refused', async () => {
		// A run joining a pace a minute old once started a second one beside it, which learned only what the first left:
		// the two took 2.3 a second. Learning anew in place from one more in flight with every answer cost 7 refused a
		// minute; from the cautious start, 2. A pace its runs share grows past the limit about twice a minute more.
		const start = Date.now();
		const service = new ChangingLimit(() => 5);
		const origin = `https://stream-${start}.example`;
		const takenAt: number[] = [];
		let refusedInFirstMinute = 0;
		const execution = async () => {
			await sendThrough(servicePace({}, DEFAULT_REQUEST_POLICY, origin, 'token'), service);
			takenAt.push(Date.now() - start);
			if (Date.now() - start < 60_000) refusedInFirstMinute = service.refused;
		};
		const slot = async () => {
			while (Date.now() - start < 180_000) await execution();
		};
		const slots = Array.from({ length: 10 }, slot);
		await jest.advanceTimersByTimeAsync(200_000);
		await Promise.all(slots);

		const afterTheFirstMinute = takenAt.filter((at) => at >= 60_000 && at < 180_000);
		expect(afterTheFirstMinute.length / 120).toBeGreaterThanOrEqual(4.5);
		expect(service.refused - refusedInFirstMinute).toBeLessThanOrEqual(2 * 4);
	}, 30_000);

	test('regression (issue 50): three submissions 15 s apart, a refusal at 45 s (another app spent the limit), then 50 lookups join the pace: through at the service\'s 10 a second, not at one every 15 s', async () => {
		const start = Date.now();
		const service = new ChangingLimit(() => 10);
		const origin = `https://sparse-${start}.example`;
		const submit = () => sendThrough(servicePace({}, DEFAULT_REQUEST_POLICY, origin, 'token'), service);
		const all: Array<Promise<void>> = [];
		for (const second of [0, 15, 30]) {
			await jest.advanceTimersByTimeAsync(start + second * 1000 - Date.now());
			all.push(submit());
		}
		await jest.advanceTimersByTimeAsync(start + 45_000 - Date.now());
		service.spendAll(Date.now());
		all.push(submit());
		await jest.advanceTimersByTimeAsync(100);
		// An execution of 50 lookups, 50 at once, while that submission waits out its pause: it joins the pace.
		const lookups = {};
		const joinedAt = Date.now();
		let lastTaken = 0;
		const sent = Array.from({ length: 50 }, async () => {
			await sendThrough(servicePace(lookups, DEFAULT_REQUEST_POLICY, origin, 'token'), service);
			lastTaken = Math.max(lastTaken, Date.now());
		});
		await jest.advanceTimersByTimeAsync(3_600_000);
		await Promise.all([...all, ...sent]);

		// The service takes them in about 5 s (its bucket refills by 10 a second); diluted by the idle minute, the guess
		// was one every 15 s: 12 minutes.
		expect(lastTaken - joinedAt).toBeLessThan(10_000);
	}, 30_000);
});

describe('which runs share a pace', () => {
	const origin = 'https://apps.example';
	const policy = DEFAULT_REQUEST_POLICY;

	test('two shops whose tokens a 32-bit fingerprint took for one get a pace each', () => {
		expect(servicePace({}, policy, origin, 'shpat_xla')).not.toBe(servicePace({}, policy, origin, 'shpat_4p01'));
	});

	test('a run idle between two of its requests (its file going to storage) shares its pace with a run that starts meanwhile', async () => {
		const run = {};
		const pace = servicePace(run, policy, `${origin}/idle`, 'token');
		const ticket = await pace.acquire({ since: Date.now(), patienceMs: 1000 });
		if (typeof ticket === 'string') throw new Error(ticket);
		pace.answered(ticket);

		expect(servicePace({}, policy, `${origin}/idle`, 'token')).toBe(pace);
	});

	test('runs with other Options, or another token, get a pace of their own', () => {
		const pace = servicePace({}, policy, `${origin}/options`, 'token');

		expect(servicePace({}, { ...policy, retryDelayMs: 0 }, `${origin}/options`, 'token')).not.toBe(pace);
		expect(servicePace({}, { ...policy, timeoutMs: 1000 }, `${origin}/options`, 'token')).not.toBe(pace);
		expect(servicePace({}, policy, `${origin}/options`, 'another token')).not.toBe(pace);
		expect(servicePace({}, policy, `${origin}/options`, 'token')).toBe(pace);
	});
});
