import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { getSerials, serials, timed } from '../../harness/serialLookups.cts';
import type { Step } from '../../harness/virtualPace.cts';
import { paceAgainst } from '../../harness/virtualPace.cts';
import { nodeTypes, PRODUCT_REGISTRATION_TYPE, runNode } from '../../harness/workflowRunner.cts';
import type { RefusalSettings } from '../../sandbox/refusals.cts';
import { mostInASecond } from '../../sandbox/refusals.cts';

/**
 * The service's pace (transport/pace/: its rule in adaptiveRate.ts, its gate in servicePace.ts): how the node keeps to
 * a service's rate limit, and what it does while the service refuses. First in virtual time against the sandbox's refusals — exact, and
 * a 90-second import plays in milliseconds — then through n8n's engine on real sockets against the sandbox.
 */

const { sandbox, credentials } = useSandbox();

const RETRY_AFTER_FORMS: Array<NonNullable<RefusalSettings['retryAfter']>> = [
	'seconds',
	'date',
	'zero',
	'pastDate',
	'huge',
	'none',
];

/** The targets at a limited service: refused at most 5% of the requests taken, and the run's Concurrency. */
const mostRefused = (taken: number, concurrency: number) => 0.05 * taken + concurrency;

describe('the pace against a steady limit (virtual time)', () => {
	const workloads: Array<[string, Step[]]> = [
		['a create of 10 batches, 4 at once', [{ count: 10, concurrency: 4 }]],
		['30 pages, one after another', [{ count: 30, concurrency: 1 }]],
		['a page, then 180 lookups 50 at once', [{ count: 1, concurrency: 1 }, { count: 180, concurrency: 50 }]],
	];
	// Round trips of 20 ms, as against the sandbox; of 40 and 50 ms, as inside n8n.
	describe.each([
		[2, 'seconds' as const, 20],
		[2, 'none' as const, 20],
		[10, 'seconds' as const, 20],
		[10, 'none' as const, 20],
		[2, 'seconds' as const, 50],
		[10, 'seconds' as const, 40],
		[10, 'none' as const, 50],
	])('%j requests a second, bursts of one second, Retry-After %s, round trips of %j ms', (perSecond, retryAfter, roundTripMs) => {
		test.each(workloads)(
			'%s: every request taken, refused at most 5% of them and the Concurrency, within 1.10× the floor',
			async (_name, steps) => {
				const run = await paceAgainst({ bucket: { perSecond, burst: perSecond }, retryAfter }, steps, {
					retryDelayMs: 1000,
					roundTripMs,
				});

				expect([run.served, run.outwaited]).toEqual([steps.reduce((sum, step) => sum + step.count, 0), 0]);
				expect(run.refused).toBeLessThanOrEqual(mostRefused(run.served, Math.max(...steps.map((step) => step.concurrency))));
				expect(run.ms).toBeLessThanOrEqual(1.1 * (run.served / perSecond) * 1000);
			},
		);
	});

	test('a long import at 5 a second: after the first refusals, the service takes it at its rate, refused a few times a minute', async () => {
		const run = await paceAgainst({ bucket: { perSecond: 5, burst: 5 } }, [{ count: 600, concurrency: 50 }], {
			retryDelayMs: 1000,
		});

		expect(run.served).toBe(600);
		// The requests in flight at the first refusal (50 less the burst of 5), then about one refusal each cycle of
		// the curve: back to the rate it was cut from, past it, refused.
		expect(run.refused).toBeLessThanOrEqual(mostRefused(600, 50));
		expect(run.refused).toBeGreaterThan(45);
		expect(run.ms).toBeLessThanOrEqual(1.1 * (600 / 5) * 1000);
	});

	test.each([
		[5, 2000],
		[5, 5000],
		[8, 2000],
	])(
		'another app takes %j of 10 a second for the first %j ms: the share the run was cut to then does not hold back the rest of it',
		async (otherPerSecond, forMs) => {
			const run = await paceAgainst({ bucket: { perSecond: 10, burst: 10 } }, [{ count: 400, concurrency: 10 }], {
				retryDelayMs: 1000,
				otherApp: { perSecond: otherPerSecond, forMs },
			});

			expect(run.served).toBe(400);
			expect(run.refused).toBeLessThanOrEqual(mostRefused(run.served, 10));
			// What the service allows: its share while the other app takes, then all of its rate.
			const allowedMs = forMs + (400 - ((10 - otherPerSecond) * forMs) / 1000) * 100;
			expect(run.ms).toBeLessThanOrEqual(1.3 * allowedMs);
		},
	);

	// A rate that grows while the run sends under it runs away: the curve alone, minutes after its cut, lets the 50
	// lookups at once all out, and 57 are refused. The rate grows to at most twice what the service took in the
	// latest second.
	test.each([
		['200 lookups one at a time 0.9 s apart', [{ count: 200, concurrency: 1, gapMs: 900 }]],
		[
			'60 batches of 5 at once, 2 s apart',
			Array.from({ length: 60 }, () => ({ count: 5, concurrency: 5, gapMs: 2000 })),
		],
	])(
		'a rate grows no further than the run sends: after a crowded start, %s, then 600 lookups 50 at once, are refused at most 5% of the time',
		async (_name, middle) => {
			const steps = [{ count: 60, concurrency: 10 }, ...middle, { count: 600, concurrency: 50 }];
			const run = await paceAgainst({ bucket: { perSecond: 10, burst: 10 } }, steps, {
				retryDelayMs: 1000,
				otherApp: { perSecond: 6, forMs: 3000 },
			});

			expect(run.served).toBe(steps.reduce((sum, step) => sum + step.count, 0));
			expect(run.refused).toBeLessThanOrEqual(0.05 * 600);
		},
	);

	test('batches that wait for each other: 60 batches of 10 at once, 300 ms apart, round trips of 500 ms, against 10 a second', async () => {
		const batches = Array.from({ length: 60 }, () => ({ count: 10, concurrency: 10, gapMs: 300 }));
		const run = await paceAgainst({ bucket: { perSecond: 10, burst: 10 } }, batches, {
			retryDelayMs: 1000,
			roundTripMs: 500,
		});

		expect(run.served).toBe(600);
		// The service's rate allows 60 s; each batch's round trip and gap alone take 48 s. A rate that grew only while
		// its bucket was empty kept its first guess here: 170 s.
		expect(run.ms).toBeLessThanOrEqual(1.5 * 60_000);
	});

	test('a fast limit: 4,000 requests, 50 at once, against 100 a second with Retry-After 0 and round trips of 200 ms', async () => {
		const run = await paceAgainst(
			{ bucket: { perSecond: 100, burst: 100 }, retryAfter: 'zero' },
			[{ count: 4000, concurrency: 50 }],
			{ retryDelayMs: 1000, roundTripMs: 200 },
		);

		expect(run.served).toBe(4000);
		expect(run.refused).toBeLessThanOrEqual(mostRefused(4000, 50));
		expect(run.ms).toBeLessThanOrEqual(1.1 * 40_000);
	});
});

