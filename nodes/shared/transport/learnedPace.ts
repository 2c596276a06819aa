import type { RefusalReason } from './attemptOutcome';
import { BACKOFF_CAP_MS } from './attemptOutcome';

/**
 * The pace the service allows, as a run learns it from the service's answers and refusals (with the runs that share
 * it in this n8n process, servicePace.ts); the run's gate asks it when each request may go out. The service's rate
 * limit is not published; it refuses (429) when pushed. So the run:
 * - starts past the cautious start below where the runs before it in this n8n process were never refused by the
 *   service (rememberedPace.ts); at a refusal it learns as below. Otherwise it
 * - starts cautiously: one request at a time until 16 have been answered and a second has passed, then one more in
 *   flight with every answer (twice as many each round trip), so that running into the end of the service's burst
 *   costs one refused request, not a whole round of them;
 * - at its first refusal for the rate, guesses the pace from that first cycle — the requests the service took, over
 *   the time they took plus the pause it asked for — and from then on keeps a copy of the service's bucket: after a
 *   pause it sends what the pause refilled, then one request per tick of that pace, 0.3% faster with each success
 *   while the pace is only a guess and the service took the latest requests (those of about the latest second, two
 *   at least) at 9/10 of the pace or faster: what the run did not send shows nothing of whether the service would
 *   take more, so a pace grows to at most a ninth past the rate the service took them at;
 * - at a further refusal for the rate, measures it (measuredPerMs) and keeps 1% under it, never faster: each refusal
 *   shows that the pace it refused was too fast; once its measurements have counted 16 requests taken, for the rest of
 *   the run. Fewer show a moment, not the service's rate: the share the run got while the end of a burst was still
 *   being fought over (by the workers of a queue-mode n8n, each with its own pace, or by another app). From such a
 *   measurement the pace grows again, 2% with each such success, until a refusal measures it anew, and keeps the
 *   burst it guessed;
 * - where runs share it at once (a run joined it while others were sending through it: the executions of a busy n8n,
 *   such as a queue-mode worker, whose service other workers may be sending to as well, each measuring only its own
 *   share), learns from its first refusal on as TCP's flows share a link: at each further refusal, whoever pushed, it
 *   keeps four fifths of its pace, and it grows by a twentieth of a request a second each second while the service
 *   takes it (under one a second, by a twentieth of itself at each success). The larger share gives up more and all
 *   grow alike, so workers even out, and what one leaves when it is through, the others take up. A pace of one run
 *   (taken up by a run while no other was sending through it) keeps the rate it measured instead: growing past it
 *   would cost that run a refusal every half-minute, where a shared pace's refusals are spread over its runs;
 * - guesses and measures only over time it pushed the service: after a second with nothing to send, it measures anew
 *   from the next request;
 * - learns anew when asked to (runs joining a pace whose rate is older than a minute, servicePace.ts): from the
 *   cautious start, as a fresh run; the rate it held is the least it then guesses, since the service took it;
 * - while the service refuses (429, or 503 unavailable), pauses as long as it asks (Retry-After) or Retry Wait,
 *   doubled while pauses keep ending in refusals, then sends one request at a time, at most 4 in any second, until
 *   one is taken;
 * - lets a request waiting through refusals give up once (Retries + 1) × Timeout have passed since its first attempt
 *   (or since the refusals began, if they began later) — the time it waited behind the run's pause included.
 */

/** Requests a fresh run sends one at a time: the end of a service's burst is found at the cost of one refusal. */
const CAUTIOUS_START = 16;
/**
 * And a second at least: a limit counts requests a second (Retry-After asks in seconds); a burst of a second's worth
 * ends within it wherever one request at a time is twice the service's rate (10/s inside n8n, 40-50 ms a request).
 */
const CAUTIOUS_MS = 1000;
/**
 * A gate idle this long starts its measurement over: a limit counts requests a second, so a second with nothing sent
 * refills a burst of a second's worth, and time the run did not push the service says nothing of its rate.
 */
