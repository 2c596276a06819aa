import { useSandbox } from '../../harness/sandbox.cts';
import { getSerials, serials, timed } from '../../harness/serialLookups.cts';
import { paceAgainst } from '../../harness/virtualPace.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { retryAfterMs } from '../../nodes/shared/transport/attemptOutcome';
import type { Refused, ServicePace } from '../../nodes/shared/transport/pace/servicePace';
import { servicePace } from '../../nodes/shared/transport/pace/servicePace';

/**
 * Which runs share a pace (transport/pace/servicePace.ts): every run in one n8n process that sends to the same service
 * with the same token, whatever its Options. What sharing must bring (one bucket, not one per execution, and a run
 * starting at the pace the one before it left), and what it must not: one execution's Options governing another's
 * requests, a rate cut in a busy spell holding later runs back for good, two shops' tokens taken for one.
 */

const { sandbox, credentials } = useSandbox();

const until = async (condition: () => boolean) => {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
};

test('30 form submissions at once, each an execution that creates one registration, against 10 a second: nothing is lost or made twice, refused no more than the 20 beyond the burst and 5%', async () => {
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
	// The 30 go out at once, before any refusal: the 20 beyond the burst are refused, and wait for the one pace.
	expect(sandbox().refusals!.refused).toBeLessThanOrEqual(20 + 0.05 * 30);
	// 20 requests beyond the burst at 10 a second, and 30 executions' start.
	expect(seconds).toBeLessThanOrEqual(1.1 * 2 + 1);
}, 20_000);