describe('the pace against a service that refuses (virtual time)', () => {
	// A 503 refuses as a 429 does when it says how long to wait; a bare 503 is a passing error, as 502 and 504 are.
	test.each(
		RETRY_AFTER_FORMS.flatMap((retryAfter) =>
			[0, 1000].flatMap((retryDelayMs) =>
				([429, 503] as const)
					.filter((status) => status === 429 || retryAfter !== 'none')
					.map((status) => [retryAfter, retryDelayMs, status] as const),
			),
		),
	)(
		'refused for good with Retry-After %s, Retry Wait %j ms, HTTP %j: after the 8 first attempts, at most 4 requests in any second, and each request gives up at its bound',
		async (retryAfter, retryDelayMs, status) => {
			const run = await paceAgainst(
				{ everyRequest: 'forGood', retryAfter, status },
				[{ count: 8, concurrency: 50 }],
				{ retryDelayMs, patienceMs: 2000 },
			);

			// Before the first refusal nothing holds the run back but its Concurrency: its 8 requests go out at once.
			expect(run.receivedAt.slice(0, 8).every((at) => at < 50)).toBe(true);
			expect(mostInASecond(run.receivedAt.slice(8))).toBeLessThanOrEqual(4);
			expect(run.outwaited).toBe(8);
			for (const waited of run.gaveUpAfter) expect(waited).toBeLessThanOrEqual(2000);
			expect(run.ms).toBeLessThanOrEqual(2000 + 50);
		},
	);

	test('refused for good, 200 requests 10 at once, Retry Wait 0, no Retry-After, patience 30 s: at most 4 a second after the first 10', async () => {
		const run = await paceAgainst(
			{ everyRequest: 'forGood', retryAfter: 'none' },
			[{ count: 200, concurrency: 10 }],
			{ retryDelayMs: 0, patienceMs: 30_000 },
		);

		expect(run.outwaited).toBe(200);
		expect(mostInASecond(run.receivedAt.slice(10))).toBeLessThanOrEqual(4);
		// It keeps asking all along, at the slowest rate: a service that comes back is noticed.
		expect(run.receivedAt.length).toBeGreaterThanOrEqual(10 + 10);
	});

	test('refused for 3 seconds, then taken: every request through, at most 4 a second while refused after the first attempts', async () => {
		const run = await paceAgainst(
			{ everyRequest: { forMs: 3000 }, retryAfter: 'none' },
			[{ count: 40, concurrency: 50 }],
			{ retryDelayMs: 0 },
		);

		expect(run.served).toBe(40);
		expect(mostInASecond(run.receivedAt.slice(40).filter((at) => at < 3000))).toBeLessThanOrEqual(4);
		// The rate was cut to the slowest while nothing was taken, and grows back along the curve: slowly at first.
		expect(run.ms).toBeLessThan(3000 + 15_000);
	});
});