const IDLE_MS = 1000;
/** The most requests the node sends a service that keeps refusing, in any second. */
const REFUSED_PER_SECOND = 4;
/** The window those are counted in: a second, and a tenth more so that the network's jitter cannot squeeze a fifth in. */
const REFUSED_WINDOW_MS = 1100;
/** How much faster each success makes a guessed pace, until a refusal measures it. */
const CREEP = 1.003;
/** Over about how long the service's taking of the pace is judged before it grows: a limit counts requests a second. */
const TAKEN_WINDOW_MS = 1000;
/**
 * How near the pace the service must have taken them: the gate waits whole milliseconds, so a pace of up to 100 a
 * second goes out at no less than 10/11 of itself.
 */
const TAKEN_SHARE = 0.9;
/**
 * Requests taken, over the measurements of a pace, that make it sure: as many as the cautious start takes one at a
 * time to find the end of a burst. Over fewer, one request more or fewer moves the rate by more than a sixteenth.
 */
const SURE_AFTER_TAKEN = CAUTIOUS_START;
/**
 * How much faster each success makes a pace measured over fewer: a share halved in a crowded second is regained within
 * 35 successes, 14 s at 2.5 a second, a quarter of the minute 300 form submissions take against 5 a second (issue 50).
 */
const UNSURE_CREEP = 1.02;
/**
 * How fast a pace that runs share at once grows: a twentieth of a request a second each second, so that workers
 * sharing a limit grow alike. A worker that gave up a fifth of issue 50's 5 a second regains it in 20 s, a third of
 * the minute 300 form submissions take; past the limit, its overshoot empties a burst of a second's worth in about
 * 14 s (0.05 × 14² / 2 = 5 requests).
 */
const SHARED_GROWTH_PER_S = 0.05;
/**
 * The most such a pace grows at one success: a twentieth of itself. Under one a second, successes more than a second
 * apart would each add more than a twentieth of a request a second (at one a minute, 3 a second at once), and a
 * slow limit would be overshot and refused at every other request.
 */
const SHARED_MOST_AT_A_SUCCESS = 1.05;
/**
 * What such a pace keeps of itself at a refusal: the larger share gives up more. Halving, as TCP does, left 45 of 216
 * two-worker shapes under 4.5 a second of 5 in virtual time, where four fifths left one (docs/reliability.md).
 */
const SHARED_KEPT = 0.8;
/** A measured pace is kept this far under what was measured, so that timing jitter does not cross it. */
const MEASURED_MARGIN = 0.99;
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

/** How long a request may wait while the service refuses. */
export interface Patience {
	/** The request's first attempt (ms since the epoch). */
	since: number;
	/** How long it may wait while the service refuses: (Retries + 1) × Timeout. */
	patienceMs: number;
}

export class LearnedPace {
	private answeredInRun = 0;

	/** When the run sent its first request. */
	private firstSentAt: number | undefined;

	/** The requests answered when the cautious start ended (0 for a run that starts calm); undefined while it lasts. */
	private cautiousEndedAt: number | undefined;

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

	/**
	 * The copy of the service's bucket, once a refusal has shown there is one: requests per ms, its burst, and the
	 * requests taken that the measurements of its pace counted (0 while it is a guess).
	 */
	private bucket: { perMs: number; burst: number; tokens: number; at: number; measuredOver: number } | undefined;

	/** The latest refusal for the rate (before one, the run's first request): where the next measurement starts. */
	private measuringSince: number | undefined;

	/** When each request sent since then was answered, in order. */
	private successTimes: number[] = [];

	/** When the latest requests taken while the pace may grow were answered, idle moments between them or not. */
	private latestTaken: number[] = [];

	/** Whether the run skips the cautious start: runs before it were never refused, and it has not been yet. */
	private calm: boolean;

	/** While learning anew: the rate held before (requests per ms), the least the next guess takes. */
	private heldPerMs = 0;

	/** Whether runs share it at once: one joined it while others were sending through it. */
	private sharedAtOnce = false;

	constructor(
		private readonly retryDelayMs: number,
		startsCalm: boolean,
	) {
		this.calm = startsCalm;
	}

	/** Whether the runs after this one may take the service for calm: its cautious start ended, and it refused none. */
	showsCalm(now: number): boolean {
		return this.latest === undefined && this.cautiousStartIsOver(now);
	}

	/**
	 * A run joined it: while others were sending through it, from now on it learns as a pace that runs share at once;
	 * while none was, as the pace of that one run.
	 */
	joined(whileInUse: boolean): void {
		this.sharedAtOnce = whileInUse;
	}

