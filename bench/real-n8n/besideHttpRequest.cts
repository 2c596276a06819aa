import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INodeParameters } from 'n8n-workflow';

import { startSandbox } from '../cases.cts';
import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';
import type { SandboxSetup } from '../sandboxProcess.cts';

import { chainedWorkflow, itemsNode, webhookStart } from '../../real-n8n/chainedWorkflow.cts';
import { cpuWhileRunning } from './cpuProfile.cts';
import { CREDENTIAL } from '../../real-n8n/examples.cts';
import type { ExecutionData } from '../../real-n8n/instance.cts';
import { N8N_LINES, packPackage, RealN8n, waitFor } from '../../real-n8n/instance.cts';
import { postToWebhook } from '../../real-n8n/queue/calls.cts';

/**
 * `npm run bench:n8n [-- --runs N] [-- --only <case>] [-- --json] [-- --write-docs]`: this node beside n8n's HTTP Request node doing
 * the same calls (or beside another setup of this node), inside a real n8n of each line (the package installed as
 * n8n's community-package installer does), against the sandbox in a process of its own with 20 ms added to every
 * request. A Code node makes the items; the figure is each node's own run time as n8n reports it (`executionTime`),
 * the median of N runs (default 3), both measured alternately in the same n8n, running as it does for a shop (see
 * benchLine); the first run since n8n started is shown too. With --write-docs (and every case run)
 * the table replaces that of the same n8n lines in docs/measured/bench-n8n.md. Not part of CI.
 */

const LATENCY_MS = 20;
const UNDER_TEST = 'Under test';

interface Side {
	node: 'productRegistration' | 'httpRequest';
	/** The node's parameters, or a function of the sandbox's address and token that gives them. */
	parameters: INodeParameters | ((service: Service) => INodeParameters);
}

interface Service {
	baseUrl: string;
	token: string;
}

interface BenchCase {
	id: string;
	title: string;
	/** The JavaScript of the Code node that makes the items. */
	items: string;
	seed: Omit<SandboxSetup, 'latencyMs' | 'reset'>;
	latencyMs?: number;
	node: Side;
	/** What the node is compared with (the HTTP Request node doing the same calls); absent where it runs alone. */
	baseline?: { label: string; side: Side };
	/**
	 * What the case must show, checked on the medians: a ratio to the baseline's time, or the CPU per item the n8n
	 * process spends while the node runs (measured with `node --cpu-prof`); and the requests the node sends, if set.
	 */
	/** `requests`: the most the node may send. */
	target: { maxRatio?: number; maxCpuMsPerItem?: number; requests?: number; text: string };
	itemCount: number;
}

const ours = (parameters: INodeParameters): Side => ({ node: 'productRegistration', parameters });
const HTTP_REQUEST_NODE = 'HTTP Request node';

const itemsOf = (count: number, json: string) =>
	`return Array.from({ length: ${count} }, (_, i) => ({ json: ${json} }));`;
const registrationIds = (count: number) => itemsOf(count, "{ id: 'R' + String(i + 1).padStart(6, '0') }");
const serials = (count: number) => itemsOf(count, "{ serial: 'SN-' + String(i).padStart(6, '0') }");
/** 1,000 rows of 200 customers (5 products each); the even rows are registered already. */
const skipRows = itemsOf(
	1000,
	"{ 'Product Name': 'Kettle K' + (i % 5), 'Email': 'customer' + Math.floor(i / 5) + '@example.com', 'Serials': 'KT-' + i }",
);
const alreadyRegistered = Array.from({ length: 500 }, (_, half) => ({
	productName: `Kettle K${(half * 2) % 5}`,
	customerEmail: `customer${Math.floor((half * 2) / 5)}@example.com`,
	serialNumbers: [`KT-${half * 2}`],
}));
const sheetRows = (count: number) =>
	itemsOf(count, "{ 'Product Name': 'Kettle K' + (i % 7), 'Email': 'customer' + i + '@example.com' }");

