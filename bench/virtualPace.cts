import { writeDocsSection, writesDocs } from '../scripts/docsSection.cts';
import type { Step, VirtualRun, VirtualRunOptions } from '../harness/virtualPace.cts';
import { paceAgainst } from '../harness/virtualPace.cts';
import type { RefusalSettings } from '../sandbox/refusals.cts';
import { mostInASecond } from '../sandbox/refusals.cts';

/**
 * `npm run bench:virtual-pace [-- --write-docs] [-- --json]`: the pace (nodes/shared/transport/pace/) against the
 * sandbox's refusals in virtual time (harness/virtualPace.cts), over grids of shapes: the lone runs of
 * `npm run bench:pace`'s kind, lone runs over many limits and every Retry-After form, queue-mode workers sharing a
 * limit, a service refusing for good, refusals at random with no limit (as the fault-injection suite's), and the
 * special shapes of test/behaviour/pace.test.cts. Each group's line gives the rate the service's requests were taken
 * at, the requests refused, the requests given up, and how many shapes met the group's target. With --write-docs the
 * table replaces the one in docs/measured/pace-virtual.md.
 */

interface Shape {
	service: RefusalSettings;
	steps: Step[];
	options: VirtualRunOptions;
	/** The limit in requests a second (undefined for a service that refuses for good). */
	perSecond?: number;
}

interface Group {
	name: string;
	target: string;
	shapes: Shape[];
	/** Whether one run met the group's target, against the same run with no pace where the group asks for it. */
	met(run: VirtualRun, shape: Shape, withoutPace?: VirtualRun): boolean;
	againstNoPace?: boolean;
}

const FORMS: Array<NonNullable<RefusalSettings['retryAfter']>> = ['seconds', 'date', 'zero', 'pastDate', 'none', 'huge'];
const total = (steps: Step[]) => steps.reduce((sum, step) => sum + step.count, 0);
const most = (steps: Step[]) => Math.max(...steps.map((step) => step.concurrency));
/** The floor: the requests taken ÷ the rate, in ms. */
const floorMs = (run: VirtualRun, shape: Shape) => (run.served / shape.perSecond!) * 1000;
/** The targets at a limited service: all through, ≤ 1.10× the floor, refused ≤ 5% + the run's Concurrency. */
const limitedTarget = (run: VirtualRun, shape: Shape) =>
	run.served === total(shape.steps) &&
	run.ms <= 1.1 * floorMs(run, shape) &&
	run.refused <= 0.05 * run.served + most(shape.steps);

/** Options as both the harness of today and that before the one rule read them (`calm`, `runsAtOnce` were its own). */
const options = (fields: Record<string, unknown>) => ({ retryDelayMs: 1000, ...fields }) as VirtualRunOptions;

const benchPaceShapes: Shape[] = [2, 10].flatMap((perSecond) =>
	(['seconds', 'none'] as const).flatMap((retryAfter) =>
		[20, 40, 50].flatMap((roundTripMs) =>
			[
				[{ count: 10, concurrency: 4 }],
				[{ count: 30, concurrency: 1 }],
				[{ count: 1, concurrency: 1 }, { count: 34, concurrency: 50 }],
				[{ count: 1, concurrency: 1 }, { count: 180, concurrency: 50 }],
			].map((steps) => ({
				service: { bucket: { perSecond, burst: perSecond }, retryAfter },
				steps,
				options: options({ roundTripMs }),
				perSecond,
			})),
		),
	),
);

const loneShapes: Shape[] = [0.5, 1, 2, 5, 10, 15].flatMap((perSecond) =>
	[0.5, 1, 2].flatMap((burstSeconds) =>
		FORMS.flatMap((retryAfter) =>
			[10, 50].map((concurrency) => ({
				service: { bucket: { perSecond, burst: Math.max(1, perSecond * burstSeconds) }, retryAfter },
				steps: [{ count: 200, concurrency }],
				options: options({}),
				perSecond,
			})),
		),
	),
);

const queueShapes: Shape[] = (['seconds', 'none'] as const).flatMap((retryAfter) =>
	[0, 100, 300, 500].flatMap((startsApartMs) =>
		[true, false].flatMap((calm) =>
			[20, 45].flatMap((roundTripMs) =>
				[41, 42, 43].map((seed) => ({
					service: { bucket: { perSecond: 5, burst: 5 }, retryAfter },
					steps: [{ count: 300, concurrency: 10 }],
					options: options({ roundTripMs, seed, workers: { count: 2, startsApartMs, calm, runsAtOnce: true } }),
					perSecond: 5,
				})),
			),
		),
	),
);

