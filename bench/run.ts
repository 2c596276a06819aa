import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Measurement } from './measure';
import { MiB } from './measure';
import type { UploadWay } from './upload';
import { measureUpload } from './upload';

/**
 * `npm run bench [-- --json]`: measures the node through n8n's engine against the sandbox. Every measurement runs
 * in a fresh child process, so one run's memory peak cannot hide in another's.
 */

const UPLOAD_SIZE = 1024 * MiB;

interface Row {
	case: string;
	requests: number;
	wallMs: number;
	peakMemoryGrowthMiB: number;
	naive: { how: string; wallMs: number; peakMemoryGrowthMiB: number };
	floor: { how: string; wallMs: number };
	targets: Array<{ target: string; met: boolean; measured: string }>;
}

type MeasuredRun = Measurement<{ requests: number }>;

/** Runs one measurement in a child process (`--measure <name>`) and returns what it printed. */
function inChild(name: string, args: string[]): Promise<MeasuredRun> {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			['--expose-gc', '-r', 'ts-node/register/transpile-only', __filename, '--measure', name, ...args],
			{ env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' }, stdio: ['ignore', 'pipe', 'inherit'] },
		);
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const line = output.split('\n').find((entry) => entry.startsWith('RESULT '));
			if (code !== 0 || !line) reject(new Error(`Measurement ${name} failed (exit ${code}): ${output}`));
			else resolve(JSON.parse(line.slice('RESULT '.length)) as MeasuredRun);
		});
	});
}

async function writeFile(path: string, size: number): Promise<void> {
	const block = randomBytes(MiB);
	const out = createWriteStream(path);
	for (let written = 0; written < size; written += block.length) {
		if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	}
	await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

async function uploadRow(directory: string): Promise<Row> {
	const path = join(directory, 'bench-1GiB.bin');
	await writeFile(path, UPLOAD_SIZE);
	const node = await inChild('upload:node', [path]);
	const naive = await inChild('upload:buffered', [path]);
	const floor = await inChild('upload:streamed', [path]);
	const throughputShare = floor.wallMs / node.wallMs;
	return {
		case: 'upload of a 1 GiB filesystem-mode file',
		requests: node.result.requests,
		wallMs: node.wallMs,
		peakMemoryGrowthMiB: mib(node.peakMemoryGrowth),
		naive: { how: 'read whole file, then PUT', wallMs: naive.wallMs, peakMemoryGrowthMiB: mib(naive.peakMemoryGrowth) },
		floor: { how: 'plain streaming PUT, same storage', wallMs: floor.wallMs },
		targets: [
			{
				target: 'peak memory growth under 64 MiB',
				met: node.peakMemoryGrowth < 64 * MiB,
				measured: `${mib(node.peakMemoryGrowth)} MiB`,
			},
			{
				target: 'throughput at least 70% of the plain streaming PUT',
				met: throughputShare >= 0.7,
				measured: `${Math.round((UPLOAD_SIZE / MiB / (node.wallMs / 1000)) * 10) / 10} MiB/s = ${Math.round(throughputShare * 100)}% of ${Math.round((UPLOAD_SIZE / MiB / (floor.wallMs / 1000)) * 10) / 10} MiB/s`,
			},
		],
	};
}

function printTable(rows: Row[]): void {
	const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
	console.log('| case | requests | wall time | peak memory | naive way: wall time, peak memory | floor |');
	console.log('|---|---|---|---|---|---|');
	for (const row of rows) {
		console.log(
			`| ${row.case} | ${row.requests} | ${seconds(row.wallMs)} | +${row.peakMemoryGrowthMiB} MiB | ${seconds(row.naive.wallMs)}, +${row.naive.peakMemoryGrowthMiB} MiB (${row.naive.how}) | ${seconds(row.floor.wallMs)} (${row.floor.how}) |`,
		);
	}
	console.log('');
	for (const row of rows) {
		for (const target of row.targets) {
			console.log(`${target.met ? 'met   ' : 'MISSED'} ${row.case}: ${target.target} (measured ${target.measured})`);
		}
	}
}

async function main(): Promise<void> {
	const measureIndex = process.argv.indexOf('--measure');
	if (measureIndex !== -1) {
		const [name, path] = process.argv.slice(measureIndex + 1);
		const [kind, way] = name.split(':');
		if (kind !== 'upload') throw new Error(`Unknown measurement ${name}`);
		const measured = await measureUpload(way as UploadWay, path);
		console.log(`RESULT ${JSON.stringify(measured)}`);
		return;
	}

	const directory = await mkdtemp(join(tmpdir(), 'product-registration-bench-'));
	try {
		const rows = [await uploadRow(directory)];
		if (process.argv.includes('--json')) console.log(JSON.stringify({ machine: machine(), rows }, null, 2));
		else printTable(rows);
	} finally {
		await rm(directory, { recursive: true, force: true });
	}
}

function machine(): Record<string, unknown> {
	return { node: process.version, platform: process.platform, arch: process.arch };
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