/** The HTTP Request node (4.2, on both lines) sending one call per item with the token in its header. */
function httpRequest(method: string, path: string, body?: string): BenchCase['baseline'] {
	return {
		label: HTTP_REQUEST_NODE,
		side: {
			node: 'httpRequest',
			parameters: ({ baseUrl, token }) => ({
				method,
				url: `=${baseUrl}/api/${path}`,
				sendHeaders: true,
				headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${token}` }] },
				...(body ? { sendBody: true, specifyBody: 'json', jsonBody: body } : {}),
				options: {},
			}),
		},
	};
}

const CASES: BenchCase[] = [
	{
		id: 'change-status',
		title: 'Change Status, 500 items',
		items: registrationIds(500),
		itemCount: 500,
		seed: { registrations: 500 },
		node: ours({
			resource: 'registration',
			operation: 'updateStatus',
			registrationId: '={{ $json.id }}',
			status: 'approved',
			isPublic: true,
		}),
		baseline: httpRequest('POST', 'registrations/{{ $json.id }}/status', '={"status": "approved", "isPublic": true}'),
		target: { maxRatio: 0.8, text: '≤ 0.8× the HTTP Request node' },
	},
	{
		id: 'delete',
		title: 'Delete, 500 items',
		items: registrationIds(500),
		itemCount: 500,
		seed: { registrations: 500 },
		node: ours({ resource: 'registration', operation: 'delete', registrationId: '={{ $json.id }}' }),
		baseline: httpRequest('DELETE', 'registrations/{{ $json.id }}'),
		target: { maxRatio: 0.8, text: '≤ 0.8× the HTTP Request node' },
	},
	{
		id: 'get-serial',
		title: 'Get serial number, 500 items',
		items: serials(500),
		itemCount: 500,
		seed: { serialNumbers: Array.from({ length: 500 }, (_, index) => `SN-${String(index).padStart(6, '0')}`) },
		node: ours({ resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' }),
		baseline: httpRequest('GET', 'serial_numbers/{{ encodeURIComponent($json.serial) }}'),
		target: { maxRatio: 0.8, text: '≤ 0.8× the HTTP Request node' },
	},
	{
		id: 'create-expressions',
		title: 'Create 1,000 registrations, 2 fields by expression',
		items: sheetRows(1000),
		itemCount: 1000,
		seed: {},
		node: ours({
			resource: 'registration',
			operation: 'create',
			productName: "={{ $json['Product Name'] }}",
			customerEmail: '={{ $json.Email }}',
		}),
		baseline: httpRequest(
			'POST',
			'registrations',
			"={{ JSON.stringify({ registrations: [{ productName: $json['Product Name'], customerEmail: $json.Email }] }) }}",
		),
		target: { maxRatio: 0.1, text: '≤ 0.1× the HTTP Request node' },
	},
	{
		id: 'create-map-automatically',
		title: 'Create 1,000 registrations, Map Automatically',
		items: sheetRows(1000),
		itemCount: 1000,
		seed: {},
		node: ours({ resource: 'registration', operation: 'create', dataMode: 'autoMapInputData' }),
		baseline: httpRequest(
			'POST',
			'registrations',
			"={{ JSON.stringify({ registrations: [{ productName: $json['Product Name'], customerEmail: $json.Email }] }) }}",
		),
		target: { maxRatio: 0.1, text: '≤ 0.1× the HTTP Request node' },
	},
	{
		id: 'create-map-automatically-cpu',
		title: 'Create 10,000 registrations, Map Automatically, no latency (node CPU)',
		items: sheetRows(10_000),
		itemCount: 10_000,
		seed: {},
		latencyMs: 0,
		node: ours({ resource: 'registration', operation: 'create', dataMode: 'autoMapInputData' }),
		target: { maxCpuMsPerItem: 0.1, text: '≤ 0.1 ms of CPU per item' },
	},
	{
		id: 'create-skip',
		title: 'Create 1,000 registrations of 200 customers with If Already Registered: Skip, half registered already',
		items: skipRows,
		itemCount: 1000,
		seed: { registrationRows: alreadyRegistered },
		node: ours({
			resource: 'registration',
			operation: 'create',
			dataMode: 'autoMapInputData',
			options: { ifExists: 'skip' },
		}),
		baseline: {
			label: 'plain Create of the same 1,000 rows',
			side: ours({ resource: 'registration', operation: 'create', dataMode: 'autoMapInputData' }),
		},
		// The service holds the 500 registered rows: listing them costs less than 200 lookups — at most 7 windows, as
		// the list reader reads (the small first window, windows of 99 each 86 further on; the engine bench's rule); one
		// batch per 100 new registrations.
		target: { maxRatio: 2, requests: 7 + 5, text: '≤ 2× plain Create, ≤ 7 windows of listing + 5 batches' },
	},
];

function nodeUnderTest(side: Side, service: Service): Record<string, unknown> {
	const parameters = typeof side.parameters === 'function' ? side.parameters(service) : side.parameters;
	return side.node === 'productRegistration'
		? {
				type: 'n8n-nodes-product-registration.productRegistration',
				typeVersion: 1,
				parameters,
				credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
			}
		: { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface Row {
	/** Whether this node's first run of the case was its first since n8n started (shown apart: n8n warms up). */
	firstSinceStart?: boolean;
	line: string;
	id: string;
	title: string;
	nodeMs: number[];
	baseline?: string;
	baselineMs: number[];
	/** CPU of the n8n process while the node ran, per run (CPU cases only). */
	nodeCpuMs: number[];
	nodeRequests: number;
	baselineRequests: number;
	errors: string[];
	target: string;
	result: string;
	met: boolean;
}

/** What one run of a side gave: n8n's own run time of the node, its CPU if profiled, and what went wrong. */
interface RunResult {
	ms: number;
	cpuMs?: number;
	error?: string;
}

/** The node under test's run in an execution's data: its time, and an error if it did not give every item. */
function resultOf(runData: ExecutionData['data'] | undefined, itemCount: number, fallback: string): RunResult {
	const taskData = runData?.resultData.runData[UNDER_TEST]?.[0];
	const itemsOut = taskData?.data?.main?.[0]?.length ?? 0;
	const error = runData?.resultData.error?.message ?? (taskData ? undefined : fallback);
	return {
		ms: taskData?.executionTime ?? NaN,
		error: error ?? (itemsOut === itemCount ? undefined : `${itemsOut} items out`),
	};
}

/**
 * The cases that measure time run as production executions of a started n8n (a POST to the workflow's webhook), as a
 * shop's workflows run: in one long-lived process, so a run finds what the runs before it left there (the service's
 * pace, transport/pace/): the first case's first run is the first since n8n started, and shown as such. (n8n 2.x started again for each case answers its REST API with errors for minutes at times.) A
 * case that measures CPU runs each time in a process of its own (`n8n execute`), whose profile is written as it ends.
 */
async function benchLine(version: string, tarball: string, cases: BenchCase[], runs: number): Promise<Row[]> {
	const sandbox = await startSandbox({ latencyMs: LATENCY_MS });
	const n8n = await RealN8n.create(version);
	const service = { baseUrl: sandbox.baseUrl, token: sandbox.token };
	const profiled = (bench: BenchCase) => bench.target.maxCpuMsPerItem !== undefined;
	// n8n workflow ids are at most 16 characters.
	const workflowId = (bench: BenchCase, kind: string) => `bench${cases.indexOf(bench)}${kind}`.slice(0, 16);
	const rows: Row[] = [];
	try {
		await n8n.installPackage(tarball);
		await n8n.importCredential({ ...CREDENTIAL, data: { baseUrl: service.baseUrl, accessToken: service.token } });
		for (const bench of cases) {
			for (const { kind, side } of sidesOf(bench)) {
				const id = workflowId(bench, kind);
				const nodes = [itemsNode('Items', bench.items), { name: UNDER_TEST, ...nodeUnderTest(side, service) }];
				if (profiled(bench)) {
					await n8n.importWorkflow(chainedWorkflow(id, nodes));
				} else {
					await n8n.importWorkflow(chainedWorkflow(id, nodes, webhookStart(id, webhookIdOf(id))));
					await n8n.activate(id);
				}
			}
		}
		const executeInItsOwnProcess = async (bench: BenchCase, kind: string): Promise<RunResult> => {
			const profileFolder = mkdtempSync(join(tmpdir(), 'bench-n8n-profile-'));
			try {
				const result = await n8n.execute(workflowId(bench, kind), {
					timeoutMs: 600_000,
					nodeOptions: `--cpu-prof --cpu-prof-dir=${profileFolder}`,
				});
				const cpuMs = cpuWhileRunning(profileFolder, RUN_ITEMS).cpuMs;
				return { ...resultOf(result.data?.data, bench.itemCount, result.output.stdout.slice(-300)), cpuMs };
			} finally {
				rmSync(profileFolder, { recursive: true, force: true });
			}
		};
		for (const bench of cases.filter(profiled)) rows.push(await benchCase(bench, executeInItsOwnProcess));

		const timed = cases.filter((bench) => !profiled(bench));
		if (timed.length > 0) {
			await n8n.start();
			let cookie = await n8n.ownerSession();
			// The workflow's latest execution (none yet: `latest` undefined), or undefined where n8n's REST API answered
			// something else than its JSON: the caller's waitFor asks again, with a session taken anew, as 2.x may answer
			// 404 for a moment after it starts and then 401 to the session it gave in that moment.
			const latestExecution = async (id: string) => {
				try {
					return { latest: (await n8n.executionsOf(id, cookie, 1))[0] };
				} catch (error) {
					console.error(`  ${(error as Error).message.slice(0, 300)}`);
					cookie = await n8n.ownerSession();
					return undefined;
				}
			};
			const executeOnTheServer = async (bench: BenchCase, kind: string): Promise<RunResult> => {
				const id = workflowId(bench, kind);
				const { latest: before } = await waitFor(`the executions of ${id}`, () => latestExecution(id));
				const answer = await postToWebhook(`${n8n.baseUrl}/webhook/${id}`, { signal: AbortSignal.timeout(600_000) });
				const answered = `the webhook answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`;
				const execution = await waitFor(`the execution of ${id}`, async () => {
					const latest = (await latestExecution(id))?.latest;
					return latest && latest.id !== before?.id && !['new', 'running'].includes(latest.status) ? latest : undefined;
				});
				return resultOf(execution.data, bench.itemCount, answered);
			};
			for (const bench of timed) rows.push(await benchCase(bench, executeOnTheServer));
			// Only the first case's first run is the first since n8n started: later cases find the service calm.
			rows[rows.length - timed.length].firstSinceStart = true;
		}
	} finally {
		await n8n.stop();
		sandbox.stop();
		n8n.cleanUp();
	}
	return rows;

	/** A case's runs, both sides alternately, each against a sandbox set up afresh. */
	async function benchCase(
		bench: BenchCase,
		runOnce: (bench: BenchCase, kind: string) => Promise<RunResult>,
	): Promise<Row> {
		const row: Row = {
			line: version,
			id: bench.id,
			title: bench.title,
			nodeMs: [],
			baseline: bench.baseline?.label,
			baselineMs: [],
			nodeCpuMs: [],
			nodeRequests: 0,
			baselineRequests: 0,
			errors: [],
			target: bench.target.text,
			result: '',
			met: false,
		};
		for (let run = 0; run < runs; run++) {
			for (const { kind } of sidesOf(bench)) {
				await sandbox.setUp({ reset: true, latencyMs: bench.latencyMs ?? LATENCY_MS, ...bench.seed });
				const before = await sandbox.requests();
				const result = await runOnce(bench, kind);
				const requests = (await sandbox.requests()) - before;
				if (result.error) row.errors.push(`${kind}: ${result.error}`);
				if (result.cpuMs !== undefined) row.nodeCpuMs.push(result.cpuMs);
				(kind === 'node' ? row.nodeMs : row.baselineMs).push(result.ms);
				if (kind === 'node') row.nodeRequests = requests;
				else row.baselineRequests = requests;
			}
		}
		judge(row, bench);
		console.error(
			`  ${version} ${bench.id}: node ${row.nodeMs.join('/')} ms${row.nodeCpuMs.length ? ` (CPU ${row.nodeCpuMs.map(Math.round).join('/')} ms)` : ''}, ${row.baseline ?? 'no baseline'} ${row.baselineMs.join('/') || '—'} ms → ${row.result} ${row.met ? 'met' : 'MISSED'}${row.errors.length ? ` (${row.errors.join('; ')})` : ''}`,
		);
		return row;
	}
}

const sidesOf = (bench: BenchCase) => [
	{ kind: 'node', side: bench.node },
	...(bench.baseline ? [{ kind: 'baseline', side: bench.baseline.side }] : []),
];

/** A webhook's id: the workflow's id (at most 16 characters) written as a UUID, as n8n expects. */
function webhookIdOf(id: string): string {
	const hex = Buffer.from(id).toString('hex').padStart(32, '0');
	return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

/**
 * The file that runs the items, for the CPU profile: every run of the node passes through it, also after each await
 * (the router is on the stack only until its first await), and none of its code runs when n8n loads the package.
 */
const RUN_ITEMS = 'n8n-nodes-product-registration/dist/nodes/ProductRegistration/actions/runItems.js';

/** Checks a row's medians against its case's target. */
function judge(row: Row, bench: BenchCase): void {
	const { maxRatio, maxCpuMsPerItem, requests } = bench.target;
	const results: string[] = [];
	row.met = row.errors.length === 0;
	if (maxRatio !== undefined) {
		const ratio = median(row.nodeMs) / median(row.baselineMs);
		row.met &&= ratio <= maxRatio;
		results.push(`${ratio.toFixed(2)}×`);
	}
	if (maxCpuMsPerItem !== undefined) {
		const perItem = median(row.nodeCpuMs) / bench.itemCount;
		row.met &&= perItem <= maxCpuMsPerItem;
		results.push(`${perItem.toFixed(3)} ms of CPU per item`);
	}
	if (requests !== undefined) {
		row.met &&= row.nodeRequests <= requests;
		results.push(`${row.nodeRequests} requests`);
	}
	row.result = results.join(', ');
}

function table(rows: Row[]): string {
	const lines = [
		'| n8n | case | this node | its first run since n8n started | compared with | requests (this node / compared) | result | target |',
		'|---|---|---|---|---|---|---|---|',
	];
	for (const row of rows) {
		const ms = (values: number[]) =>
			values.length === 0 ? '—' : `${Math.round(median(values)).toLocaleString('en-US')} ms`;
		const compared = row.baseline ? `${row.baseline}: ${ms(row.baselineMs)}` : '—';
		lines.push(
			`| ${row.line} | ${row.title} | ${ms(row.nodeMs)} | ${row.firstSinceStart ? ms(row.nodeMs.slice(0, 1)) : '—'} | ${compared} | ${row.nodeRequests} / ${row.baseline ? row.baselineRequests : '—'} | ${row.result} | ${row.target}: ${row.met ? 'met' : '**missed**'} |`,
		);
	}
	return lines.join('\n');
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const runs = Number(args[args.indexOf('--runs') + 1]) || 3;
	const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
	const cases = CASES.filter((bench) => only === undefined || bench.id === only);
	const tarball = await packPackage();
	const rows: Row[] = [];
	for (const version of N8N_LINES) rows.push(...(await benchLine(version, tarball, cases, runs)));
	const header = `npm run bench:n8n (${runs} run(s) each, median; ${LATENCY_MS} ms latency unless the case says none)`;
	if (args.includes('--json')) console.log(JSON.stringify(rows, null, 2));
	else console.log(`${header}\n\n${table(rows)}`);
	if (writesDocs() && only === undefined) {
		const command = `npm run bench:n8n -- --runs ${runs} --write-docs`;
		for (const version of N8N_LINES) {
			const lineRows = rows.filter((row) => row.line === version);
			writeDocsSection('bench-n8n.md', `n8n-${version}`, command, table(lineRows));
		}
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