/** Rows of `customers` customers, five each, for a Create with If Already Registered: Skip. */
const sheet = (rows: number, customers: number): INodeExecutionData[] =>
	Array.from({ length: rows }, (_, index) => ({
		json: { Product: `Product ${index % 5}`, Email: `customer${Math.floor(index / 5) % customers}@example.com` },
	}));

const importWithSkip = {
	resource: 'registration',
	operation: 'create',
	dataMode: 'autoMapInputData',
	options: { ifExists: 'skip' },
};

/** When the service received each request after the first `count`: the items' first attempts, sent at once. */
const afterFirstAttempts = (count: number) =>
	sandbox()
		.requests.slice(count)
		.map((request) => request.receivedAt);

const refusalMessage = (problem: string, bound: string) =>
	`${problem}. The service kept refusing for as long as this request may take: (Retries + 1) × Timeout = ${bound}`;

describe('a service that refuses every request, through the engine', () => {
	test('Serial Number Get on 8 items, Timeout 1 s, Retries 1: every item fails with the refusal in about 2 s, and so does the run', async () => {
		sandbox().refuse({ everyRequest: 'forGood', retryAfter: 'none' });

		const { result, seconds } = await timed(() =>
			runNode({
				parameters: getSerials({ timeout: 1000, maxRetries: 1 }),
				credentials: credentials(),
				items: serials(8),
				continueOnFail: true,
			}),
		);

		expect(result.items).toEqual(
			serials(8).map((_, index) => ({
				json: {
					error: refusalMessage('The service is limiting the rate of requests (HTTP 429): Too many requests', '2 seconds'),
				},
				pairedItem: { item: index },
			})),
		);
		expect(seconds).toBeGreaterThanOrEqual(1.9);
		expect(seconds).toBeLessThan(2.5);
	}, 10_000);

	test('with Retry Wait 0, after the 8 first attempts, the service gets at most 4 requests in any second', async () => {
		sandbox().refuse({ everyRequest: 'forGood', retryAfter: 'none' });

		const { result, seconds } = await timed(() =>
			runNode({
				parameters: getSerials({ timeout: 1000, maxRetries: 1, retryDelay: 0 }),
				credentials: credentials(),
				items: serials(8),
				continueOnFail: true,
			}),
		);

		expect(result.items.filter((item) => item.json.error !== undefined)).toHaveLength(8);
		expect(mostInASecond(afterFirstAttempts(8))).toBeLessThanOrEqual(4);
		expect(seconds).toBeLessThan(2.5);
	}, 10_000);

	test.each(RETRY_AFTER_FORMS.map((retryAfter) => [retryAfter]))(
		'429 with Retry-After %s, Retry Wait 0: after the first attempts at most 4 requests a second, every item failed at its bound',
		async (retryAfter) => {
			sandbox().refuse({ everyRequest: 'forGood', retryAfter });

			const { result, seconds } = await timed(() =>
				runNode({
					parameters: getSerials({ timeout: 500, maxRetries: 1, retryDelay: 0 }),
					credentials: credentials(),
					items: serials(8),
					continueOnFail: true,
				}),
			);

			expect(result.items.map((item) => item.json.error)).toEqual(
				Array(8).fill(
					refusalMessage('The service is limiting the rate of requests (HTTP 429): Too many requests', '1 second'),
				),
			);
			expect(mostInASecond(afterFirstAttempts(8))).toBeLessThanOrEqual(4);
			// A Retry-After of an hour (honoured up to 60 s) does not keep a request past its bound.
			expect(seconds).toBeLessThan(1.5);
		},
		10_000,
	);

	test('a 503 for good, Retry Wait 0: after the first attempts at most 4 requests a second, every item fails within its bound', async () => {
		sandbox().refuse({ everyRequest: 'forGood', status: 503, retryAfter: 'zero' });

		const { result, seconds } = await timed(() =>
			runNode({
				parameters: getSerials({ timeout: 500, maxRetries: 3, retryDelay: 0 }),
				credentials: credentials(),
				items: serials(8),
				continueOnFail: true,
			}),
		);

		expect(result.items.filter((item) => String(item.json.error).startsWith('The service answered HTTP 503'))).toHaveLength(8);
		expect(mostInASecond(afterFirstAttempts(8))).toBeLessThanOrEqual(4);
		expect(seconds).toBeLessThan(2.5);
	}, 10_000);

	test('a bare 503 for good is a passing error, as 502 and 504: each item is tried Retries + 1 times, and the rate is not cut', async () => {
		sandbox().refuse({ everyRequest: 'forGood', status: 503, retryAfter: 'none' });

		const result = await runNode({
			parameters: getSerials({ timeout: 500, maxRetries: 2, retryDelay: 0 }),
			credentials: credentials(),
			items: serials(8),
			continueOnFail: true,
		});

		expect(result.items.map((item) => item.json.error)).toEqual(
			Array(8).fill('The service answered HTTP 503: Service Unavailable, after 3 attempts'),
		);
		expect(sandbox().requests).toHaveLength(8 * 3);
		// The next run, the service back, sends its lookups Concurrency at once: nothing holds it back.
		sandbox().refuse(undefined);
		sandbox().latencyMs = 70;
		sandbox().state.createSerialNumbers(serials(16).map((item) => ({ serialNumber: item.json.serial as string })));
		const next = await runNode({ parameters: getSerials({ concurrency: 16 }), credentials: credentials(), items: serials(16) });
		expect(next.items.filter((item) => item.json.found === true)).toHaveLength(16);
		expect(sandbox().peakInFlight).toBe(16);
	}, 10_000);

	test('refusing for a while, then taking requests: every item comes through, and while it refused at most 4 requests a second after the first attempts', async () => {
		sandbox().state.createSerialNumbers(serials(20).map((item) => ({ serialNumber: item.json.serial as string })));
		sandbox().refuse({ everyRequest: { forMs: 1500 }, retryAfter: 'zero' });
		const refusingUntil = Date.now() + 1500;

		const { result, seconds } = await timed(() =>
			runNode({ parameters: getSerials({ retryDelay: 0 }), credentials: credentials(), items: serials(20) }),
		);

		expect(result.items.filter((item) => item.json.found === true)).toHaveLength(20);
		expect(mostInASecond(afterFirstAttempts(20).filter((at) => at < refusingUntil))).toBeLessThanOrEqual(4);
		// Nothing was taken before the refusals, so the rate was cut to the slowest, and the curve grows back slowly
		// at first: about 10 s to 5 a second.
		expect(seconds).toBeLessThan(15);
	}, 20_000);
});

