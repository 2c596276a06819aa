import type { RealN8n } from '../instance.cts';
import { sleep } from './wait.cts';

/** The calls the CRMs and form services make: POSTs to a workflow's webhook, many in flight, and what came back. */

export const webhookUrl = (n8n: RealN8n, path: string) => `${n8n.baseUrl}/webhook/${path}`;

/**
 * n8n's answer to every call while its database ping has timed out (abstract-server.js: 503 "Database is not ready!",
 * before any workflow runs), until a ping succeeds: it pings every 2 s (DB_PING_INTERVAL_SECONDS' default).
 */
export const DATABASE_NOT_READY = 'Database is not ready!';
const DATABASE_PING_MS = 2_000;

/**
 * POSTs to a webhook, and sends again what n8n refused before any workflow ran, as a caller that retries would: for up
 * to a minute. n8n 2.x answers 404 for a while after it says it is ready, until it has registered every webhook (an
 * OPTIONS request can find a webhook that a POST cannot yet); n8n 1.x under load answers DATABASE_NOT_READY for a
 * ping's interval now and then.
 */
export async function postToWebhook(url: string, init: RequestInit): Promise<Response> {
	const givingUpAt = Date.now() + 60_000;
	for (;;) {
		const response = await fetch(url, { ...init, method: 'POST' });
		if (Date.now() > givingUpAt || ![404, 503].includes(response.status)) return response;
		const body = await response.text();
		if (response.status === 503 && !body.includes(DATABASE_NOT_READY))
			return new Response(body, { status: response.status, headers: response.headers });
		await sleep(response.status === 404 ? 1000 : DATABASE_PING_MS);
	}
}

/**
 * Calls a webhook `count` times, `inFlight` at once; the body of call i is `body(i)`. Gives each call's HTTP status,
 * or what went wrong when there was none (a call gets at most `timeoutMs`).
 */
export async function fire(
	url: string,
	count: number,
	inFlight: number,
	body: (call: number) => unknown,
	timeoutMs = 60_000,
): Promise<Array<number | string>> {
	const outcomes: Array<number | string> = new Array(count);
	let next = 0;
	await Promise.all(
		Array.from({ length: inFlight }, async () => {
			while (next < count) {
				const call = next++;
				try {
					const response = await postToWebhook(url, {
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(body(call)),
						signal: AbortSignal.timeout(timeoutMs),
					});
					outcomes[call] = response.status;
					await response.arrayBuffer();
				} catch (error) {
					const cause = (error as { cause?: { code?: string } }).cause;
					outcomes[call] = cause?.code ?? (error as Error).name;
				}
			}
		}),
	);
	return outcomes;
}

/** "1000 × 200", or "187 × 200, 813 × TimeoutError": how many of each. */
export function countEach(values: Array<number | string>): string {
	const counts = new Map<number | string, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return [...counts].map(([value, count]) => `${count} × ${value}`).join(', ') || 'none';
}

/** The body of webhook call i of a batch: a customer of its own, one of five products, a serial of its own. */
export const callBody = (prefix: string) => (call: number) => ({
	product: `Kettle K${call % 5}`,
	email: `${prefix}-${call}@example.com`,
	serial: `${prefix}-${call}`,
});
