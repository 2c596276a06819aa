/**
 * The one rule of the pace (docs/reliability.md, "At the service's pace"), the AWS SDK's adaptive retry mode's:
 * - Off until a refusal cuts the rate: until then only the run's Concurrency limits it.
 * - Then a token bucket: each request takes a token; tokens come at `rate` a second, at most a second's worth held.
 * - A refusal cuts the rate if the service refused more than MOST_REFUSED of the requests sent in the latest second
 *   (fewer, no rate explains): the bucket is emptied, as the service's is, and the rate cut to BETA of what the service
 *   took in that second (or of the rate, if lower): the rate it was cut from. A refusal of a request sent before the
 *   latest cut cuts nothing: it was refused for the same push.
 * - At each success the rate follows one curve, CUBIC, in the time since the cut: back to the rate it was cut from
 *   after a while, then probing past it, faster and faster; growing no further once past MOST_OF_MEASURED times what
 *   the service took in the latest second, never under MIN_RATE. A success of a request sent before the cut raises the rate cut from.
 */

/** What is kept at a cut of the rate the service took (AWS's β; docs/reliability.md). */
const BETA = 0.7;
/** How fast the curve grows, in requests a second per second cubed (docs/reliability.md; AWS's 0.4 is for faster). */
const CUBIC_SCALE = 0.006;
/** The most the rate grows to, times what the service took in the latest second (AWS's 2; docs/reliability.md). */
const MOST_OF_MEASURED = 2;
/** The slowest rate, in requests a second (AWS's minimum fill rate; docs/reliability.md). */
const MIN_RATE = 0.5;
/** The window the service's rate is measured over (docs/reliability.md: a limit counts requests a second). */
const MEASURED_OVER_MS = 1000;
/** The share of the requests sent in that window that the service may refuse without a cut (docs/reliability.md). */
const MOST_REFUSED = 0.1;

/** A request let out: when, and how many cuts were made before it. */
export type Ticket = { sentAt: number; cuts: number };

export class AdaptiveRate {
	/** Requests a second, undefined while the bucket is off; the tokens in it, as of tokensAt (ms). */
	private rate: number | undefined;
	private tokens = 0;
	private tokensAt = 0;
	/** Cuts made; when the latest was made (ms), the rate before it, and the rate it was cut from (requests a second). */
	private cuts = 0;
	private cutAt = 0;
	private rateBeforeCut = Infinity;
	private cutFrom = 0;
	/** When each request of the latest MEASURED_OVER_MS was sent, taken, and refused (ms). */
	private readonly sentAt: number[] = [];
	private readonly takenAt: number[] = [];
	private readonly refusedAt: number[] = [];

	/** Milliseconds until a token is there (0: now). */
	waitMs(now: number): number {
		if (this.rate === undefined) return 0;
		this.refill(now);
		return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.rate) * 1000);
	}

	/** A request goes out now: it takes a token. */
	take(now: number): Ticket {
		while (this.sentAt[0] <= now - MEASURED_OVER_MS) this.sentAt.shift();
		this.sentAt.push(now);
		if (this.rate !== undefined) this.tokens = this.refill(now) - 1;
		return { sentAt: now, cuts: this.cuts };
	}

	/** The service took a request: the rate follows the curve. */
	taken(ticket: Ticket, now: number): void {
		this.takenAt.push(now);
		const measured = this.measured(now);
		if (this.rate === undefined) return;
		if (ticket.cuts === this.cuts - 1) this.cutFrom = Math.max(this.cutFrom, Math.min(measured, this.rateBeforeCut));
		this.refill(now);
		const backAfterS = Math.cbrt((this.cutFrom * (1 - BETA)) / CUBIC_SCALE);
		const curve = CUBIC_SCALE * ((now - this.cutAt) / 1000 - backAfterS) ** 3 + this.cutFrom;
		this.rate = Math.max(MIN_RATE, Math.min(curve, Math.max(this.rate, MOST_OF_MEASURED * measured)));
		this.tokens = Math.min(this.tokens, Math.max(this.rate, 1));
	}

	/** The service refused a request for its rate; says whether that cut the rate. */
	refused(ticket: Ticket, now: number): boolean {
		if (ticket.cuts !== this.cuts) return false;
		this.refusedAt.push(now);
		const measured = this.measured(now);
		if (this.refusedAt.length <= MOST_REFUSED * this.sentAt.length) return false;
		this.rateBeforeCut = this.rate ?? Infinity;
		this.cutFrom = Math.min(measured, this.rateBeforeCut);
		this.rate = Math.max(MIN_RATE, BETA * this.cutFrom);
		this.tokens = 0;
		this.tokensAt = now;
		this.cutAt = now;
		this.cuts += 1;
		return true;
	}

	/** Requests a second the service took in the latest MEASURED_OVER_MS. */
	private measured(now: number): number {
		for (const times of [this.sentAt, this.takenAt, this.refusedAt])
			while (times.length > 0 && times[0] <= now - MEASURED_OVER_MS) times.shift();
		return (this.takenAt.length * 1000) / MEASURED_OVER_MS;
	}

	private refill(now: number): number {
		const rate = this.rate!;
		this.tokens = Math.min(Math.max(rate, 1), this.tokens + ((now - this.tokensAt) / 1000) * rate);
		this.tokensAt = now;
		return this.tokens;
	}
}
