import { sleep } from 'n8n-workflow';

import type { Ticket } from './adaptiveRate';
import { AdaptiveRate } from './adaptiveRate';

/**
 * The service's gate. Every request of every run in this n8n process that sends to one service (its origin) with one
 * token waits here, in the order of its first attempt, until the pauses of its own refusal and of the latest cut are
 * over and the rate (adaptiveRate.ts) has a token for it, or Stop comes, or it gives up: its patience passed since it
 * asked, or since the service last took one if later, refusing since. Only what it answered meanwhile decides that.
 */

/** The longest the gate sleeps at once (docs/reliability.md): a wake further off is slept towards in steps. */
const LONGEST_SLEEP_MS = 1000;
/** The services whose pace is kept, at most (docs/reliability.md); the one used least recently is dropped first. */
const MAX_SERVICES = 100;

/** Why a request got no ticket: Stop, or the service refused it as long as it may. */
export type NoTicket = 'stopped' | 'outwaited';

/** A request's latest attempt, refused: when (ms), and what Retry-After asked. */
export type Refused = { at: number; retryAfterMs: number | undefined };

export interface TicketRequest {
	/** When the request first asked for a ticket (ms since the epoch): its place in line. */
	since: number;
	/** How long it may take while the service refuses it, (Retries + 1) × Timeout; and its Retry Wait. */
	patienceMs: number;
	retryDelayMs: number;
	refused?: Refused;
	stop?: AbortSignal;
}

/** Time as the gate reads it; a test may run it on a clock of its own. */
export type PaceClock = { now(): number; sleep(ms: number): Promise<void> };

type Waiter = TicketRequest & { settle(ticket: Ticket | NoTicket): void };

export class ServicePace {
	private readonly rate = new AdaptiveRate();
	private readonly queue: Waiter[] = [];
	/** The latest refusal that cut the rate (all wait as it asked); when the service last took one, and refused since. */
	private pause: Refused | undefined;
	private lastTaken = { at: -Infinity, refusedSince: false };
	private wakeAt: number | undefined;

	constructor(private readonly clock: PaceClock = { now: () => Date.now(), sleep }) {}

	/** Lets the request out with a ticket: at once if nobody waits and nothing holds it back, else in its turn. */
	async acquire(request: TicketRequest): Promise<Ticket | NoTicket> {
		if (request.stop?.aborted) return 'stopped';
		const now = this.clock.now();
		if (this.queue.length === 0 && this.waitMs(request, now) <= 0 && this.outwaitedMs(request, now) > 0)
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
		this.lastTaken = { at: this.clock.now(), refusedSince: false };
		this.rate.taken(ticket, this.lastTaken.at);
		this.dispatch();
	}

	/** The service refused a request (429, or 503 with Retry-After): if that cuts the rate, every request pauses. */
	refused(ticket: Ticket, retryAfterMs: number | undefined): void {
		const now = this.clock.now();
		this.lastTaken.refusedSince = true;
		if (!this.rate.refused(ticket, now)) return;
		this.pause = { at: now, retryAfterMs };
		this.dispatch();
	}

	/** Lets out the waiters whose pauses are over while there are tokens; gives up on the outwaited; sleeps till next. */
	private dispatch(): void {
		const now = this.clock.now();
		let nextMs = Infinity;
		for (const waiter of [...this.queue]) {
			const outwaitedMs = this.outwaitedMs(waiter, now);
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

	/** How long a request waits: for its own pause and the latest cut's (Retry-After, or its Retry Wait), and a token. */
	private waitMs(request: TicketRequest, now: number): number {
		const paused = (refusal: Refused | undefined) =>
			refusal ? refusal.at + (refusal.retryAfterMs ?? request.retryDelayMs) - now : 0;
		return Math.max(paused(this.pause), paused(request.refused), this.rate.waitMs(now));
	}

	/** Until a request gives up: its patience from when it asked, or the service last took one, if refusing since. */
	private outwaitedMs({ since, patienceMs }: TicketRequest, now: number): number {
		return this.lastTaken.refusedSince ? Math.max(since, this.lastTaken.at) + patienceMs - now : Infinity;
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