test('a service that never refused: a run sends its lookups Concurrency at once from its first request', async () => {
	sandbox().latencyMs = 70;
	sandbox().state.createSerialNumbers(serials(16).map((item) => ({ serialNumber: item.json.serial as string })));

	const result = await runNode({ parameters: getSerials({ concurrency: 16 }), credentials: credentials(), items: serials(16) });

	expect(result.items.filter((item) => item.json.found === true)).toHaveLength(16);
	expect(sandbox().peakInFlight).toBe(16);
});

describe.each([
	['with Retry-After', true],
	['with a bare 429', false],
])('a service that allows 20 requests a second (%s), through the engine', (_case, retryAfter) => {
	beforeEach(() => sandbox().limitRate({ perSecond: 20, burst: 20, retryAfter }));

	test('120 lookups with Retries 0: every item through, at the service\'s pace, refused at most 5% of them and the Concurrency', async () => {
		sandbox().state.createSerialNumbers(serials(120).map((item) => ({ serialNumber: item.json.serial as string })));

		const { result, seconds } = await timed(() =>
			runNode({ parameters: getSerials({ maxRetries: 0 }), credentials: credentials(), items: serials(120) }),
		);

		expect(result.error).toBeUndefined();
		expect(result.items.filter((item) => item.json.found === true)).toHaveLength(120);
		// The burst of 20 is found by the 50 sent at once: 30 refused in one go, then a few more.
		const refused = sandbox().refusals!.refused;
		expect(refused).toBeGreaterThanOrEqual(30);
		expect(refused).toBeLessThanOrEqual(mostRefused(120, 50));
		// 100 requests beyond the burst at 20 a second: 5 s; kept within 1.10 × that and the round trips, never faster.
		expect(seconds).toBeGreaterThanOrEqual(4);
		expect(seconds).toBeLessThanOrEqual(1.1 * 5 + 0.5);
	}, 20_000);

	test('an import with Skip shares one pace across its pages and its creates: nothing fails, nothing twice', async () => {
		sandbox().state.registerOverTime(
			Array.from({ length: 3000 }, (_, index) => ({ productName: 'Old', customerEmail: `old${index}@example.com` })),
		);

		const { result, seconds } = await timed(() =>
			runNode({ parameters: importWithSkip, credentials: credentials(), items: sheet(500, 100) }),
		);

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.outcome)).toEqual(Array(500).fill('created'));
		// The 34 overlapping windows over the 3,000 registrations and a look at the newest end cost less than 100
		// lookups; then 5 creates of 100: 40 requests, 20 of them beyond the burst.
		expect(sandbox().requests.length - sandbox().refusals!.refused).toBe(40);
		expect(sandbox().refusals!.refused).toBeLessThanOrEqual(mostRefused(40, 50));
		expect(seconds).toBeLessThanOrEqual(1.25 * (20 / 20) + 1);
		expect(sandbox().state.registrations.size).toBe(3500);
	}, 20_000);
});

