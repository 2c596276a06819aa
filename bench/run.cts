import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { writeDocsSection, writesDocs } from '../scripts/docsSection.cts';
import type { RunFigures, Way } from './cases.cts';
import { CASES, LATENCY_MS, measureCase } from './cases.cts';
import type { Measurement } from './measure.cts';
import { MiB } from './measure.cts';
import type { PollFigures, PollWay } from './poll.cts';
import { BURST, measurePoll } from './poll.cts';
import { measureToolAnswers, toolAnswerTable } from './toolAnswers.cts';
import type { UploadWay } from './upload.cts';
import { measureUpload } from './upload.cts';

/**
 * `npm run bench [-- --json] [-- --only <case id>] [-- --write-docs]`: runs the node through n8n's engine against the sandbox (with
 * 20 ms of latency per request) and compares each case with the naive way and the floor the machine allows. Every
 * measurement runs in a fresh child process, so one run's memory peak cannot hide in another's. With --write-docs
 * (and every case run) the tables replace those in docs/measured/bench.md; so does the size of a tool's answers
 * (`--only tool-answers` measures only those).
 */

const UPLOAD_SIZE = 1024 * MiB;

interface Target {
	target: string;
	met: boolean;
	measured: string;
}

interface Row {
	id: string;
	case: string;
	requests: number;
	/** Credential reads in the run, and expression evaluations per item. */
	credentialReads?: number;
	expressionsPerItem?: number;
	wallMs: number;
	peakMemoryGrowthMiB: number;
	errorItems: number;
	naive?: { how: string; requests: number; wallMs: number; peakMemoryGrowthMiB: number };
	floor: { how: string; wallMs: number };
	targets: Target[];
}

type Measured<T> = Measurement<T>;

/** Runs one measurement in a child process (`--measure <name> [arg]`) and returns what it printed. */
function inChild<T>(name: string, argument?: string): Promise<Measured<T>> {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			[
				'--expose-gc',
				'-r',
				'ts-node/register/transpile-only',
				__filename,
				'--measure',
				name,
				...(argument ? [argument] : []),
			],
			{ env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' }, stdio: ['ignore', 'pipe', 'inherit'] },
		);
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const line = output.split('\n').find((entry) => entry.startsWith('RESULT '));
			if (code !== 0 || !line) reject(new Error(`Measurement ${name} failed (exit ${code}): ${output}`));
			else resolve(JSON.parse(line.slice('RESULT '.length)) as Measured<T>);
		});
	});
}

const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const times = (ratio: number) => `${ratio >= 10 ? Math.round(ratio) : ratio.toFixed(1)}×`;

async function caseRow(id: string): Promise<Row> {
	const bench = CASES.find((candidate) => candidate.id === id)!;
	const node = await inChild<RunFigures>(`case:${id}:node`);
	const naiveRun = bench.naive ? await inChild<RunFigures>(`case:${id}:naive`) : undefined;
	const scale = bench.naive?.sample ? node.result.itemsOut / bench.naive.sample : 1;
	const latency = bench.latencyMs ?? LATENCY_MS;
	const floorMs = (node.result.requests * latency) / bench.concurrency;
	const row: Row = {
		id,
		case: bench.title,
		requests: node.result.requests,
		credentialReads: node.result.credentialReads,
		expressionsPerItem: node.result.expressionEvaluations / Math.max(1, node.result.itemsOut),
		wallMs: node.wallMs,
		peakMemoryGrowthMiB: mib(node.peakMemoryGrowth),
		errorItems: node.result.errorItems,
		naive: naiveRun && {
			how: `one request per item, one after another${scale > 1 ? ` (measured on ${bench.naive!.sample}, ×${scale})` : ''}`,
			requests: naiveRun.result.requests * scale,
			wallMs: naiveRun.wallMs * scale,
			peakMemoryGrowthMiB: mib(naiveRun.peakMemoryGrowth),
		},
		floor: { how: `${node.result.requests} × ${latency} ms / ${bench.concurrency} at once`, wallMs: floorMs },
		targets: [],
	};
	const speedup = row.naive ? row.naive.wallMs / row.wallMs : 0;
	const target = (text: string, met: boolean, measured: string) => row.targets.push({ target: text, met, measured });
	target(
		'every item out, none an error',
		node.result.errorItems === 0,
		`${node.result.itemsOut} out, ${node.result.errorItems} errors`,
	);
	if (id.startsWith('create')) {
		target('at least 20× faster than the naive way', speedup >= 20, times(speedup));
		target(
			'requests = ceil(N / batch size 100)',
			row.requests === Math.ceil(node.result.itemsOut / 100),
			`${row.requests}`,
		);
	}
	if (bench.naive && !id.startsWith('create')) {
		target('at least 10× faster than the naive way', speedup >= 10, times(speedup));
		target(
			'within 1.5× of the floor',
			row.wallMs <= 1.5 * floorMs,
			`${times(row.wallMs / floorMs)} of ${seconds(floorMs)}`,
		);
		target('500 items in at most 1.2 s', row.wallMs <= 1200, seconds(row.wallMs));
	}
	if (id === 'skip-half-registered') {
		// The service holds the 500 registered rows: the listing (the small first window, then windows of 99 each 86
		// further on) costs less than 200 lookups; then one batch per 100 new registrations (500).
		target('requests ≤ 7 windows of listing + ceil(new / 100)', row.requests <= 7 + 5, `${row.requests}`);
	}
	if (id === 'get-all') {
		// Windows one after another, each overlapping the one before (so a deletion meanwhile hides no registration):
		// about 14% more than the 500 pages of 100 that could not tell.
		target(
			'every registration once, in at most 1.2 × 500 windows',
			row.requests <= 600 && node.result.itemsOut === 50_000,
			`${row.requests}`,
		);
		target(
			'within 1.5× of the floor',
			row.wallMs <= 1.5 * floorMs,
			`${times(row.wallMs / floorMs)} of ${seconds(floorMs)}`,
		);
		target('peak memory under 400 MB', node.peakMemoryGrowth < 400 * 1e6, `${row.peakMemoryGrowthMiB} MiB`);
	}
	if (id === 'get-all-bare') {
		// A first window of 100 shows a bare array; the whole list is then asked for without pages.
		target('2 requests', row.requests === 2, `${row.requests}`);
		target('50,000 items out in under 2 s', row.wallMs < 2000 && node.result.itemsOut === 50_000, seconds(row.wallMs));
		target('peak memory under 400 MB', node.peakMemoryGrowth < 400 * 1e6, `${row.peakMemoryGrowthMiB} MiB`);
	}
	if (id.startsWith('overhead')) {
		const perItem = row.wallMs / node.result.itemsOut;
		target('node overhead under 0.2 ms per item', perItem < 0.2, `${perItem.toFixed(3)} ms per item`);
	}
	return row;
}

