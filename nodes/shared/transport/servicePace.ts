import { sleep } from 'n8n-workflow';

import { executionScoped } from '../executionScope';
import type { Patience, Refusal, Ticket } from './learnedPace';
import { LearnedPace } from './learnedPace';
import { paceKey, recallCalm, rememberCalm } from './rememberedPace';
import type { RequestPolicy } from './serviceRequest';

/**
 * The run's gate: every request the run sends (pages, lookups, creates, updates, upload addresses) waits here for
 * its turn, in the order of its first attempt, until the pace the run has learned (learnedPace.ts) lets it go out, or
 * Stop comes, or it has waited through refusals as long as it may. Answers and refusals are told to the pace here.
 * Runs in this n8n process share the gate of their service (servicePace below): ten executions a worker runs at once
 * learn one pace, not ten, each pushing the service into refusals. Whether the service refused is kept for the runs
 * after it in this n8n process (rememberedPace.ts); another worker, or a restart, starts cautiously.
 */

/** The longest the pace sleeps at once: a wake further off is slept towards in steps, and given up when nobody waits. */
const LONGEST_SLEEP_MS = 1000;
/**
 * How long a pace's rate is handed to the runs that join it: the longest pause a service may ask for (60 s,
 * learnedPace.ts). A rate learned while the service was busy then holds a new run back no longer than the service
 * itself could have: a run that joins later makes the pace learn anew.
 */
const JOINED_FOR_MS = 60_000;

/** Why a request got no ticket: Stop, or it waited through refusals as long as it may. */
export type NoTicket = 'stopped' | 'outwaited';

export interface TicketRequest extends Patience {
	stop?: AbortSignal;
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

	private readonly learned: LearnedPace;

	private readonly queue: Waiter[] = [];

	private wakeAt: number | undefined;

	/** When a request last left the gate or its place in flight: the gate has been idle since, if none is in use. */
	private lastLeftAt: number;

	/** Whether the service is kept as calm (rememberedPace.ts), as far as this run knows: kept once, not at every answer. */
	private keptCalm: boolean;

	/** When the pace started, or last learned anew (the clock's ms): its rate is handed on for JOINED_FOR_MS. */
	private learnedSince: number;

	/** `service`: the key its pace is remembered by (rememberedPace.ts). */
	constructor(
		retryDelayMs: number,
		private readonly service: string,
		private readonly clock: PaceClock = SYSTEM_CLOCK,
	) {
		this.learnedSince = clock.now();
		this.lastLeftAt = this.learnedSince;
		this.keptCalm = recallCalm(service);
		this.learned = new LearnedPace(retryDelayMs, this.keptCalm);
	}

	/** Whether runs that start now may join it with its rate: it learned it in the last JOINED_FOR_MS. */
	get rateIsRecent(): boolean {
		return this.clock.now() - this.learnedSince < JOINED_FOR_MS;
	}

	/**
	 * A run joins the pace, while others send through it or, if it holds no rate, while none does (learnedPace.ts:
	 * runs at once share it). One that joins a rate older than JOINED_FOR_MS makes it learn anew.
	 */
	joined(): this {
		this.learned.joined(this.inUse);
		if (this.rateIsRecent) return this;
		this.learned.learnAnew();
		this.learnedSince = this.clock.now();
		return this;
	}

	/** Whether a request waits here or is in flight. */
	get inUse(): boolean {
		return this.inFlight > 0 || this.queue.length > 0;
	}

	/**
	 * Whether it holds no rate learned from refusals to hand on, and is not refusing: never refused, refused before
	 * any request was taken, or learning anew (a stream's gate empty for a moment between two answers).
	 */
	get holdsNoRate(): boolean {
		return this.learned.holdsNoRate;
	}

	/**
	 * Whether a run that starts now joins it (servicePace below): runs are sending through it, or it holds no rate and
	 * started or last learned anew in the last JOINED_FOR_MS.
	 */
	get openToNewRuns(): boolean {
		return this.inUse || (this.holdsNoRate && this.rateIsRecent);
	}

