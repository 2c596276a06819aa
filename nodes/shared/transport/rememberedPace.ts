/**
 * What runs have learned of a service's pace, kept in this n8n process for the runs after them: a busy shop runs the
 * same workflow against the same service again and again. A service that took a run's requests without refusing is
 * approached at full speed by the next run; one whose rate a run measured, at that rate. Only a speed-up: a run that
 * finds nothing here (another worker, a restart) learns the pace as before (learnedPace.ts), and a refusal forgets what
 * was kept.
 */
export type PaceMemory = { calm: true } | { bucket: { perMs: number; burst: number } };

/** Services remembered at most: the least recently used is forgotten first. */
const MAX_SERVICES = 100;

const memories = new Map<string, PaceMemory>();

/**
 * A service as its rate limit may see it: its root URL and whose token (a shop's limit need not be another's). The
 * token goes in only as a short fingerprint.
 */
export function paceKey(root: string, token: string): string {
	// FNV-1a: a fingerprint, not a secret's protection — the map never leaves the process.
	let hash = 0x811c9dc5;
	for (let index = 0; index < token.length; index++) {
		hash ^= token.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return `${root} ${hash.toString(16)}`;
}

export function recalledPace(key: string): PaceMemory | undefined {
	return memories.get(key);
}

/** Keeps what a run learned (the latest first in line to stay), or forgets it (`null`). */
export function keepPace(key: string, memory: PaceMemory | null): void {
	memories.delete(key);
	if (memory === null) return;
	memories.set(key, memory);
	if (memories.size > MAX_SERVICES) memories.delete(memories.keys().next().value as string);
}