async function writeRandomFile(path: string, size: number): Promise<void> {
	const block = randomBytes(MiB);
	const out = createWriteStream(path);
	for (let written = 0; written < size; written += block.length) {
		if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	}
	await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

async function uploadRow(directory: string): Promise<Row> {
	const path = join(directory, 'bench-1GiB.bin');
	await writeRandomFile(path, UPLOAD_SIZE);
	const node = await inChild<{ requests: number }>('upload:node', path);
	const naive = await inChild<{ requests: number }>('upload:buffered', path);
	const floor = await inChild<{ requests: number }>('upload:streamed', path);
	const rate = (ms: number) => Math.round((UPLOAD_SIZE / MiB / (ms / 1000)) * 10) / 10;
	return {
		id: 'upload',
		case: 'upload of a 1 GiB filesystem-mode file',
		requests: node.result.requests,
		wallMs: node.wallMs,
		peakMemoryGrowthMiB: mib(node.peakMemoryGrowth),
		errorItems: 0,
		naive: {
			how: 'read the whole file, then PUT',
			requests: 2,
			wallMs: naive.wallMs,
			peakMemoryGrowthMiB: mib(naive.peakMemoryGrowth),
		},
		floor: { how: 'plain streaming PUT to the same storage', wallMs: floor.wallMs },
		targets: [
			{
				target: 'peak memory growth under 64 MiB',
				met: node.peakMemoryGrowth < 64 * MiB,
				measured: `${mib(node.peakMemoryGrowth)} MiB`,
			},
			{
				target: 'throughput at least 70% of the plain streaming PUT',
				met: floor.wallMs / node.wallMs >= 0.7,
				measured: `${rate(node.wallMs)} MiB/s = ${Math.round((floor.wallMs / node.wallMs) * 100)}% of ${rate(floor.wallMs)} MiB/s`,
			},
		],
	};
}

/** The Poll Trigger's List Order: left to learn, or stated as Newest First (the child's `way`, the rows' label). */
const POLL_ORDERS = [
	{ way: '', label: ', a node added before 0.7 (List Order: Learn From the Answers)' },
	{ way: ':newestFirst', label: ', a node added since 0.7 (List Order: Newest First)' },
];

/**
 * The Poll Trigger, with List Order left to learn and stated as Newest First: what a poll with nothing new costs, and
 * a poll after a burst of 10,000 new registrations.
 */
async function pollRows(): Promise<Row[]> {
	const rows: Row[] = [];
	// The small window, then windows of 99 through the burst, each 86 further on (listReader.ts, rules 1 and 2).
	const windows = 1 + Math.ceil(BURST / 86);
	for (const { way, label } of POLL_ORDERS) {
		const idle = await inChild<PollFigures>(`poll:idle${way}`);
		const burst = await inChild<PollFigures>(`poll:burst${way}`);
		rows.push(
			{
				id: `poll-idle${way.replace(':', '-')}`,
				case: `Poll Trigger${label}: a poll with nothing new, a minute after the last (the shop holds 1,000 registrations)`,
				requests: idle.result.requests,
				wallMs: idle.wallMs,
				peakMemoryGrowthMiB: mib(idle.peakMemoryGrowth),
				errorItems: 0,
				floor: { how: `1 request × ${LATENCY_MS} ms`, wallMs: LATENCY_MS },
				targets: [
					{
						target: 'one small request, nothing emitted',
						met: idle.result.requests === 1 && idle.result.itemsOut === 0,
						measured: `${idle.result.requests} request, ${idle.result.itemsOut} items`,
					},
				],
			},
			{
				id: `poll-burst${way.replace(':', '-')}`,
				case: `Poll Trigger${label}: a poll after a burst of ${BURST.toLocaleString('en-US')} new registrations`,
				requests: burst.result.requests,
				wallMs: burst.wallMs,
				peakMemoryGrowthMiB: mib(burst.peakMemoryGrowth),
				errorItems: 0,
				floor: {
					how: `${burst.result.requests} requests × ${LATENCY_MS} ms, one after another`,
					wallMs: burst.result.requests * LATENCY_MS,
				},
				targets: [
					{
						target: 'every new registration once',
						met: burst.result.itemsOut === BURST && burst.result.distinctIds === BURST,
						measured: `${burst.result.itemsOut} items, ${burst.result.distinctIds} distinct`,
					},
					{
						target: `the small window, then at most ${windows - 1} overlapping windows through the burst and the one past it`,
						met: burst.result.requests <= windows + 1,
						measured: `${burst.result.requests} requests`,
					},
					{
						target: 'peak memory growth under 200 MiB',
						met: burst.peakMemoryGrowth < 200 * MiB,
						measured: `${mib(burst.peakMemoryGrowth)} MiB`,
					},
				],
			},
		);
	}
	return rows;
}

/** The rows as Markdown: the measurements, then each target and whether it was met. */
function tables(rows: Row[]): string {
	const lines = [
		`| case | requests | credential reads, expressions per item | wall time | peak memory | naive way: requests, wall time, peak memory | floor |`,
		'|---|---|---|---|---|---|---|',
	];
	for (const row of rows) {
		const naive = row.naive
			? `${row.naive.requests}, ${seconds(row.naive.wallMs)}, +${row.naive.peakMemoryGrowthMiB} MiB (${row.naive.how})`
			: '—';
		lines.push(
			`| ${row.case} | ${row.requests} | ${row.credentialReads ?? '—'}, ${row.expressionsPerItem?.toFixed(1) ?? '—'} | ${seconds(row.wallMs)} | +${row.peakMemoryGrowthMiB} MiB | ${naive} | ${seconds(row.floor.wallMs)} (${row.floor.how}) |`,
		);
	}
	lines.push('', '| case | target | measured | |', '|---|---|---|---|');
	for (const row of rows) {
		for (const target of row.targets) {
			lines.push(`| ${row.case} | ${target.target} | ${target.measured} | ${target.met ? 'met' : '**missed**'} |`);
		}
	}
	return lines.join('\n');
}

async function measureInThisProcess(name: string, argument: string | undefined): Promise<void> {
	const [kind, id, way] = name.split(':');
	const measured =
		kind === 'upload'
			? await measureUpload(id as UploadWay, argument!)
			: kind === 'poll'
				? await measurePoll(id as PollWay, way === 'newestFirst')
				: await measureCase(CASES.find((bench) => bench.id === id)!, way as Way);
	console.log(`RESULT ${JSON.stringify(measured)}`);
}

async function main(): Promise<void> {
	const argv = process.argv;
	const measureAt = argv.indexOf('--measure');
	if (measureAt !== -1) return await measureInThisProcess(argv[measureAt + 1], argv[measureAt + 2]);

	const onlyAt = argv.indexOf('--only');
	const only = onlyAt === -1 ? undefined : argv[onlyAt + 1];
	const rows: Row[] = [];
	for (const bench of CASES) {
		if (!only || only === bench.id) rows.push(await caseRow(bench.id));
	}
	if (!only || only === 'poll') rows.push(...(await pollRows()));
	if (!only || only === 'upload') {
		const directory = await mkdtemp(join(tmpdir(), 'product-registration-bench-'));
		try {
			rows.push(await uploadRow(directory));
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	}
	const toolAnswers = !only || only === 'tool-answers' ? await measureToolAnswers() : [];
	const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, latencyMs: LATENCY_MS };
	if (argv.includes('--json')) console.log(JSON.stringify({ machine, rows, toolAnswers }, null, 2));
	else {
		if (rows.length > 0) {
			const markdown = tables(rows);
			console.log(
				`Node.js ${machine.node}, ${machine.cpus} cores, ${LATENCY_MS} ms latency per request\n\n${markdown}`,
			);
			if (writesDocs() && !only) writeDocsSection('bench.md', 'engine-bench', 'npm run bench', markdown);
		}
		if (toolAnswers.length > 0) {
			const answers = toolAnswerTable(toolAnswers);
			console.log(`\n${answers}`);
			const command = only ? 'npm run bench -- --only tool-answers' : 'npm run bench';
			if (writesDocs()) writeDocsSection('bench.md', 'tool-answers', command, answers);
		}
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
