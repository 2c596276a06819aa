import { sleep } from 'n8n-workflow';

import { executionScoped } from '../executionScope';
import type { RefusalReason } from './attemptOutcome';
import { BACKOFF_CAP_MS } from './attemptOutcome';

/**
 * The pace the service allows, learned by one run and shared by every request it sends (pages, lookups, creates,
 * updates, upload addresses). The service's rate limit is not published; it refuses (429) when pushed. So the run:
 * - starts cautiously: one request at a time until 16 have been answered, then one more in flight with every answer
 *   (twice as many each round trip), so that running into the end of the service's burst costs one refused request,
 *   not a whole round of them;
 * - at its first refusal for the rate, guesses the pace from that first cycle — the requests the service took, over
 *   the time they took plus the pause it asked for — and from then on keeps a copy of the service's bucket: after a
 *   pause it sends what the pause refilled, then one request per tick of that pace, 0.3% faster with each success
 *   while the pace is only a guess;
 * - at a further refusal for the rate, measures it (measuredPerMs) and keeps 1% under it for the rest of the run,
 *   never faster;
 * - while the service refuses (429, or 503 unavailable), pauses as long as it asks (Retry-After) or Retry Wait,
 *   doubled while pauses keep ending in refusals, then sends one request at a time, at most 4 in any second, until
 *   one is taken;
 * - lets a request waiting through refusals give up once (Retries + 1) × Timeout have passed since its first attempt
 *   (or since the refusals began, if they began later) — the time it waited behind the run's pause included.
 * Nothing of it outlives the run: the next execution, or another worker, learns anew.
 */

/** Requests a fresh run sends one at a time: the end of a service's burst is found at the cost of one refusal. */
const CAUTIOUS_START = 16;
/** The most requests the node sends a service that keeps refusing, in any second. */
const REFUSED_PER_SECOND = 4;
/** The window those are counted in: a second, and a tenth more so that the network's jitter cannot squeeze a fifth in. */
const REFUSED_WINDOW_MS = 1100;
/** How much faster each success makes a guessed pace, until a refusal measures it. */
const CREEP = 1.003;
/** A measured pace is kept this far under what was measured, so that timing jitter does not cross it. */
const MEASURED_MARGIN = 0.99;
/** The longest the pace sleeps at once: a wake further off is slept towards in steps, and given up when nobody waits. */
const LONGEST_SLEEP_MS = 1000;
/** No pace is slower than one request a minute (the longest Retry-After honoured). */
const SLOWEST_PER_MS = 1 / 60_000;

/** A refusal as the service gave it. */
export interface Refusal extends RefusalReason {
	/** What it said, in words, and its HTTP status: what a request that gives up waiting reports. */
	problem: string;
	httpCode: string;
}

/** A place in flight, taken by a request about to be sent. */
export interface Ticket {
	/** The pause the request went out after: only a refusal of the latest one starts a new pause. */
	round: number;
	sentAt: number;
}

/** Why a request got no ticket: Stop, or it waited through refusals as long as it may. */
export type NoTicket = 'stopped' | 'outwaited';

export interface TicketRequest {
	stop?: AbortSignal;
	/** The request's first attempt (ms since the epoch). */
	since: number;
	/** How long it may wait while the service refuses: (Retries + 1) × Timeout. */
	patienceMs: number;
}

/** Time as the pace reads it; a test may run the pace on a clock of its own. */
export interface PaceClock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

const SYSTEM_CLOCK: PaceClock = { now: () => Date.now(), sleep };

interface Waiter extends TicketRequest {
	settle(ticket: Ticket | NoTicket): void;
}

export class ServicePace {
	private inFlight = 0;

	private answeredInRun = 0;

	/** How long the latest answered request took, so that a fast pace may have more than one in flight. */
	private lastAnswerMs = 0;

	/** Pauses so far; a ticket remembers the round it went out in. */
	private round = 0;

	/** No request goes out before this time (ms since the epoch). */
	private resumeAt = 0;

	/** When the service began refusing; undefined while it takes requests. */
	private refusingSince: number | undefined;

	/** Pauses in a row that ended in another refusal, with no success since. */
	private refusedRounds = 0;

	private latest: Refusal | undefined;

	/** When the requests of the current refusing spell were sent, the latest few. */
	private probesSentAt: number[] = [];

	/** The copy of the service's bucket, once a refusal has shown there is one: requests per ms, and its burst. */
	private bucket: { perMs: number; burst: number; tokens: number; at: number; measured: boolean } | undefined;