	/** The latest refusal of the run. */
	get latestRefusal(): Refusal | undefined {
		return this.latest;
	}

	/** Whether it holds no rate learned from refusals (never learned one, or learning anew) and is not refusing. */
	get holdsNoRate(): boolean {
		return this.bucket === undefined && this.refusingSince === undefined;
	}

	/** Whether the service is refusing: a refusal started a pause, and no request sent since has been taken. */
	get refusing(): boolean {
		return this.refusingSince !== undefined;
	}

	/** The service took a request (any answer but a refusal). */
	answered(ticket: Ticket, now: number): void {
		this.answeredInRun += 1;
		this.lastAnswerMs = now - ticket.sentAt;
		if (ticket.round !== this.round) return;
		this.successTimes.push(now);
		this.refusingSince = undefined;
		this.refusedRounds = 0;
		this.probesSentAt = [];
		if (this.bucket === undefined || (!this.sharedAtOnce && this.bucket.measuredOver >= SURE_AFTER_TAKEN)) return;
		// It grows if the service took the latest requests (about a second's worth, two at least) at the pace.
		const counted = Math.max(2, Math.ceil(this.bucket.perMs * TAKEN_WINDOW_MS));
		this.latestTaken.push(now);
		while (this.latestTaken.length > counted) this.latestTaken.shift();
		const takenPerMs = (counted - 1) / Math.max(1, now - this.latestTaken[0]);
		if (this.latestTaken.length < counted || takenPerMs < TAKEN_SHARE * this.bucket.perMs) return;
		if (this.sharedAtOnce) {
			const grown = this.bucket.perMs + SHARED_GROWTH_PER_S / 1_000_000 / this.bucket.perMs;
			this.bucket.perMs = Math.min(grown, this.bucket.perMs * SHARED_MOST_AT_A_SUCCESS);
		} else {
			this.bucket.perMs *= this.bucket.measuredOver === 0 ? CREEP : UNSURE_CREEP;
		}
	}

	/**
	 * The service refused a request, for its rate (429) or as unavailable (503). Only a refusal of a request sent since
	 * the latest pause starts a new one: those already in flight were refused for the same push.
	 */
	refused(ticket: Ticket, refusal: Refusal, now: number): void {
		this.latest = refusal;
		this.calm = false;
		// Refused before a pace was learned: the doubling starts over once the cautious start's end is met, or at once.
		if (this.bucket === undefined) this.cautiousEndedAt = undefined;
		const { why, retryAfterMs } = refusal;
		if (ticket.round === this.round) {
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
	}

	/**
	 * A refusal for the rate: the service's bucket is empty now. The first one after requests were taken guesses the
	 * pace from that first cycle (a service that refuses from the start shows none); a later one measures it.
	 */
	private learn(now: number, pauseMs: number): void {
		const since = this.measuringSince ?? now;
		const taken = this.successTimes.length;
		if (this.bucket === undefined && taken > 0) {
			const perMs = Math.max(SLOWEST_PER_MS, this.heldPerMs, taken / Math.max(1, now - since + pauseMs));
			this.heldPerMs = 0;
			this.bucket = { perMs, burst: Math.max(1, perMs * pauseMs), tokens: 0, at: now, measuredOver: 0 };
		} else if (this.bucket !== undefined) {
			if (taken > 0) {
				const lowered = this.sharedAtOnce
					? this.bucket.perMs * SHARED_KEPT
					: Math.min(this.bucket.perMs, this.measuredPerMs(now, since, this.bucket.burst) * MEASURED_MARGIN);
				this.bucket.perMs = Math.max(SLOWEST_PER_MS, lowered);
				this.bucket.measuredOver += taken;
			}
			// What a pause refills, at a pace measured sure: a crowded moment's share would understate the burst, and a
			// later measurement, less too small a burst, overstate the rate.
			if (this.bucket.measuredOver >= SURE_AFTER_TAKEN) {
				this.bucket.burst = Math.max(1, Math.min(this.bucket.burst, this.bucket.perMs * pauseMs));
			}
			this.bucket.tokens = 0;
			this.bucket.at = now;
		}
		this.measuringSince = now;
		this.successTimes = [];
	}

	/**
	 * The service's rate, from the requests it took since the previous refusal: at least their number over the time
	 * since (its bucket was empty then and now; after an idle second, up to a burst more than that); and at least what
	 * any latest stretch of them sustained, less what a full bucket could have given — a stretch that a slow start or a
	 * long pause does not dilute.
	 */
	private measuredPerMs(now: number, since: number, burst: number): number {
		const taken = this.successTimes.length;
		let perMs = taken / Math.max(1, now - since);
		this.successTimes.forEach((at, index) => {
			perMs = Math.max(perMs, (taken - index - burst) / Math.max(1, now - at));
		});
		return perMs;
	}

	/**
	 * Milliseconds until the next request may go out, with `inFlight` requests sent and not yet answered: 0 if now, or
	 * undefined until a place in flight frees.
	 */
	waitBeforeSending(now: number, inFlight: number): number | undefined {
		if (now < this.resumeAt) return this.resumeAt - now;
		if (this.refusingSince !== undefined) {
			if (inFlight >= 1) return undefined;
			const oldest = this.probesSentAt.length >= REFUSED_PER_SECOND ? this.probesSentAt[0] : undefined;
			return oldest !== undefined && now - oldest < REFUSED_WINDOW_MS ? oldest + REFUSED_WINDOW_MS - now : 0;
		}
		if (this.bucket === undefined) {
			// Where the runs before were never refused, the run goes on from where the cautious start ends.
			if (this.cautiousEndedAt === undefined && (this.calm || this.cautiousStartIsOver(now))) {
				this.cautiousEndedAt = this.answeredInRun;
			}
			const allowed = this.cautiousEndedAt === undefined ? 1 : this.answeredInRun - this.cautiousEndedAt + 2;
			return inFlight < allowed ? 0 : undefined;
		}
		if (inFlight >= 1 + Math.floor(this.bucket.perMs * this.lastAnswerMs)) return undefined;
		const tokens = this.refilled(now);
		return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.bucket.perMs);
	}

