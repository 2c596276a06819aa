import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

import { BINARY_STORE_PREFIX } from './workflowRunner.cts';

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

/**
 * Connections this machine holds open towards a port (Linux: /proc/net/tcp): ESTABLISHED ones whose remote end is
 * the port. A client that closed its side no longer counts, even while the server has not read to the end.
 */
export function connectionsTo(port: number): number {
	const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
	return ['/proc/net/tcp', '/proc/net/tcp6']
		.flatMap((table) => {
			try {
				return readFileSync(table, 'utf8').split('\n').slice(1);
			} catch {
				return [];
			}
		})
		.map((line) => line.trim().split(/\s+/))
		.filter((fields) => fields[2]?.endsWith(`:${hexPort}`) && fields[3] === '01').length;
}
