import { sleep } from 'n8n-workflow';

import type { RefusalReason } from '../attemptOutcome';
import type { Ticket } from './adaptiveRate';
import { AdaptiveRate } from './adaptiveRate';

/**
 * The service's gate. Every request of every run in this n8n process that sends to one service (its origin) with one
 * token waits here, in the order of its first attempt, until the pause after a refusal is over and the rate
 * (adaptiveRate.ts) has a token for it, or Stop comes, or it has waited through refusals as long as it may. Only speed
 * depends on what the gate keeps: another worker, or n8n after a restart, starts with the bucket off.
 */

/** The longest the gate sleeps at once (docs/reliability.md): a wake further off is slept towards in steps. */
const LONGEST_SLEEP_MS = 1000;
/** The services whose pace is kept, at most (docs/reliability.md); the one used least recently is dropped first. */
const MAX_SERVICES = 100;

/** Why a request got no ticket: Stop, or it waited through refusals as long as it may. */
export type NoTicket = 'stopped' | 'outwaited';

/** A refusal as the service gave it; what it said, and its HTTP status, are what a request that gives up reports. */
export type Refusal = RefusalReason & { problem: string; httpCode: string };

export interface TicketRequest {
	/** The request's first attempt (ms since the epoch). */
	since: number;
	/** How long it may wait while the service refuses: (Retries + 1) × Timeout. */
	patienceMs: number;
	/** Its Retry Wait: how long it pauses after a refusal that did not say (Retry-After). */
	retryDelayMs: number;
	stop?: AbortSignal;
}

/** Time as the gate reads it; a test may run it on a clock of its own. */
export type PaceClock = { now(): number; sleep(ms: number): Promise<void> };

type Waiter = TicketRequest & { settle(ticket: Ticket | NoTicket): void };

export class ServicePace {
	private readonly rate = new AdaptiveRate();
	private readonly queue: Waiter[] = [];
	/** The latest refusal that cut the rate, and when it came. */
	private refusal: (Refusal & { at: number }) | undefined;
	/** When the first request the service refused since it last took one was sent; undefined while it takes them. */
	private refusingSince: number | undefined;
	private wakeAt: number | undefined;

	constructor(private readonly clock: PaceClock = { now: () => Date.now(), sleep }) {}

	get latestRefusal(): Refusal | undefined {
		return this.refusal;
	}

	/** Lets the request out with a ticket: at once if nobody waits and nothing holds it back, else in its turn. */
	async acquire(request: TicketRequest): Promise<Ticket | NoTicket> {
		if (request.stop?.aborted) return 'stopped';
		const now = this.clock.now();
		if (this.queue.length === 0 && this.refusingSince === undefined && this.waitMs(request, now) <= 0)
			return this.rate.take(now);
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
		this.rate.taken(ticket, this.clock.now());
		this.refusingSince = undefined;
		this.dispatch();
	}

	/** The service refused a request (429, 503): a refusal that cuts the rate pauses the requests waiting. */
	refused(ticket: Ticket, refusal: Refusal): void {
		const now = this.clock.now();
		if (!this.rate.refused(ticket, now)) return;
		this.refusal = { ...refusal, at: now };
		this.refusingSince ??= ticket.sentAt;
		this.dispatch();
	}

	/**
	 * Lets out each waiter whose pause is over while the bucket has a token; gives up on those that have waited through
	 * refusals as long as they may, from their first attempt or from when the refusals began; and sleeps until the next.
	 */
	private dispatch(): void {
		const now = this.clock.now();
		const { refusingSince } = this;
		let nextMs = Infinity;
		for (const waiter of [...this.queue]) {
			const outwaitedMs =
				refusingSince === undefined ? Infinity : Math.max(waiter.since, refusingSince) + waiter.patienceMs - now;
			const waitMs = this.waitMs(waiter, now);
			if (outwaitedMs <= 0) waiter.settle('outwaited');
			else if (waitMs <= 0) waiter.settle(this.rate.take(now));
			else nextMs = Math.min(nextMs, outwaitedMs, waitMs);
		}
		if (nextMs === Infinity) return;
		// An earlier wake replaces a later one; sleeps of a minute or hours go in steps, given up once nobody waits.
		const at = now + nextMs;
		if (this.wakeAt !== undefined && this.wakeAt <= at && this.wakeAt > now) return;
		this.wakeAt = at;
		this.sleepTowards(at, now);
	}

	/** How long a request waits: for its pause (as long as Retry-After asked, or its Retry Wait), and for a token. */
	private waitMs(request: TicketRequest, now: number): number {
		const paused = this.refusal ? this.refusal.at + (this.refusal.retryAfterMs ?? request.retryDelayMs) - now : 0;
		return Math.max(paused, this.rate.waitMs(now));
	}

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

const paces = new Map<string, ServicePace>();

/**
 * The pace of a service and token in this n8n process, shared by every run that sends to it, whatever its Options.
 * The token is kept only as a fingerprint (FNV-1a, 64 bits), long enough that two shops' tokens do not meet by chance.
 */
export function servicePace(origin: string, token: string): ServicePace {
	let hash = 0xcbf29ce484222325n;
	for (let index = 0; index < token.length; index++) {
		hash = ((hash ^ BigInt(token.charCodeAt(index))) * 0x100000001b3n) & 0xffffffffffffffffn;
	}
	const key = `${origin} ${hash.toString(16)}`;
	const pace = paces.get(key) ?? new ServicePace();
	paces.delete(key);
	paces.set(key, pace);
	if (paces.size > MAX_SERVICES) paces.delete(paces.keys().next().value as string);
	return pace;
}