describe('queue mode in virtual time: two workers, each with the pace its ten executions share, against 5 a second', () => {
	test.each([
		[0, 'seconds' as const],
		[100, 'seconds' as const],
		[300, 'seconds' as const],
		[0, 'none' as const],
		[100, 'none' as const],
		[300, 'none' as const],
	])(
		'the second worker %j ms after the first, Retry-After %s: every request taken once, at most 0.5 refused per request served, 4.5 a second or more',
		async (startsApartMs, retryAfter) => {
			const run = await paceAgainst(
				{ bucket: { perSecond: 5, burst: 5 }, retryAfter },
				[{ count: 300, concurrency: 10 }],
				{ retryDelayMs: 1000, workers: { count: 2, startsApartMs } },
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
		// The service refuses one request only, without Retry-After.
		sandbox().faultQueue.push({ status: 429, body: { message: 'Too many requests' } });
		let stopFirst: () => void = () => undefined;
		// A workflow with Retry Wait 30 s meets it and pauses for 30 s; the service's pace is cut to its slowest.
		const first = runNode({
			parameters: getSerials({ retryDelay: 30_000 }),
			credentials: credentials(),
			items: serials(1),
			continueOnFail: true,
			stop: new Promise<void>((resolve) => (stopFirst = resolve)),
		});
		await until(() => sandbox().requests.length >= 1);

		// Another (Retry Wait 0, Timeout 1 s, Retries 1) looks the serial number up meanwhile, at that pace: within 2 s.
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
	let refused: Refused | undefined;
	for (;;) {
		const ticket = await pace.acquire({ since, patienceMs: 4 * 30_000, retryDelayMs: 1000, refused });
		if (typeof ticket === 'string') throw new Error(ticket);
		await new Promise((resolve) => setTimeout(resolve, 10));
		const refusal = service.take(Date.now());
		await new Promise((resolve) => setTimeout(resolve, 10));
		if (refusal === undefined) return pace.answered(ticket);
		const retryAfter = retryAfterMs(refusal, Date.now());
		pace.refused(ticket, retryAfter);
		refused = { at: Date.now(), retryAfterMs: retryAfter };
	}
}

describe('one pace for the runs of an n8n process, over time (fake time)', () => {
	beforeEach(() => jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
	afterEach(() => jest.useRealTimers());

	test('a rate cut while another app took most of the limit grows back once the service allows more: form submissions a minute on are through at once', async () => {
		const start = Date.now();
		// Another app of the shop's spends most of the limit for the first 20 s: 1 a second is left; then 50.
		const service = new ChangingLimit((now) => (now - start < 20_000 ? 1 : 50));
		const origin = `https://changing-${start}.example`;
		const waited: Array<{ arrived: number; ms: number }> = [];
		// One execution, one create (a form submission).
		const submission = async () => {
			const arrived = Date.now() - start;
			await sendThrough(servicePace(origin, 'token'), service);
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
		// Cut to what the service took in the busy spell, the rate grows back along the curve once it ends at 20 s.
		const afterTheMinute = waited.filter((submission) => submission.arrived >= 61_000);
		expect(afterTheMinute.length).toBeGreaterThan(170);
		expect(Math.max(...afterTheMinute.map((submission) => submission.ms))).toBeLessThan(2000);
	}, 30_000);

	test('a worker running ten executions at once for three minutes, each one create, against 5 a second: after the first minute the service still takes 4.5 a second, refused at most 5% of them', async () => {
		const start = Date.now();
		const service = new ChangingLimit(() => 5);
		const origin = `https://stream-${start}.example`;
		const takenAt: number[] = [];
		let refusedInFirstMinute = 0;
		const execution = async () => {
			await sendThrough(servicePace(origin, 'token'), service);
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
		expect(service.refused - refusedInFirstMinute).toBeLessThanOrEqual(0.05 * afterTheFirstMinute.length);
	}, 30_000);

	test('three submissions 15 s apart, a refusal at 45 s (another app spent the limit), then 50 lookups: through within 20 s, not at one every 15 s', async () => {
		const start = Date.now();
		const service = new ChangingLimit(() => 10);
		const origin = `https://sparse-${start}.example`;
		const submit = () => sendThrough(servicePace(origin, 'token'), service);
		const all: Array<Promise<void>> = [];
		for (const second of [0, 15, 30]) {
			await jest.advanceTimersByTimeAsync(start + second * 1000 - Date.now());
			all.push(submit());
		}
		await jest.advanceTimersByTimeAsync(start + 45_000 - Date.now());
		service.spendAll(Date.now());
		all.push(submit());
		await jest.advanceTimersByTimeAsync(100);
		// An execution of 50 lookups, 50 at once, while that submission waits out its pause: the same pace.
		const joinedAt = Date.now();
		let lastTaken = 0;
		const sent = Array.from({ length: 50 }, async () => {
			await sendThrough(servicePace(origin, 'token'), service);
			lastTaken = Math.max(lastTaken, Date.now());
		});
		await jest.advanceTimersByTimeAsync(3_600_000);
		await Promise.all([...all, ...sent]);

		// The service could take them in about 5 s (its bucket refills by 10 a second). Nothing was taken in the second
		// before the refusal, so the rate was cut to the slowest, 0.5 a second, and grows back along the curve: slowly at
		// first. Diluted by the idle minute, a measured rate once read one every 15 s: 12 minutes.
		expect(lastTaken - joinedAt).toBeLessThan(20_000);
	}, 30_000);
});

test('a run after one that met the limit starts at the pace that one left: its 50 lookups at once are not refused as the first run\'s were', async () => {
	sandbox().state.createSerialNumbers(serials(100).map((item) => ({ serialNumber: item.json.serial as string })));
	sandbox().limitRate({ perSecond: 10, burst: 10, retryAfter: true });
	const lookUp = () => runNode({ parameters: getSerials(), credentials: credentials(), items: serials(50) });

	const first = await lookUp();
	const refusedFirst = sandbox().refusals!.refused;
	const second = await lookUp();

	expect([first, second].map((run) => run.items.filter((item) => item.json.found === true).length)).toEqual([50, 50]);
	// The first run's 50 went out at once: the 40 beyond the burst were refused. The second's wait in the bucket.
	expect(refusedFirst).toBeGreaterThanOrEqual(40);
	expect(sandbox().refusals!.refused - refusedFirst).toBeLessThanOrEqual(0.05 * 50);
}, 30_000);

describe('which runs share a pace', () => {
	const origin = 'https://apps.example';

	test('two shops whose tokens a 32-bit fingerprint took for one get a pace each', () => {
		expect(servicePace(origin, 'shpat_xla')).not.toBe(servicePace(origin, 'shpat_4p01'));
	});

	test('runs with other Options share the service\'s pace; another token, or another service, gets its own', () => {
		const pace = servicePace(`${origin}/options`, 'token');

		expect(servicePace(`${origin}/options`, 'token')).toBe(pace);
		expect(servicePace(`${origin}/options`, 'another token')).not.toBe(pace);
		expect(servicePace(`${origin}/other`, 'token')).not.toBe(pace);
	});
});
