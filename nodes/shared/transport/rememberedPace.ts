/**
 * The services that took a run's requests without refusing any, kept in this n8n process for the runs after it: a busy
 * shop runs the same workflow against the same service again and again, and a service that never refused need not be
 * approached as if it might, one request at a time. Only a speed-up: a run that finds nothing here (another worker, a
 * restart) starts cautiously as before (learnedPace.ts), and a refusal forgets the service. A rate a run measured is
 * not kept: refusals for another cause (a busy moment, a proxy) would leave every later run at a pace too slow to be
 * refused, and so to be corrected.
 */

/** Services remembered at most: the least recently used is forgotten first. */
const MAX_SERVICES = 100;

const calmServices = new Set<string>();

/**
 * A service as its rate limit may see it: its origin and whose token (a shop's limit need not be another's). The
 * token goes in only as a fingerprint, long enough that two shops' tokens do not meet by chance.
 */
export function paceKey(origin: string, token: string): string {
	// FNV-1a, 64 bits: a fingerprint, not a secret's protection — the key never leaves the process.
	let hash = 0xcbf29ce484222325n;
	for (let index = 0; index < token.length; index++) {
		hash = ((hash ^ BigInt(token.charCodeAt(index))) * 0x100000001b3n) & 0xffffffffffffffffn;
	}
	return `${origin} ${hash.toString(16)}`;
}

/** Whether the service is remembered as calm; recalled, it is the last in line to be forgotten. */
export function recallCalm(service: string): boolean {
	const calm = calmServices.delete(service);
	if (calm) calmServices.add(service);
	return calm;
}

/** Keeps a service as calm (the last in line to be forgotten), or forgets it. */
export function rememberCalm(service: string, calm: boolean): void {
	calmServices.delete(service);
	if (!calm) return;
	calmServices.add(service);
	if (calmServices.size > MAX_SERVICES) calmServices.delete(calmServices.values().next().value as string);
}
