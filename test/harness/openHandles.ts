import { readdirSync, readlinkSync } from 'node:fs';

import { BINARY_STORE_PREFIX } from '../../engine/workflowRunner';

/** The files of n8n's binary data store this process holds open right now (Linux: /proc/self/fd). */
export function openBinaryFiles(): string[] {
	return readdirSync('/proc/self/fd').flatMap((fd) => {
		try {
			const target = readlinkSync(`/proc/self/fd/${fd}`);
			return target.includes(BINARY_STORE_PREFIX) ? [target] : [];
		} catch {
			return [];
		}
	});
}

/** Waits up to `ms` for `condition` (closing a stream takes a turn of the event loop), then reports it. */
export async function eventually(condition: () => boolean, ms = 1000): Promise<boolean> {
	const until = Date.now() + ms;
	while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
	return condition();
}