test('a steady limit of 10 a second through the engine: every item through, refused at most 5% and the Concurrency, within 1.10× the floor', async () => {
	sandbox().state.createSerialNumbers(serials(40).map((item) => ({ serialNumber: item.json.serial as string })));
	sandbox().limitRate({ perSecond: 10, burst: 10, retryAfter: true });

	const { result, seconds } = await timed(() =>
		runNode({ parameters: getSerials(), credentials: credentials(), items: serials(40) }),
	);

	expect(result.items.filter((item) => item.json.found === true)).toHaveLength(40);
	expect(sandbox().refusals!.refused).toBeLessThanOrEqual(mostRefused(40, 50));
	expect(seconds).toBeLessThanOrEqual(1.1 * (40 / 10));
}, 20_000);

test('Stop during the pause a 429 asked for ends the run at once, and nothing more is sent', async () => {
	const nodeType = nodeTypes.getByNameAndVersion(PRODUCT_REGISTRATION_TYPE, 1) as INodeType;
	const execute = nodeType.execute!;
	let returnedAt = 0;
	nodeType.execute = async function (this: IExecuteFunctions) {
		try {
			return await execute.call(this);
		} finally {
			returnedAt = Date.now();
		}
	};
	sandbox().refuse({ everyRequest: 'forGood', retryAfter: 'huge' });
	let stoppedAt = 0;
	const stop = (async () => {
		while (sandbox().requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
		await new Promise((resolve) => setTimeout(resolve, 200));
		stoppedAt = Date.now();
	})();

	try {
		// Retries 3 and Timeout 30 s: a request may wait through refusals for 2 minutes.
		const result = await runNode({
			parameters: getSerials(),
			credentials: credentials(),
			items: serials(3),
			continueOnFail: true,
			stop,
		});

		// n8n keeps no output of a node it stopped.
		expect(result.items).toEqual([]);
		expect(returnedAt - stoppedAt).toBeLessThan(1000);
		// The three items' first attempts, sent at once before any refusal; none after the pause began.
		expect(sandbox().requests).toHaveLength(3);
	} finally {
		delete (nodeType as { execute?: unknown }).execute;
	}
}, 15_000);
