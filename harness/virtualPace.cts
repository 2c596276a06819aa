import type { PaceClock, Refused } from '../nodes/shared/transport/pace/servicePace';
import { ServicePace } from '../nodes/shared/transport/pace/servicePace';
import { retryAfterMs } from '../nodes/shared/transport/attemptOutcome';
import { seededRandom } from '../sandbox/random.cts';
import type { RefusalSettings } from '../sandbox/refusals.cts';
import { Refusals } from '../sandbox/refusals.cts';

/**
 * The service's pace (transport/pace/) against the sandbox's refusals, in virtual time: minutes of a rate-limited
 * import play out in milliseconds, exactly. The clock moves only once every pending promise has settled, to the next
 * timer. Each request waits for its ticket, reaches the service half a round trip later, and its answer comes back
 * after the other half; a refusal's Retry-After is read as the node reads it.
 */

class VirtualClock implements PaceClock {
	private time = 0;

	private readonly timers: Array<{ at: number; order: number; resolve: () => void }> = [];

	private order = 0;

	now(): number {
		return this.time;
	}

	async sleep(ms: number): Promise<void> {
		await new Promise<void>((resolve) => {
			this.timers.push({ at: this.time + Math.max(0, ms), order: this.order++, resolve });
		});
	}

	/** Moves time on, timer by timer, until `done` settles. */
	async runUntil(done: Promise<unknown>): Promise<void> {
		let finished = false;
		void done.finally(() => (finished = true));
		for (;;) {
			await new Promise((resolve) => setImmediate(resolve));
			if (finished || this.timers.length === 0) return;
			this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
			const next = this.timers.shift()!;
			this.time = Math.max(this.time, next.at);
			next.resolve();
		}
	}
}

/**
 * Requests sent in steps, one after the other: `count` requests, `concurrency` at once (as the node's operations do;
 * in each worker, as a queue-mode worker runs that many executions at once).
 */
export interface Step {
	count: number;
	concurrency: number;
	/** How long each of the step's requests waits after the one before it, in its place, was answered. */
	gapMs?: number;
}

export interface VirtualRun {
	/** Requests the service took, and refused. */
	served: number;
	refused: number;
	/** Requests that gave up waiting through refusals. */
	outwaited: number;
	/** When the run ended, in ms from its start. */
	ms: number;
	/** When the service received each request (ms from the start), refused or not. */
	receivedAt: number[];
	/** When each request that gave up did so, in ms from its first attempt. */
	gaveUpAfter: number[];
}

export interface VirtualRunOptions {
	retryDelayMs: number;
	/** What a request may wait through refusals: (Retries + 1) × Timeout. */
	patienceMs?: number;
	/** Round trip to the service; each request's is up to 4 ms longer, at random. */
	roundTripMs?: number;
	/** The seed of that randomness (41 unless set). */
	seed?: number;
	/**
	 * Queue-mode workers sending to the service, each an n8n process with a pace of its own (1 unless set): each takes
	 * the steps' requests from one shared line, `concurrency` at once, as workers take jobs from one queue, and every
	 * request of a worker goes through its pace, as the runs of one n8n process do. Each starts `startsApartMs` after
	 * the one before.
	 */
	workers?: { count: number; startsApartMs: number };
	/** The pace told nothing of refusals, so never turned on: the run as the node would send it with no pace. */
	withoutPace?: boolean;
	/** Another app with the same token, taking `perSecond` of the limit for the first `forMs`, refused or not. */
	otherApp?: { perSecond: number; forMs: number };
}

export async function paceAgainst(
	service: RefusalSettings,
	steps: Step[],
	options: VirtualRunOptions,
): Promise<VirtualRun> {
	const clock = new VirtualClock();
	const workers = options.workers ?? { count: 1, startsApartMs: 0 };
	const refusals = new Refusals(service, 0);
	const random = seededRandom(options.seed ?? 41);
	const halfTrip = (options.roundTripMs ?? 20) / 2;
	const run: VirtualRun = { served: 0, refused: 0, outwaited: 0, ms: 0, receivedAt: [], gaveUpAfter: [] };

	const patienceMs = options.patienceMs ?? 120_000;
	const request = async (pace: ServicePace) => {
		const since = clock.now();
		let firstSentAt: number | undefined;
		let refused: Refused | undefined;
		const giveUp = () => {
			run.outwaited += 1;
			run.gaveUpAfter.push(clock.now() - since);
		};
		for (;;) {
			const ticket = await pace.acquire({ since, patienceMs, retryDelayMs: options.retryDelayMs, refused });
			if (ticket === 'stopped' || ticket === 'outwaited') return giveUp();
			firstSentAt ??= ticket.sentAt;
			await clock.sleep(halfTrip + random() * 2);
			run.receivedAt.push(clock.now());
			const refusal = refusals.take(clock.now());
			await clock.sleep(halfTrip + random() * 2);
			if (refusal === undefined) {
				pace.answered(ticket);
				run.served += 1;
				return;
			}
			run.refused += 1;
			const retryAfter = retryAfterMs(refusal.headers['retry-after'], clock.now());
			if (refusal.status === 429 || retryAfter !== undefined) {
				if (!options.withoutPace) pace.refused(ticket, retryAfter);
				refused = { at: clock.now(), retryAfterMs: retryAfter };
				continue;
			}
			// A bare 503 is a passing error, as serviceRequest reads it: tried again after the Retry Wait until the
			// request's patience is spent, as its Retries would be.
			pace.answered(ticket);
			refused = undefined;
			if (clock.now() >= firstSentAt + patienceMs) return giveUp();
			await clock.sleep(options.retryDelayMs);
		}
	};
	// Each step's requests wait in one line, which every worker takes from.
	const lines = steps.map(() => ({ next: 0 }));
	const sendAll = async () => {
		// Each worker is a process of its own, with a pace of its own.
		const pace = new ServicePace(clock);
		for (const [index, step] of steps.entries()) {
			const line = lines[index];
			const slot = async () => {
				while (line.next < step.count) {
					line.next += 1;
					await request(pace);
					if (step.gapMs !== undefined) await clock.sleep(step.gapMs);
				}
			};
			await Promise.all(Array.from({ length: Math.min(step.concurrency, step.count) }, slot));
		}
	};
	const otherApp = async ({ perSecond, forMs }: NonNullable<VirtualRunOptions['otherApp']>) => {
		while (clock.now() < forMs) {
			refusals.take(clock.now());
			await clock.sleep(1000 / perSecond);
		}
	};
	const all = Promise.all([
		...Array.from({ length: workers.count }, async (_, worker) => {
			await clock.sleep(worker * workers.startsApartMs);
			await sendAll();
		}),
		options.otherApp && otherApp(options.otherApp),
	]);
	await clock.runUntil(all);
	await all;
	run.ms = clock.now();
	return run;
}