	/** The latest refusal for the rate (before one, the run's first request): where the next measurement starts. */
	private measuringSince: number | undefined;

	/** When each request sent since then was answered, in order. */
	private successTimes: number[] = [];

	private readonly queue: Waiter[] = [];

	private wakeAt: number | undefined;

	constructor(
		private readonly retryDelayMs: number,
		private readonly clock: PaceClock = SYSTEM_CLOCK,
	) {}

	/** The latest refusal of the run. */
	get latestRefusal(): Refusal | undefined {
		return this.latest;
	}

	/**
	 * Waits until a request may go out — the pause is over, the pace allows it and a place in flight is free — and
	 * takes the place. Requests go in the order of their first attempts.
	 */
	async acquire(request: TicketRequest): Promise<Ticket | NoTicket> {
		if (request.stop?.aborted) return 'stopped';
		return await new Promise<Ticket | NoTicket>((resolve) => {
			const onStop = () => waiter.settle('stopped');
			const waiter: Waiter = {
				...request,
				settle: (ticket) => {
					request.stop?.removeEventListener('abort', onStop);
					const position = this.queue.indexOf(waiter);
					if (position !== -1) this.queue.splice(position, 1);
					resolve(ticket);
				},
			};
			request.stop?.addEventListener('abort', onStop, { once: true });
			const before = this.queue.findIndex((queued) => queued.since > request.since);
			this.queue.splice(before === -1 ? this.queue.length : before, 0, waiter);
			this.dispatch();
		});
	}

	/** The service took a request (any answer but a refusal). */
	answered(ticket: Ticket): void {
		const now = this.clock.now();
		this.answeredInRun += 1;
		this.lastAnswerMs = now - ticket.sentAt;
		if (ticket.round === this.round) {
			this.successTimes.push(now);
			this.refusingSince = undefined;
			this.refusedRounds = 0;
			this.probesSentAt = [];
		}
		if (this.bucket && !this.bucket.measured) this.bucket.perMs *= CREEP;
		this.free();
	}

