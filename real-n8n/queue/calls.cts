import type { RealN8n } from '../instance.cts';
import { sleep } from './wait.cts';

/** The calls the CRMs and form services make: POSTs to a workflow's webhook, many in flight, and what came back. */

export const webhookUrl = (n8n: RealN8n, path: string) => `${n8n.baseUrl}/webhook/${path}`;

/**
 * POSTs to a webhook. n8n 2.x answers 404 for a while after it says it is ready, until it has registered every
 * webhook (an OPTIONS request can find a webhook that a POST cannot yet), so a 404 is sent again, for up to a minute.
 */
export async function postToWebhook(url: string, init: RequestInit): Promise<Response> {
	const registeredBy = Date.now() + 60_000;
	for (;;) {
		const response = await fetch(url, { ...init, method: 'POST' });
		if (response.status !== 404 || Date.now() > registeredBy) return response;
		await response.arrayBuffer();
		await sleep(1000);
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
