import { sleep } from 'n8n-workflow';

import { executionScoped } from '../helpers/executionScope';
import { BACKOFF_CAP_MS } from './judge';

/**
 * The pace the service allows, learned by one run and shared by every request it sends (pages, lookups, creates,
 * updates, upload addresses). The service's rate limit is not published; it answers 429 when pushed. So:
 * - a 429 pauses the whole run, not one request: for as long as its Retry-After asks, or without one for Retry Wait,
 *   doubled for each pause in a row that ended in another refusal (a success starts the doubling over);
 * - a pause is one per round: requests already in flight when it began, refused for the same push, wait for it and
 *   start no pause of their own;
 * - each new pause halves the requests allowed in flight (at first as many as the run sends), and every round of
 *   successes as large as that number raises it by one, so after a pause the run does not answer with a burst.
 * Nothing of it outlives the run: the next execution, or another worker, learns anew.
 */
export class ServicePace {
	private inFlight = 0;

	/** Requests allowed in flight; unlimited until the first refusal. */
	private allowed = Infinity;

	private successesInARow = 0;

	/** No request goes out before this time (ms since the epoch). */
	private resumeAt = 0;

	/** Pauses so far; a request remembers the round it went out in. */
	private round = 0;

	/** Pauses in a row that ended in another refusal, with no success since. */
	private refusedRounds = 0;

	/** Requests waiting for a place in flight, woken when one frees. */
	private readonly waiting = new Set<() => void>();

	constructor(private readonly retryDelayMs: number) {}

	/** When the run sends again (ms since the epoch); in the past when it is not pausing. */
	get pausedUntil(): number {
		return this.resumeAt;
	}

	/** How many requests may be in flight right now. */
	get inFlightAllowed(): number {
		return this.allowed;
	}

	/**
	 * Waits until a request may go out — the pause is over and a place in flight is free — and takes the place.
	 * Returns the round it goes out in, or undefined when Stop came first.
	 */
	async acquire(stop?: AbortSignal): Promise<number | undefined> {
		for (;;) {
			if (stop?.aborted) return undefined;
			const pauseLeft = this.resumeAt - Date.now();
			if (pauseLeft > 0) {
				if (await untilStop(sleep(pauseLeft), stop)) return undefined;
				continue;
			}
			if (this.inFlight < this.allowed) {
				this.inFlight += 1;
				return this.round;
			}
			let wake: () => void = () => undefined;
			const freed = new Promise<void>((resolve) => (wake = resolve));
			this.waiting.add(wake);
			const wasStopped = await untilStop(freed, stop);
			this.waiting.delete(wake);
			if (wasStopped) return undefined;
		}
	}

	/** The service answered a request with anything but 429: it took the request at this pace. */
	answered(): void {
		this.refusedRounds = 0;
		this.successesInARow += 1;
		if (this.successesInARow >= this.allowed) {
			this.allowed += 1;
			this.successesInARow = 0;
		}
		this.free();
	}

	/**
	 * The service refused a request that went out in `round` for its rate (429), asking to wait `retryAfterMs` when it
	 * said. A refusal in the current round starts the run's next pause.
	 */
	refused(round: number, retryAfterMs: number | undefined): void {
		this.successesInARow = 0;
		if (round === this.round) {
			const inFlightWhenRefused = this.inFlight;
			this.round += 1;
			this.refusedRounds += 1;
			const backoff = Math.min(this.retryDelayMs * 2 ** (this.refusedRounds - 1), BACKOFF_CAP_MS);
			// Retry-After is honoured as it is; only when pauses keep ending in refusals does the run wait longer.
			const waitMs =
				retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, this.refusedRounds > 1 ? backoff / 2 : 0);
			this.resumeAt = Date.now() + waitMs;
			this.allowed = Math.max(1, Math.floor(Math.min(this.allowed, inFlightWhenRefused) / 2));
		}
		this.free();
	}

	/** A request that got no answer (a lost connection, the Timeout): its place frees, nothing is learned. */
	unanswered(): void {
		this.free();
	}

	private free(): void {
		this.inFlight -= 1;
		for (const wake of this.waiting) wake();
	}
}

/** Waits for `done` unless Stop comes first; says whether Stop came. */
export async function untilStop(done: Promise<unknown>, stop: AbortSignal | undefined): Promise<boolean> {
	if (stop === undefined) {
		await done;
		return false;
	}
	if (stop.aborted) return true;
	let onStop: () => void = () => undefined;
	const stopping = new Promise<void>((resolve) => {
		onStop = resolve;
		stop.addEventListener('abort', onStop, { once: true });
	});
	await Promise.race([done, stopping]);
	stop.removeEventListener('abort', onStop);
	return stop.aborted;
}

const paces = executionScoped<ServicePace>();

/** The run's pace; made by its first request, with that request's Retry Wait. */
export function servicePace(run: object, retryDelayMs: number): ServicePace {
	return paces.of(run, () => new ServicePace(retryDelayMs));
}