	/**
	 * The gate was idle for `idleMs` before a request came to it. After an idle second, what the service took before
	 * is not measured with what it takes next (the pace is kept): otherwise a few requests spread over a minute would
	 * read as the service's rate, and a run joining the pace would crawl at it.
	 */
	idled(idleMs: number): void {
		if (idleMs < IDLE_MS) return;
		this.measuringSince = undefined;
		this.successTimes = [];
	}

	/**
	 * Forgets the rate learned from refusals and learns it anew from the next request on, from the cautious start as a
	 * fresh run does (a pause under way is kept). A rate measured in a busy spell then holds back the runs that keep
	 * joining for a minute at most (servicePace.ts); where the service still allows the rate, learning it anew costs a
	 * refusal or two, not the rate: it is the least the guess after the refusal takes.
	 */
	learnAnew(): void {
		if (this.bucket === undefined) return;
		this.heldPerMs = this.bucket.perMs;
		this.bucket = undefined;
		this.answeredInRun = 0;
		this.firstSentAt = undefined;
		this.cautiousEndedAt = undefined;
		this.measuringSince = undefined;
		this.successTimes = [];
	}

	/** A request goes out now: its ticket. */
	sent(now: number): Ticket {
		this.firstSentAt ??= now;
		this.measuringSince ??= now;
		if (this.refusingSince !== undefined) this.probesSentAt = [...this.probesSentAt, now].slice(-REFUSED_PER_SECOND);
		if (this.bucket) {
			this.bucket.tokens = this.refilled(now) - 1;
			this.bucket.at = now;
		}
		return { round: this.round, sentAt: now };
	}

	private cautiousStartIsOver(now: number): boolean {
		return this.answeredInRun >= CAUTIOUS_START && now - (this.firstSentAt ?? now) >= CAUTIOUS_MS;
	}

	private refilled(now: number): number {
		const bucket = this.bucket!;
		return Math.min(bucket.burst, bucket.tokens + (now - bucket.at) * bucket.perMs);
	}

	/** While the service refuses, a request gives up once its patience has passed since it, or the refusals, began. */
	deadlineOf(request: Patience): number {
		return Math.max(request.since, this.refusingSince ?? request.since) + request.patienceMs;
	}
}
