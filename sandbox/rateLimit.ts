/**
 * A rate limit as a service enforces one: a bucket of `burst` requests, refilled at `perSecond`; a request that finds
 * it empty is refused (429), with a Retry-After of the whole seconds until one would pass unless `retryAfter` is false.
 */
export interface RateLimitSettings {
	perSecond: number;
	burst: number;
	retryAfter: boolean;
}

export class RateLimit {
	private tokens: number;

	private refilledAt = Date.now();

	/** Requests refused so far. */
	refused = 0;

	constructor(readonly settings: RateLimitSettings) {
		this.tokens = settings.burst;
	}

	/** Takes a request: undefined when it passes, or the headers of its 429. */
	take(now = Date.now()): Record<string, string> | undefined {
		const { perSecond, burst, retryAfter } = this.settings;
		this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) / 1000) * perSecond);
		this.refilledAt = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return undefined;
		}
		this.refused += 1;
		const seconds = Math.max(1, Math.ceil((1 - this.tokens) / perSecond));
		return retryAfter ? { 'retry-after': String(seconds) } : {};
	}
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