	/** The latest refusal of the run. */
	get latestRefusal(): Refusal | undefined {
		return this.learned.latestRefusal;
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
					this.lastLeftAt = this.clock.now();
					request.stop?.removeEventListener('abort', onStop);
					const position = this.queue.indexOf(waiter);
					if (position !== -1) this.queue.splice(position, 1);
					resolve(ticket);
				},
			};
			request.stop?.addEventListener('abort', onStop, { once: true });
			if (!this.inUse) this.learned.idled(this.clock.now() - this.lastLeftAt);
			const before = this.queue.findIndex((queued) => queued.since > request.since);
			this.queue.splice(before === -1 ? this.queue.length : before, 0, waiter);
			this.dispatch();
		});
	}

	/** The service took a request (any answer but a refusal). */
	answered(ticket: Ticket): void {
		const now = this.clock.now();
		this.learned.answered(ticket, now);
		if (!this.keptCalm && this.learned.showsCalm(now)) {
			rememberCalm(this.service, true);
			this.keptCalm = true;
		}
		this.free();
	}

	/** The service refused a request, for its rate (429) or as unavailable (503): it is no longer kept as calm. */
	refused(ticket: Ticket, refusal: Refusal): void {
		this.learned.refused(ticket, refusal, this.clock.now());
		// Forgotten whatever this run kept: another run may have kept it meanwhile.
		rememberCalm(this.service, false);
		this.keptCalm = false;
		this.free();
	}

	/** A request that got no answer (a lost connection, the Timeout): its place frees, nothing is learned. */
	unanswered(): void {
		this.free();
	}

	private free(): void {
		this.inFlight -= 1;
		this.lastLeftAt = this.clock.now();
		this.dispatch();
	}

	/** Hands out the tickets the pace allows now, gives up on requests out of patience, and sleeps until the next. */
	private dispatch(): void {
		const now = this.clock.now();
		if (this.learned.refusing) {
			for (const waiter of [...this.queue]) {
				if (now >= this.learned.deadlineOf(waiter)) waiter.settle('outwaited');
			}
		}
		while (this.queue.length > 0) {
			const waitMs = this.learned.waitBeforeSending(now, this.inFlight);
			if (waitMs === 0) {
				this.inFlight += 1;
				this.queue[0].settle(this.learned.sent(now));
				continue;
			}
			// Waiting for a place in flight: the next answer dispatches again.
			if (waitMs !== undefined) this.wakeIn(waitMs, now);
			break;
		}
		if (this.learned.refusing && this.queue.length > 0) {
			this.wakeIn(Math.min(...this.queue.map((waiter) => this.learned.deadlineOf(waiter))) - now, now);
		}
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

/** The paces runs may join, by service and Options: those in use, or whose rate is under JOINED_FOR_MS old. */
const joinable = new Map<string, ServicePace>();

/**
 * The run's pace, found by its first request (with its item's Options). Runs that send to the same service (origin
 * and token) with the same Options (Retries, Timeout, Retry Wait: what decides how long a request waits, and the
 * pause after a refusal) share one: the pace runs are still sending through, the one started or last learned anew in
 * the last minute that holds no rate learned from refusals and is not refusing, or a new one. So runs that overlap,
 * however long they keep coming, learn one pace and never compete with a second. A rate learned from refusals is not
 * handed on for more than a minute (JOINED_FOR_MS): refusals for another cause (a busy moment, a proxy) would slow
 * every later run. A run keeps the pace it found for all its requests.
 */
export function servicePace(run: object, policy: RequestPolicy, origin: string, token: string): ServicePace {
	return paces.of(run, () => {
		for (const [key, pace] of joinable) if (!pace.inUse && !pace.rateIsRecent) joinable.delete(key);
		const service = paceKey(origin, token);
		const key = `${service} ${policy.maxRetries} ${policy.timeoutMs} ${policy.retryDelayMs}`;
		const found = joinable.get(key);
		if (found?.openToNewRuns) return found.joined();
		const pace = new ServicePace(policy.retryDelayMs, service);
		joinable.set(key, pace);
		return pace;
	});
}
