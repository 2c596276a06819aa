import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string };
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/**
 * The CPU a process spent while a node ran, from the `node --cpu-prof` profile it wrote into `folder`: the samples
 * from the first to the last whose stack passes through a function (not a module's top-level code, which runs when
 * n8n loads the package) of a file whose path contains `marker`, less the idle ones.
 * It counts all the process did meanwhile (n8n's own work for the node included), and no time spent waiting.
 */
export function cpuWhileRunning(folder: string, marker: string): { windowMs: number; cpuMs: number } {
	const file = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
	if (!file) throw new Error(`No CPU profile in ${folder}`);
	const profile = JSON.parse(readFileSync(join(folder, file), 'utf8')) as CpuProfile;
	const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
	const parents = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
	const inNode = new Map<number, boolean>();
	const passesThrough = (id: number): boolean => {
		if (!inNode.has(id)) {
			const node = nodes.get(id)!;
			const parent = parents.get(id);
			const ours = node.callFrame.url.includes(marker) && node.callFrame.functionName !== '';
			inNode.set(id, ours || (parent !== undefined && passesThrough(parent)));
		}
		return inNode.get(id)!;
	};
	const first = profile.samples.findIndex(passesThrough);
	const last = profile.samples.length - 1 - [...profile.samples].reverse().findIndex(passesThrough);
	let windowUs = 0;
	let cpuUs = 0;
	for (let index = first + 1; index <= last; index++) {
		const delta = profile.timeDeltas[index];
		windowUs += delta;
		if (nodes.get(profile.samples[index - 1])!.callFrame.functionName !== '(idle)') cpuUs += delta;
	}
	return { windowMs: windowUs / 1000, cpuMs: cpuUs / 1000 };
}