const workerShapes: Shape[] = [1, 2, 3, 4, 6].flatMap((count) =>
	[1, 2, 5].flatMap((perSecond) =>
		(['seconds', 'zero', 'none'] as const).map((retryAfter) => ({
			service: { bucket: { perSecond, burst: perSecond }, retryAfter },
			steps: [{ count: 100 * count, concurrency: 10 }],
			options: options({ workers: { count, startsApartMs: 100, calm: false, runsAtOnce: true } }),
			perSecond,
		})),
	),
);

// A bare 503 is a passing error, bounded by Retries, not a refusal: 503 only with Retry-After.
const forGoodShapes: Shape[] = FORMS.flatMap((retryAfter) =>
	[0, 1000].flatMap((retryDelayMs) =>
		([429, 503] as const)
			.filter((status) => status === 429 || retryAfter !== 'none')
			.map((status) => ({
				service: { everyRequest: 'forGood' as const, retryAfter, status },
				steps: [{ count: 8, concurrency: 50 }],
				options: options({ retryDelayMs, patienceMs: 2000 }),
			})),
	),
);

// As the fault-injection suite refuses: at random, no rate behind it; Retry Wait 1 ms, (Retries + 1) × Timeout 1 s.
const atRandomShapes: Shape[] = [0.02, 0.035, 0.05].flatMap((share) =>
	(['none', 'zero'] as const).flatMap((retryAfter) =>
		[
			Array.from({ length: 20 }, () => ({ count: 50, concurrency: 50 })),
			Array.from({ length: 4 }, () => ({ count: 250, concurrency: 50 })),
			Array.from({ length: 100 }, () => ({ count: 10, concurrency: 10 })),
		].flatMap((steps) =>
			[10, 30].flatMap((roundTripMs) =>
				[1, 2].map((seed) => ({
					service: { atRandom: { share, seed }, retryAfter },
					steps,
					options: options({ retryDelayMs: 1, patienceMs: 1000, roundTripMs, seed }),
				})),
			),
		),
	),
);

const special: Shape[] = [
	...[
		[5, 2000],
		[5, 5000],
		[8, 2000],
	].map(([otherPerSecond, forMs]) => ({
		service: { bucket: { perSecond: 10, burst: 10 } },
		steps: [{ count: 400, concurrency: 10 }],
		options: options({ otherApp: { perSecond: otherPerSecond, forMs } }),
		perSecond: 10,
	})),
	...[
		[{ count: 200, concurrency: 1, gapMs: 900 }],
		Array.from({ length: 60 }, () => ({ count: 5, concurrency: 5, gapMs: 2000 })),
	].map((middle) => ({
		service: { bucket: { perSecond: 10, burst: 10 } },
		steps: [{ count: 60, concurrency: 10 }, ...middle, { count: 600, concurrency: 10 }],
		options: options({ otherApp: { perSecond: 6, forMs: 3000 } }),
		perSecond: 10,
	})),
	{
		service: { bucket: { perSecond: 10, burst: 10 } },
		steps: Array.from({ length: 60 }, () => ({ count: 10, concurrency: 10, gapMs: 300 })),
		options: options({ roundTripMs: 500 }),
		perSecond: 10,
	},
	{
		service: { bucket: { perSecond: 100, burst: 100 }, retryAfter: 'zero' },
		steps: [{ count: 4000, concurrency: 50 }],
		options: options({ roundTripMs: 200 }),
		perSecond: 100,
	},
	{
		service: { everyRequest: { forMs: 3000 }, retryAfter: 'none' },
		steps: [{ count: 40, concurrency: 50 }],
		options: options({ retryDelayMs: 0 }),
	},
];