	/**
	 * The service refused a request, for its rate (429) or as unavailable (503). Only a refusal of a request sent since
	 * the latest pause starts a new one: those already in flight were refused for the same push.
	 */
	refused(ticket: Ticket, refusal: Refusal): void {
		this.latest = refusal;
		const { why, retryAfterMs } = refusal;
		if (ticket.round === this.round) {
			const now = this.clock.now();
			this.round += 1;
			this.refusedRounds += 1;
			if (this.refusingSince === undefined) {
				// The service has refused since the refused request was sent, the first of this spell it received.
				this.refusingSince = ticket.sentAt;
				this.probesSentAt = [ticket.sentAt];
			}
			const backoff = Math.min(this.retryDelayMs * 2 ** (this.refusedRounds - 1), BACKOFF_CAP_MS);
			// Retry-After is honoured as it is; only when pauses keep ending in refusals does the run wait longer.
			const pauseMs =
				retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, this.refusedRounds > 1 ? backoff / 2 : 0);
			this.resumeAt = now + pauseMs;
			if (why === 'rate') this.learn(now, pauseMs);
		}
		this.free();
	}

	/** A request that got no answer (a lost connection, the Timeout): its place frees, nothing is learned. */
	unanswered(): void {
		this.free();
	}

	/**
	 * A refusal for the rate: the service's bucket is empty now. The first one after requests were taken guesses the
	 * pace from that first cycle (a service that refuses from the start shows none); a later one measures it.
	 */
	private learn(now: number, pauseMs: number): void {
		const since = this.measuringSince ?? now;
		const taken = this.successTimes.length;
		if (this.bucket === undefined && taken > 0) {
			const perMs = Math.max(SLOWEST_PER_MS, taken / Math.max(1, now - since + pauseMs));
			this.bucket = { perMs, burst: Math.max(1, perMs * pauseMs), tokens: 0, at: now, measured: false };
		} else if (this.bucket !== undefined) {
			if (taken > 0) {
				const measuredPerMs = this.measuredPerMs(now, since, this.bucket.burst) * MEASURED_MARGIN;
				this.bucket.perMs = Math.max(SLOWEST_PER_MS, Math.min(this.bucket.perMs, measuredPerMs));
				this.bucket.measured = true;
			}
			this.bucket.burst = Math.max(1, Math.min(this.bucket.burst, this.bucket.perMs * pauseMs));
			this.bucket.tokens = 0;
			this.bucket.at = now;
		}
		this.measuringSince = now;
		this.successTimes = [];
	}

	/**
	 * The service's rate, from the requests it took since the previous refusal: at least their number over the time
	 * since (its bucket was empty then and now); and at least what any latest stretch of them sustained, less what a
	 * full bucket could have given — a stretch that a slow start or a long pause does not dilute.
	 */
	private measuredPerMs(now: number, since: number, burst: number): number {
		const taken = this.successTimes.length;
		let perMs = taken / Math.max(1, now - since);
		this.successTimes.forEach((at, index) => {
			perMs = Math.max(perMs, (taken - index - burst) / Math.max(1, now - at));
		});
		return perMs;
	}

	private free(): void {
		this.inFlight -= 1;
		this.dispatch();
	}

	/** Hands out the tickets the pace allows now, gives up on requests out of patience, and sleeps until the next. */
	private dispatch(): void {
		const now = this.clock.now();
		if (this.refusingSince !== undefined) {
			for (const waiter of [...this.queue]) {
				if (now >= this.deadlineOf(waiter)) waiter.settle('outwaited');
			}
		}
		while (this.queue.length > 0) {
			const waitMs = this.waitBeforeSending(now);
			if (waitMs === 0) {
				this.queue[0].settle(this.take(now));
				continue;
			}
			// Waiting for a place in flight: the next answer dispatches again.
			if (waitMs !== undefined) this.wakeIn(waitMs, now);
			break;
		}
		if (this.refusingSince !== undefined && this.queue.length > 0) {
			this.wakeIn(Math.min(...this.queue.map((waiter) => this.deadlineOf(waiter))) - now, now);
		}
	}

	/** Milliseconds until the next request may go out, 0 if now, or undefined until a place in flight frees. */
	private waitBeforeSending(now: number): number | undefined {
		if (now < this.resumeAt) return this.resumeAt - now;
		if (this.refusingSince !== undefined) {
			if (this.inFlight >= 1) return undefined;
			const oldest = this.probesSentAt.length >= REFUSED_PER_SECOND ? this.probesSentAt[0] : undefined;
			return oldest !== undefined && now - oldest < REFUSED_WINDOW_MS ? oldest + REFUSED_WINDOW_MS - now : 0;
		}
		if (this.bucket === undefined) {
			const allowed = this.answeredInRun < CAUTIOUS_START ? 1 : this.answeredInRun - CAUTIOUS_START + 2;
			return this.inFlight < allowed ? 0 : undefined;
		}
		if (this.inFlight >= 1 + Math.floor(this.bucket.perMs * this.lastAnswerMs)) return undefined;
		const tokens = this.refilled(now);
		return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.bucket.perMs);
	}

	private take(now: number): Ticket {
		this.inFlight += 1;
		this.measuringSince ??= now;
		if (this.refusingSince !== undefined) this.probesSentAt = [...this.probesSentAt, now].slice(-REFUSED_PER_SECOND);
		if (this.bucket) {
			this.bucket.tokens = this.refilled(now) - 1;
			this.bucket.at = now;
		}
		return { round: this.round, sentAt: now };
	}

	private refilled(now: number): number {
		const bucket = this.bucket!;
		return Math.min(bucket.burst, bucket.tokens + (now - bucket.at) * bucket.perMs);
	}

	/** While the service refuses, a request gives up once its patience has passed since it, or the refusals, began. */
	private deadlineOf(waiter: Waiter): number {
		return Math.max(waiter.since, this.refusingSince ?? waiter.since) + waiter.patienceMs;
	}

	/** Dispatches again at `now + ms`, unless an earlier wake is due; an earlier one replaces a later one. */
	private wakeIn(ms: number, now: number): void {
		const at = now + Math.max(0, ms);
		if (this.wakeAt !== undefined && this.wakeAt <= at && this.wakeAt > now) return;
		this.wakeAt = at;
		this.sleepTowards(at, now);
	}

	/**
	 * Sleeps towards a wake in steps of at most a second, and gives it up once nobody waits: a pause of a minute, or a
	 * request's patience of hours, leaves no timer behind the run.
	 */
	private sleepTowards(at: number, now: number): void {
		void this.clock.sleep(Math.min(at - now, LONGEST_SLEEP_MS)).then(() => {
			if (this.wakeAt !== at) return;
			const later = this.clock.now();
			if (later < at && this.queue.length > 0) return this.sleepTowards(at, later);
			this.wakeAt = undefined;
			this.dispatch();
		});
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
