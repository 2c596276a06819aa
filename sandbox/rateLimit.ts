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
