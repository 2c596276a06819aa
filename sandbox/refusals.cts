import { seededRandom } from './random.cts';

/**
 * How the sandbox refuses requests, each axis a switch of its own, any of them combined (`Sandbox.refuse`):
 * - `bucket`: a steady limit, as a service enforces one — a bucket of `burst` requests, refilled at `perSecond`; a
 *   request that finds it empty is refused;
 * - `everyRequest`: every request refused, for `forMs` milliseconds from when it is set, or `'forGood'`;
 * - `atRandom`: a `share` of the requests that would pass refused at random (seeded), with no rate behind them, as the
 *   fault-injection suite refuses;
 * - `status`: a refusal is 429 Too Many Requests (the default) or 503 Service Unavailable;
 * - `retryAfter`: what a refusal's Retry-After header says — `'seconds'` (the default): the whole seconds until a
 *   request would pass (at least 1; 1 when refusing for good); `'date'`: that moment as an HTTP date; `'zero'`;
 *   `'pastDate'`: an HTTP date an hour ago; `'huge'`: 3600 seconds; `'none'`: no header at all.
 * What was refused is counted (`refused`), and each recorded request says when it was received and whether it was
 * refused, so a test can measure the requests a second the service was sent.
 */
export interface RefusalSettings {
	bucket?: { perSecond: number; burst: number };
	everyRequest?: { forMs: number } | 'forGood';
	atRandom?: { share: number; seed?: number };
	status?: 429 | 503;
	retryAfter?: 'seconds' | 'date' | 'zero' | 'pastDate' | 'huge' | 'none';
}

/** The rate limit of `Sandbox.limitRate` (and SANDBOX_RATE): a bucket, 429 with or without Retry-After in seconds. */
export interface RateLimitSettings {
	perSecond: number;
	burst: number;
	retryAfter: boolean;
}

export function asRefusals(settings: RateLimitSettings): RefusalSettings {
	const { perSecond, burst, retryAfter } = settings;
	return { bucket: { perSecond, burst }, retryAfter: retryAfter ? 'seconds' : 'none' };
}

const HUGE_RETRY_AFTER_SECONDS = 3600;

export class Refusals {
	/** Requests refused so far. */
	refused = 0;

	private tokens: number;

	private refilledAt: number;

	private readonly refusingUntil: number;

	private readonly random: () => number;

	constructor(
		readonly settings: RefusalSettings,
		now = Date.now(),
	) {
		this.tokens = settings.bucket?.burst ?? 0;
		this.refilledAt = now;
		const { everyRequest } = settings;
		this.refusingUntil = everyRequest === undefined ? now : everyRequest === 'forGood' ? Infinity : now + everyRequest.forMs;
		this.random = seededRandom(settings.atRandom?.seed ?? 7);
	}

	/** Takes a request: undefined when it passes, or the status and headers of its refusal. */
	take(now = Date.now()): { status: 429 | 503; headers: Record<string, string> } | undefined {
		const { atRandom } = this.settings;
		let passesInMs = this.passesInMs(now);
		if (passesInMs === 0 && atRandom !== undefined && this.random() < atRandom.share) passesInMs = 1;
		if (passesInMs === 0) return undefined;
		this.refused += 1;
		return { status: this.settings.status ?? 429, headers: this.retryAfter(now, passesInMs) };
	}

	/** 0 if the request passes (and takes a token); otherwise how long until one would. */
	private passesInMs(now: number): number {
		if (now < this.refusingUntil) return this.refusingUntil === Infinity ? 1000 : this.refusingUntil - now;
		const { bucket } = this.settings;
		if (bucket === undefined) return 0;
		this.tokens = Math.min(bucket.burst, this.tokens + ((now - this.refilledAt) / 1000) * bucket.perSecond);
		this.refilledAt = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return 0;
		}
		return ((1 - this.tokens) / bucket.perSecond) * 1000;
	}

	private retryAfter(now: number, passesInMs: number): Record<string, string> {
		const seconds = Math.max(1, Math.ceil(passesInMs / 1000));
		switch (this.settings.retryAfter ?? 'seconds') {
			case 'seconds':
				return { 'retry-after': String(seconds) };
			case 'date':
				return { 'retry-after': new Date(now + seconds * 1000).toUTCString() };
			case 'zero':
				return { 'retry-after': '0' };
			case 'pastDate':
				return { 'retry-after': new Date(now - 3_600_000).toUTCString() };
			case 'huge':
				return { 'retry-after': String(HUGE_RETRY_AFTER_SECONDS) };
			case 'none':
				return {};
		}
	}
}

/** The most of these times (ms) that fall within any one second: what a service counts as requests a second. */
export function mostInASecond(times: number[]): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < sorted.length; last++) {
		while (sorted[last] - sorted[first] >= 1000) first += 1;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

/**
 * The rate limit asked for in the environment, for `npm run sandbox` and `npm run demo`: SANDBOX_RATE requests a
 * second, a burst of SANDBOX_BURST (by default one second's worth), and SANDBOX_RETRY_AFTER=0 for bare 429s.
 */
export function rateLimitFromEnvironment(env: NodeJS.ProcessEnv): RateLimitSettings | undefined {
	const perSecond = Number(env.SANDBOX_RATE ?? 0);
	if (!(perSecond > 0)) return undefined;
	return {
		perSecond,
		burst: Number(env.SANDBOX_BURST ?? Math.max(1, Math.round(perSecond))),
		retryAfter: env.SANDBOX_RETRY_AFTER !== '0',
	};
}

/** The limit in words, for what the sandbox prints. */
export function describeRateLimit(settings: RateLimitSettings): string {
	return `${settings.perSecond} requests a second (bursts of ${settings.burst}), then 429 ${settings.retryAfter ? 'with Retry-After' : 'without Retry-After'}`;
}