export const GROUPS: Group[] = [
	{
		name: "bench:pace's shapes: 2 and 10 a second, bursts of a second, Retry-After or bare, round trips of 20 to 50 ms; 10 creates 4 at once, 30 pages, a page and 34 or 180 lookups 50 at once",
		target: 'all through, ≤ 1.10× the floor, refused ≤ 5% of those taken + Concurrency',
		shapes: benchPaceShapes,
		met: limitedTarget,
	},
	{
		name: 'a run alone: 200 requests, 10 or 50 at once, at 0.5 to 15 a second, bursts of 0.5 to 2 s, every Retry-After form',
		target: 'all through, ≤ 1.10× the floor, refused ≤ 5% of those taken + Concurrency',
		shapes: loneShapes,
		met: limitedTarget,
	},
	{
		name: 'queue mode: 2 workers of 10 at once, 300 requests at 5 a second, the second 0 to 500 ms later, Retry-After or bare, round trips of 20 or 45 ms, 3 seeds',
		target: '≥ 4.5 a second taken, ≤ 0.5 refused per served, none given up',
		shapes: queueShapes,
		met: (run) => run.outwaited === 0 && run.served / (run.ms / 1000) >= 4.5 && run.refused <= 0.5 * run.served,
	},
	{
		name: '1 to 6 workers of 10 at once, 100 requests each, at 1, 2 and 5 a second, Retry-After in seconds, 0 or none',
		target: '≥ 90% of the limit taken, none given up',
		shapes: workerShapes,
		met: (run, shape) => run.outwaited === 0 && run.served / (run.ms / 1000) >= 0.9 * shape.perSecond!,
	},
	{
		name: 'refused for good: 8 requests at once, Timeout × (Retries + 1) = 2 s, every Retry-After form, Retry Wait 0 or 1 s, 429, or 503 with Retry-After',
		target: 'each gives up at 2 s; after the first 8, ≤ 4 requests in any second',
		shapes: forGoodShapes,
		met: (run) =>
			run.outwaited === 8 &&
			run.gaveUpAfter.every((ms) => ms <= 2000) &&
			mostInASecond(run.receivedAt.slice(8)) <= 4,
	},
	{
		name: 'refused at random, no limit: 1,000 requests in runs of 50, 250 or 10 at once, 2%, 3.5% or 5% of them 429 bare or Retry-After 0, round trips of 10 or 30 ms, Timeout × (Retries + 1) = 1 s, 2 seeds',
		target: 'all through, none given up, within 1.10× the time with no pace',
		shapes: atRandomShapes,
		againstNoPace: true,
		met: (run, shape, withoutPace) =>
			run.served === total(shape.steps) && run.outwaited === 0 && run.ms <= 1.1 * withoutPace!.ms,
	},
	{
		name: "the pace tests' own shapes: another app taking part of 10 a second at first; gaps, then 600 at once; batches with 500 ms round trips; 4,000 at 100 a second; refused for 3 s",
		target: 'all through',
		shapes: special,
		met: (run, shape) => run.served === total(shape.steps),
	},
];

interface Line {
	group: string;
	target: string;
	shapes: number;
	met: number;
	/** Mean share of the limit taken (requests taken a second ÷ the limit), where the service has one. */
	share?: number;
	lowestShare?: number;
	served: number;
	refused: number;
	outwaited: number;
}

export async function measure(group: Group): Promise<Line> {
	const line: Line = { group: group.name, target: group.target, shapes: 0, met: 0, served: 0, refused: 0, outwaited: 0 };
	const shares: number[] = [];
	for (const shape of group.shapes) {
		const run = await paceAgainst(shape.service, shape.steps, shape.options);
		const withoutPace = group.againstNoPace
			? await paceAgainst(shape.service, shape.steps, { ...shape.options, withoutPace: true })
			: undefined;
		line.shapes += 1;
		line.met += group.met(run, shape, withoutPace) ? 1 : 0;
		line.served += run.served;
		line.refused += run.refused;
		line.outwaited += run.outwaited;
		if (shape.perSecond !== undefined && run.served > 0) shares.push(floorMs(run, shape) / run.ms);
	}
	if (shares.length > 0) {
		line.share = shares.reduce((sum, share) => sum + share, 0) / shares.length;
		line.lowestShare = Math.min(...shares);
	}
	return line;
}

const table = (lines: Line[]) =>
	[
		'| shapes | target | met | limit taken: mean (lowest) | requests taken | refused (per taken) | given up |',
		'|---|---|---|---|---|---|---|',
		...lines.map(
			(line) =>
				`| ${line.group} (${line.shapes}) | ${line.target} | ${line.met} of ${line.shapes} | ${line.share === undefined ? '—' : `${(line.share * 100).toFixed(1)}% (${(line.lowestShare! * 100).toFixed(1)}%)`} | ${line.served} | ${line.refused} (${(line.refused / Math.max(1, line.served)).toFixed(3)}) | ${line.outwaited} |`,
		),
	].join('\n');

async function main(): Promise<void> {
	const lines: Line[] = [];
	for (const group of GROUPS) {
		const line = await measure(group);
		lines.push(line);
		if (!process.argv.includes('--json')) console.log(`${line.group}: ${JSON.stringify({ ...line, group: undefined })}`);
	}
	if (process.argv.includes('--json')) console.log(JSON.stringify(lines));
	else console.log(`\n${table(lines)}`);
	if (writesDocs()) writeDocsSection('pace-virtual.md', 'pace-virtual', 'npm run bench:virtual-pace', table(lines));
}

if (require.main === module) void main();
