import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Sandbox } from '../sandbox/service';
import { writeDocsSection, writesDocs } from '../scripts/docsSection';
import { CREDENTIAL, readExamples } from './examples';
import type { ServerProcess } from './instance';
import { freePort, N8N_LINES, packPackage, RealN8n, waitFor } from './instance';

/**
 * `npm run test:queue`: the package in n8n's queue mode, as big shops run it — Redis, PostgreSQL, a main that takes
 * the webhooks and two workers (`--concurrency=10`) on this machine, each line of N8N_LINES — what happens when a
 * worker dies with creates on the wire, and the poll trigger while the main restarts. Every part listens on 127.0.0.1
 * only and is stopped by its PID at the end, also on failure. Not part of CI: it starts real servers and takes
 * minutes. With --write-docs (and every phase run) each line's output replaces that line's in docs/scale.md.
 */

const CALLS = 1000;
const IN_FLIGHT = 50;
const WARM_UP_CALLS = 100;
/** The load calls of each case are sent in this many rounds, the cases taking turns, so that no case always goes first. */
const LOAD_ROUNDS = 4;
const CRASH_CALLS = 300;
const STATUS_ITEMS = 5000;
/** n8n 1.x re-runs a stalled job 60–90 s after its worker died; 2.x gives up on it. Counting waits past both. */
const AFTER_CRASH_WAIT_MS = Number(process.env.QUEUE_CRASH_WAIT_MS ?? 180_000);
/**
 * How long the caller of the crash case waits for an answer: n8n answers for a stalled execution only once it has
 * failed it or re-run it.
 */
const CALLER_PATIENCE_MS = 240_000;
const NOBODY = 'nobody';
const ALL_PHASES = ['load', 'status', 'crash', 'upload', 'poll'];
/** The phases to run (all unless QUEUE_PHASES names some, e.g. "load,crash"). */
const PHASES = process.env.QUEUE_PHASES?.split(',') ?? ALL_PHASES;

const stoppers: Array<() => void> = [];
const stopAll = () => {
	for (const stop of stoppers.splice(0).reverse()) {
		try {
			stop();
		} catch {
			// already gone
		}
	}
};
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Kills a process by its PID (and its group, for n8n's children), first politely. */
function killByPid(pid: number | undefined, group = false): void {
	if (pid === undefined) return;
	for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
		try {
			process.kill(group ? -pid : pid, signal);
		} catch {
			return;
		}
		if (signal === 'SIGTERM') execFileSync('sleep', ['2']);
	}
}

/** Where n8n's logs of each line are kept after the run (its user folder is removed). */
const LOGS = join(tmpdir(), 'queue-mode-logs');

function keepLogs(n8n: RealN8n): void {
	const folder = join(LOGS, n8n.version);
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	for (const file of readdirSync(n8n.userFolder).filter((name) => name.endsWith('.log')))
		copyFileSync(join(n8n.userFolder, file), join(folder, file));
}

async function startRedis(): Promise<number> {
	const port = await freePort();
	const redis = spawn(
		program('redis-server'),
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{
			stdio: 'ignore',
		},
	);
	stoppers.push(() => killByPid(redis.pid));
	for (let attempt = 0; attempt < 50; attempt++) {
		try {
			if (
				execFileSync(program('redis-cli'), ['-p', String(port), 'ping'], { encoding: 'utf8', stdio: 'pipe' }).trim() ===
				'PONG'
			)
				return port;
		} catch {
			// not up yet
		}
		await sleep(200);
	}
	throw new Error('Redis did not start');
}

/**
 * A server program from Debian's packages: on the PATH, or (PostgreSQL's server programs) in the folder of the newest
 * installed PostgreSQL, which Debian keeps off the PATH.
 */
function program(name: string): string {
	const onPath = (process.env.PATH ?? '').split(':').find((folder) => existsSync(join(folder, name)));
	if (onPath) return join(onPath, name);
	const postgresRoot = '/usr/lib/postgresql';
	const versions = existsSync(postgresRoot) ? readdirSync(postgresRoot).sort((a, b) => Number(b) - Number(a)) : [];
	const installed = versions
		.map((version) => join(postgresRoot, version, 'bin', name))
		.find((path) => existsSync(path));
	if (installed) return installed;
	throw new Error(`${name} is not installed: apt-get install redis-server postgresql`);
}

/** A throw-away PostgreSQL cluster, run as an unprivileged user (PostgreSQL refuses root), trusting local logins. */
async function startPostgres(): Promise<number> {
	const port = await freePort();
	const dataDir = mkdtempSync(join(tmpdir(), 'queue-postgres-'));
	const asNobody = (command: string, args: string[]) =>
		process.getuid?.() === 0
			? (['runuser', ['-u', NOBODY, '--', command, ...args]] as const)
			: ([command, args] as const);
	if (process.getuid?.() === 0) execFileSync('chown', ['-R', NOBODY, dataDir]);
	const [initdb, initArgs] = asNobody(program('initdb'), [
		'-D',
		dataDir,
		'-U',
		'postgres',
		'--auth=trust',
		'-E',
		'UTF8',
	]);
	execFileSync(initdb, [...initArgs], { stdio: 'ignore' });
	const [postgres, postgresArgs] = asNobody(program('postgres'), [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-h',
		'127.0.0.1',
		'-k',
		dataDir,
		'-c',
		'max_connections=200',
	]);
	const server = spawn(postgres, [...postgresArgs], { stdio: 'ignore' });
	const pidFile = join(dataDir, 'postmaster.pid');
	stoppers.push(() => {
		killByPid(existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined);
		killByPid(server.pid);
		rmSync(dataDir, { recursive: true, force: true });
	});
	for (let attempt = 0; attempt < 100; attempt++) {
		try {
			execFileSync(
				program('psql'),
				['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', 'create database n8n'],
				{
					stdio: 'ignore',
				},
			);
			return port;
		} catch {
			await sleep(300);
		}
	}
	throw new Error('PostgreSQL did not start');
}

/** CPU time a process has used so far, in ms (Linux: /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Watches processes (Linux: /proc) while a phase runs: each one's peak resident memory in MB, sampled every 250 ms,
 * and the CPU time it used, in ms.
 */
function watch(processes: Record<string, number>) {
	const peaks: Record<string, number> = {};
	const cpuAtStart = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)]));
	const sample = () => {
		for (const [name, pid] of Object.entries(processes)) {
			try {
				const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
				peaks[name] = Math.max(peaks[name] ?? 0, Math.round(kb / 1024));
			} catch {
				// the process is gone
			}
		}
	};
	const timer = setInterval(sample, 250);
	return {
		peaks,
		stop: () => {
			clearInterval(timer);
			return Object.fromEntries(
				Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid) - cpuAtStart[name]]),
			) as Record<string, number>;
		},
	};
}

/**
 * POSTs to a webhook. n8n 2.x answers 404 for a while after it says it is ready, until it has registered every
 * webhook (an OPTIONS request can find a webhook that a POST cannot yet), so a 404 is sent again, for up to a minute.
 */
async function postToWebhook(url: string, init: RequestInit): Promise<Response> {
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
async function fire(
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
function countEach(values: Array<number | string>): string {
	const counts = new Map<number | string, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return [...counts].map(([value, count]) => `${count} × ${value}`).join(', ') || 'none';
}

/** Waits until `condition` holds, asking every 500 ms for at most `ms`. */
async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
	await waitFor(what, async () => (await condition()) || undefined, ms);
}

interface Execution {
	id: number;
	status: string;
}

/**
 * Reads n8n's own PostgreSQL database. The editor's execution list is no ledger: it shows running executions on every
 * page, so paging through it counts some twice.
 */
function query(postgresPort: number, sql: string): string[][] {
	const output = execFileSync(
		program('psql'),
		['-h', '127.0.0.1', '-p', String(postgresPort), '-U', 'postgres', '-d', 'n8n', '-At', '-F', '\t', '-c', sql],
		{ encoding: 'utf8' },
	);
	return output
		.split('\n')
		.filter(Boolean)
		.map((line) => line.split('\t'));
}

/** The executions of a workflow whose id is above `afterId`. */
const executionsOf = (postgresPort: number, workflowId: string, afterId: number): Execution[] =>
	query(
		postgresPort,
		`select id, status from execution_entity where "workflowId" = '${workflowId}' and id > ${afterId} order by id`,
	).map(([id, status]) => ({ id: Number(id), status }));

const lastExecutionId = (postgresPort: number): number =>
	Number(query(postgresPort, 'select coalesce(max(id), 0) from execution_entity')[0][0]);

let nodeIds = 0;
/** A UUID for a node of the workflows made here (n8n expects UUIDs). */
const nodeId = () => `00000000-0000-4000-8000-${String((nodeIds += 1)).padStart(12, '0')}`;

type NodeSpec = Record<string, unknown> & { name: string };

/**
 * A workflow started by a POST to /webhook/<path>, its nodes run one after another. The call is answered at once
 * (`onReceived`) or when the last node has finished (`lastNode`: a failed execution answers the caller with an error).
 */
function webhookWorkflow(
	id: string,
	path: string,
	nodes: NodeSpec[],
	responseMode: 'onReceived' | 'lastNode' = 'onReceived',
) {
	const chain: NodeSpec[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: nodeId(),
			parameters: { httpMethod: 'POST', path, responseMode, options: {} },
		},
		...nodes,
	];
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: chain.map((node, index) => ({ id: nodeId(), position: [index * 250, 0], ...node })),
		connections: Object.fromEntries(
			chain
				.slice(0, -1)
				.map((node, index) => [node.name, { main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] }]),
		),
	};
}

const ourNode = (name: string, parameters: Record<string, unknown>): NodeSpec => ({
	name,
	type: 'n8n-nodes-product-registration.productRegistration',
	typeVersion: 1,
	parameters,
	credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
});

const createFromBody = (ifExists: 'skip' | 'create') =>
	ourNode('Register', {
		resource: 'registration',
		operation: 'create',
		productName: '={{ $json.body.product }}',
		customerEmail: '={{ $json.body.email }}',
		serialNumbers: '={{ $json.body.serial }}',
		options: { ifExists },
	});

/** The token in n8n's own Header Auth credential, as n8n's docs tell users to hold a secret for the HTTP Request node. */
const HEADER_CREDENTIAL = { id: 'prHeaderAuth0001', name: 'Registration service header', type: 'httpHeaderAuth' };

/** The HTTP Request node making the create this node makes, authenticated by `authParameters` (and `credentials`). */
const httpRequestCreate = (
	sandbox: Sandbox,
	authParameters: Record<string, unknown>,
	credentials?: Record<string, { id: string; name: string }>,
): NodeSpec => ({
	name: 'Register',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		method: 'POST',
		url: `${sandbox.baseUrl}/api/registrations`,
		...authParameters,
		sendBody: true,
		specifyBody: 'json',
		jsonBody:
			'={{ JSON.stringify({ registrations: [{ productName: $json.body.product, customerEmail: $json.body.email, serialNumbers: [$json.body.serial] }] }) }}',
		options: {},
	},
	...(credentials ? { credentials } : {}),
});

/** The registration the upload case attaches its receipt to: the first one the sandbox makes after a reset. */
const RECEIPT_REGISTRATION = 'R000001';

/** The example the poll phase activates: each new registration set to Processing. */
const POLL_EXAMPLE = 'confirm-new-registrations.json';
/** The poll phase's rounds: how many customers register, and whether the main restarts meanwhile. */
const POLL_ROUNDS = [
	{ count: 1, mainRestarts: false },
	{ count: 250, mainRestarts: false },
	{ count: 1, mainRestarts: true },
];

/** Every workflow of the run, imported and activated before n8n starts (a running main does not see CLI changes). */
function queueWorkflows(sandbox: Sandbox) {
	return {
		skip: webhookWorkflow('queueSkip', 'register-skip', [createFromBody('skip')]),
		skipAnswered: webhookWorkflow('queueSkipAnswered', 'register-skip-answered', [createFromBody('skip')], 'lastNode'),
		plainAnswered: webhookWorkflow(
			'queuePlainAnswered',
			'register-plain-answered',
			[createFromBody('create')],
			'lastNode',
		),
		httpCredential: webhookWorkflow('queueHttpCredential', 'register-http-credential', [
			httpRequestCreate(
				sandbox,
				{ authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' },
				{ httpHeaderAuth: { id: HEADER_CREDENTIAL.id, name: HEADER_CREDENTIAL.name } },
			),
		]),
		httpInline: webhookWorkflow('queueHttpInline', 'register-http-inline', [
			httpRequestCreate(sandbox, {
				sendHeaders: true,
				headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${sandbox.token}` }] },
			}),
		]),
		status: webhookWorkflow('queueStatus', 'change-status', [
			{
				name: 'Registrations',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode: `return Array.from({ length: ${STATUS_ITEMS} }, (_, i) => ({ json: { id: 'R' + String(i + 1).padStart(6, '0') } }));`,
				},
			},
			ourNode('Approve', {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				status: 'approved',
				isPublic: true,
			}),
		]),
		upload: webhookWorkflow('queueUpload', 'receipt', [
			ourNode('Upload receipt', { resource: 'file', operation: 'upload', binaryPropertyName: 'receipt' }),
			ourNode('Attach', {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: { __rl: true, mode: 'id', value: RECEIPT_REGISTRATION },
				status: 'receipt received',
				isPublic: true,
				additionalFields: { assetsJson: '={{ [{ name: $json.fileName, url: $json.url }] }}' },
			}),
		]),
	};
}

interface LineReport {
	version: string;
	failures: string[];
	/** What the run said, line by line: the figures docs/scale.md shows. */
	said: string[];
}

type Say = (line: string) => void;
type Check = (ok: boolean, failure: string) => void;

/** What a phase needs: the running parts and the way to report. */
interface Run {
	n8n: RealN8n;
	sandbox: Sandbox;
	cookie: string;
	postgresPort: number;
	main: ServerProcess;
	/** The workers alive now (a crash replaces the one it kills). */
	workers: ServerProcess[];
	/** Starts a worker, in place of `replacing` (a dead one) if given. */
	startWorker: (replacing?: ServerProcess) => Promise<void>;
	/** Stops the main, does `whileStopped`, and starts it again (it reads workflows' activation only as it starts). */
	restartMain: (whileStopped: () => Promise<void>) => Promise<void>;
	say: Say;
	check: Check;
}

async function queueLine(version: string, tarball: string): Promise<LineReport> {
	const report: LineReport = { version, failures: [], said: [] };
	console.log(`\nn8n ${version} in queue mode (Redis, PostgreSQL, a main and two workers --concurrency=10)`);

	const redisPort = await startRedis();
	const postgresPort = await startPostgres();
	const sandbox = await Sandbox.start();
	stoppers.push(() => void sandbox.stop());
	const n8n = await RealN8n.create(version, {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgresPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		// n8n's pool of 2 a process lets the main's health check time out under 50 webhooks in flight.
		DB_POSTGRESDB_POOL_SIZE: '10',
		// A binary data mode that works across processes (filesystem mode does not): the database, 2.x's default in
		// queue mode.
		N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database',
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
	});
	stoppers.push(() => {
		keepLogs(n8n);
		n8n.cleanUp();
	});
	await n8n.installPackage(tarball);
	await n8n.importCredential({ ...CREDENTIAL, data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token } });
	await n8n.importCredential({
		...HEADER_CREDENTIAL,
		data: { name: 'Authorization', value: `Bearer ${sandbox.token}` },
	});
	for (const workflow of Object.values(queueWorkflows(sandbox))) {
		await n8n.importWorkflow(workflow);
		await n8n.activate(workflow.id);
	}
	// Imported inactive: the poll phase activates it, so that it does not poll what the other phases register.
	const pollExample = readExamples().find(({ file }) => file === POLL_EXAMPLE)!;
	await n8n.importWorkflow(pollExample.workflow);

	// Each process its own port, (2.x) its own port for the broker of its task runners and its own event log, as each
	// container has its own disk. A worker started in place of a dead one takes over its event log, as a restarted
	// container does: n8n marks the dead one's unfinished executions from it.
	const eventLogOf = new Map<ServerProcess, string>();
	const started = async (args: string[], eventLog: string) => {
		const server = await n8n.start(args, {
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			N8N_EVENTBUS_LOGWRITER_LOGBASENAME: eventLog,
			...(args[0] === 'start' ? {} : { N8N_PORT: String(await freePort()) }),
		});
		stoppers.push(() => killByPid(server.pid, true));
		eventLogOf.set(server, eventLog);
		return server;
	};
	const startMain = async () => await started(['start'], 'n8nEventLog-main');
	const main = await startMain();
	const workers: ServerProcess[] = [];
	const startWorker = async (replacing?: ServerProcess) => {
		const eventLog = replacing ? eventLogOf.get(replacing)! : `n8nEventLog-worker-${workers.length + 1}`;
		workers.push(await started(['worker', '--concurrency=10'], eventLog));
	};
	await startWorker();
	await startWorker();
	const run: Run = {
		n8n,
		sandbox,
		cookie: await n8n.ownerSession(),
		postgresPort,
		main,
		workers,
		startWorker,
		restartMain: async (whileStopped) => {
			killByPid(run.main.pid, true);
			await whileStopped();
			run.main = await startMain();
		},
		say: (line) => {
			report.said.push(line);
			console.log(`  ${line}`);
		},
		check: (ok, failure) => {
			if (!ok) report.failures.push(failure);
		},
	};

	if (PHASES.includes('load')) await load(run);
	if (PHASES.includes('status')) await changeStatusOnWorkers(run);
	if (PHASES.includes('crash')) for (const ifExists of ['skip', 'create'] as const) await crash(run, ifExists);
	if (PHASES.includes('upload')) await uploadAcrossWorkers(run);
	if (PHASES.includes('poll')) await pollOnTheMain(run, pollExample.workflow.id);
	return report;
}

const webhookUrl = (n8n: RealN8n, path: string) => `${n8n.baseUrl}/webhook/${path}`;

/** How many executions a worker has started so far, read off its log. */
const jobsOf = (worker: ServerProcess) => startedOn(worker).length;

/** The ids of the executions a worker has started (or finished), read off its log. */
const startedOn = (worker: ServerProcess) =>
	[...worker.log().matchAll(/started execution (\d+)/gi)].map(([, id]) => id);
const finishedOn = (worker: ServerProcess) =>
	[...worker.log().matchAll(/finished execution (\d+)/gi)].map(([, id]) => id);

/** The executions a worker has started and not finished. */
function underWay(worker: ServerProcess): string[] {
	const finished = new Set(finishedOn(worker));
	return startedOn(worker).filter((id) => !finished.has(id));
}

/** The registrations the sandbox holds, counted by customer and product: how many distinct, how many made twice. */
function tally(sandbox: Sandbox): { distinct: number; twice: number } {
	const byKey = new Map<string, number>();
	for (const registration of sandbox.state.registrations.values()) {
		const key = `${registration.customerEmail}|${registration.productName}`;
		byKey.set(key, (byKey.get(key) ?? 0) + 1);
	}
	return { distinct: byKey.size, twice: [...byKey.values()].filter((count) => count > 1).length };
}

/** The executions of a workflow after `afterId`, once there are `expected` and none is still waiting or running. */
async function settledExecutions(run: Run, workflowId: string, afterId: number, expected: number) {
	let executions: Execution[] = [];
	await waitUntil(
		`${expected} finished executions of ${workflowId}`,
		() => {
			executions = executionsOf(run.postgresPort, workflowId, afterId);
			return (
				executions.length >= expected &&
				executions.every(({ status }) => !['new', 'running', 'waiting'].includes(status))
			);
		},
		120_000,
	).catch(() => undefined);
	return executions;
}

/**
 * 1,000 calls, 50 in flight, through this node (If Already Registered: Skip) and through the HTTP Request node doing
 * the same create, after a warm-up of each, in rounds that the cases take in turn: registrations/s end to end (the
 * rounds' time added up), executions, the workers' shares, peak RSS, CPU per call.
 * The HTTP Request node runs twice: with its token in n8n's Header Auth credential — the way n8n tells users to hold a
 * secret, and the one to compare with, since any workflow using a credential pays n8n's credential checks on the main
 * and its read on the worker — and with the token typed into the workflow, which pays neither.
 */
async function load(run: Run): Promise<void> {
	const { n8n, sandbox, say, check } = run;
	const cases = [
		{ name: 'this node (If Already Registered: Skip)', path: 'register-skip', workflowId: 'queueSkip' },
		{
			name: 'the HTTP Request node (token in a Header Auth credential)',
			path: 'register-http-credential',
			workflowId: 'queueHttpCredential',
		},
		{
			name: 'the HTTP Request node (token typed into the workflow)',
			path: 'register-http-inline',
			workflowId: 'queueHttpInline',
		},
	];
	for (const { path } of cases) await fire(webhookUrl(n8n, path), WARM_UP_CALLS, IN_FLIGHT, callBody('warm-up'));
	await waitUntil('the warm-up', () => sandbox.state.registrations.size >= WARM_UP_CALLS * cases.length, 120_000);
	const totals = cases.map(() => ({
		statuses: [] as Array<number | string>,
		executions: [] as Execution[],
		registrations: 0,
		distinct: 0,
		twice: 0,
		ms: 0,
		jobs: run.workers.map(() => 0),
		peaks: {} as Record<string, number>,
		cpu: {} as Record<string, number>,
	}));
	const perRound = CALLS / LOAD_ROUNDS;
	for (let round = 0; round < LOAD_ROUNDS; round++) {
		for (let turn = 0; turn < cases.length; turn++) {
			const index = (round + turn) % cases.length;
			const { path, workflowId } = cases[index];
			const total = totals[index];
			sandbox.reset();
			const before = lastExecutionId(run.postgresPort);
			const jobsBefore = run.workers.map(jobsOf);
			const memory = watch({
				main: run.main.pid!,
				worker1: run.workers[0].pid!,
				worker2: run.workers[1].pid!,
				'this test and the sandbox': process.pid,
			});
			const startedAt = Date.now();
			total.statuses.push(...(await fire(webhookUrl(n8n, path), perRound, IN_FLIGHT, callBody(`load-${round}`))));
			await waitUntil(`${perRound} registrations`, () => sandbox.state.registrations.size >= perRound, 600_000).catch(
				() => undefined,
			);
			total.ms += Date.now() - startedAt;
			total.executions.push(...(await settledExecutions(run, workflowId, before, perRound)));
			for (const [name, ms] of Object.entries(memory.stop())) total.cpu[name] = (total.cpu[name] ?? 0) + ms;
			for (const [name, mb] of Object.entries(memory.peaks)) total.peaks[name] = Math.max(total.peaks[name] ?? 0, mb);
			run.workers.forEach((worker, slot) => (total.jobs[slot] += jobsOf(worker) - jobsBefore[slot]));
			const { distinct, twice } = tally(sandbox);
			total.registrations += sandbox.state.registrations.size;
			total.distinct += distinct;
			total.twice += twice;
		}
	}
	const rates = totals.map(({ ms }) => CALLS / (ms / 1000));
	cases.forEach(({ name }, index) => {
		const { statuses, executions, registrations, distinct, twice, jobs, peaks, cpu } = totals[index];
		const accepted = statuses.filter((status) => status === 200).length;
		say(
			`load, ${name}: calls answered ${countEach(statuses)}, ${registrations} registrations (${distinct} distinct, ${twice} twice), ${rates[index].toFixed(1)} registrations/s, executions ${summarize(executions)}, workers ran ${jobs.join(' + ')}, peak RSS main ${peaks.main} MB, workers ${peaks.worker1} / ${peaks.worker2} MB; CPU per call: ${Object.entries(
				cpu,
			)
				.map(([process, ms]) => `${process} ${(ms / CALLS).toFixed(1)} ms`)
				.join(', ')}`,
		);
		check(accepted === CALLS, `${name}: ${accepted} of ${CALLS} calls accepted`);
		check(
			registrations === CALLS && distinct === CALLS,
			`${name}: ${registrations} registrations, ${distinct} distinct`,
		);
		check(
			executions.length === CALLS && executions.every(({ status }) => status === 'success'),
			`${name}: executions ${summarize(executions)}`,
		);
		check(
			jobs.every((count) => count > 0),
			`${name}: a worker ran nothing (${jobs.join(' + ')})`,
		);
	});
	const [ours, withCredential, inline] = rates;
	say(
		`load: this node ${(ours / withCredential).toFixed(2)}× the registrations/s of the HTTP Request node with a credential (${(ours / inline).toFixed(2)}× with the token typed in)`,
	);
	check(
		ours >= withCredential,
		`load: this node ${ours.toFixed(1)}/s, below the HTTP Request node's ${withCredential.toFixed(1)}/s`,
	);
}

/** The body of webhook call i of a batch: a customer of its own, one of five products, a serial of its own. */
const callBody = (prefix: string) => (call: number) => ({
	product: `Kettle K${call % 5}`,
	email: `${prefix}-${call}@example.com`,
	serial: `${prefix}-${call}`,
});

const summarize = (executions: Execution[]) => countEach(executions.map(({ status }) => status));

/** A 5,000-item Change Status, started by a webhook call so that a worker runs it. */
async function changeStatusOnWorkers({ n8n, sandbox, say, check, workers }: Run): Promise<void> {
	sandbox.reset();
	sandbox.state.createRegistrations(Array.from({ length: STATUS_ITEMS }, (_, index) => ({ productName: `P${index}` })));
	const jobsBefore = workers.map(jobsOf);
	const startedAt = Date.now();
	await fire(webhookUrl(n8n, 'change-status'), 1, 1, () => ({}));
	const approved = () =>
		[...sandbox.state.registrations.values()].filter((registration) => registration.status === 'approved').length;
	await waitUntil(`${STATUS_ITEMS} status changes`, () => approved() >= STATUS_ITEMS, 600_000).catch(() => undefined);
	const ranOn = workers.map((worker, index) => jobsOf(worker) - jobsBefore[index]).findIndex((jobs) => jobs > 0);
	say(
		`Change Status on ${STATUS_ITEMS} items: ${approved()} registrations approved in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, run by worker ${ranOn + 1}`,
	);
	check(approved() === STATUS_ITEMS, `Change Status: ${approved()} of ${STATUS_ITEMS} approved`);
	check(ranOn >= 0, 'Change Status: no worker ran it');
}

/**
 * 300 calls while the service takes 500 ms to answer a create it has already stored; one worker is killed by its PID
 * while its creates are on the wire. The workflow answers each call when its last node has finished, so the caller
 * learns of an execution that failed; like the CRMs and form services that feed these workflows, it sends any call not
 * answered 200 again. After n8n has done what it does (1.x re-runs the stalled executions, 2.x fails them), the
 * failed executions are also retried as a user would: through the REST API the Retry button calls.
 */
async function crash(run: Run, ifExists: 'skip' | 'create'): Promise<void> {
	const { n8n, sandbox, cookie, say, check } = run;
	const name = ifExists === 'skip' ? 'If Already Registered: Skip' : 'plain Create (Create Anyway)';
	const workflowId = ifExists === 'skip' ? 'queueSkipAnswered' : 'queuePlainAnswered';
	const url = webhookUrl(n8n, ifExists === 'skip' ? 'register-skip-answered' : 'register-plain-answered');
	const body = callBody('crash');
	sandbox.reset();
	sandbox.answerDelayMs = 500;
	const before = lastExecutionId(run.postgresPort);
	const victim = run.workers.shift()!;
	const calls = fire(url, CRASH_CALLS, IN_FLIGHT, body, CALLER_PATIENCE_MS);
	await waitUntil('creates on the wire', () => sandbox.inFlight >= 5 && underWay(victim).length >= 5, 60_000);
	const killed = underWay(victim);
	const onTheWire = sandbox.inFlight;
	process.kill(victim.pid!, 'SIGKILL');
	const killedAt = Date.now();
	await run.startWorker(victim);
	const answers = await calls;
	const unanswered = answers.flatMap((status, call) => (status === 200 ? [] : [call]));
	const resent = await fire(url, unanswered.length, IN_FLIGHT, (index) => body(unanswered[index]), CALLER_PATIENCE_MS);
	await sleep(Math.max(0, AFTER_CRASH_WAIT_MS - (Date.now() - killedAt)));
	const executions = await settledExecutions(run, workflowId, before, CRASH_CALLS + unanswered.length);
	const rerun = killed.filter((id) => run.workers.some((worker) => startedOn(worker).includes(id)));
	const beforeRetries = tally(sandbox);
	const failed = executions.filter(({ status }) => status !== 'success');
	const retried = await Promise.all(
		failed.map(async ({ id }) => {
			const response = await fetch(`${n8n.baseUrl}/rest/executions/${id}/retry`, {
				method: 'POST',
				headers: { cookie, 'content-type': 'application/json' },
				body: JSON.stringify({ loadWorkflow: false }),
				signal: AbortSignal.timeout(CALLER_PATIENCE_MS),
			}).catch(() => undefined);
			return response?.ok === true;
		}),
	);
	const retries =
		failed.length > 0
			? (await settledExecutions(run, workflowId, before, executions.length + failed.length)).filter(
					({ id }) => !executions.some((execution) => execution.id === id),
				)
			: [];
	sandbox.answerDelayMs = 0;
	const { distinct, twice } = tally(sandbox);
	const lost = CRASH_CALLS - distinct;
	say(
		`crash, ${name}: a worker SIGKILLed with ${killed.length} executions under way (${onTheWire} requests at the service); n8n re-ran ${rerun.length} of them on another worker; the caller got ${countEach(answers)} and sent the ${unanswered.length} not answered 200 again (answered ${countEach(resent)}); ${(AFTER_CRASH_WAIT_MS / 1000).toFixed(0)} s after the kill the executions: ${summarize(executions)}; ${retried.filter(Boolean).length} of ${failed.length} failed ones retried through the REST API (before: ${beforeRetries.twice} twice, ${CRASH_CALLS - beforeRetries.distinct} lost), the retries: ${summarize(retries)}; ${distinct} of ${CRASH_CALLS} registrations made, ${twice} twice, ${lost} lost`,
	);
	if (ifExists === 'skip') check(twice === 0 && lost === 0, `crash with Skip: ${twice} twice, ${lost} lost`);
}

/** Upload File → Change Status with the returned url, run on a worker; the file arrives with the webhook call. */
async function uploadAcrossWorkers({ n8n, sandbox, say, check }: Run): Promise<void> {
	sandbox.reset();
	sandbox.state.createRegistrations([{ productName: 'Kettle K1', customerEmail: 'ann@example.com' }]);
	const receipt = Buffer.alloc(3 * 1024 * 1024, 'receipt of order 1001 ');
	const form = new FormData();
	form.append('receipt', new Blob([receipt], { type: 'application/pdf' }), 'receipt-1001.pdf');
	const response = await postToWebhook(webhookUrl(n8n, 'receipt'), { body: form });
	const attached = () => sandbox.state.registrations.get(RECEIPT_REGISTRATION)?.statusHistory.at(-1)?.assets?.[0];
	await waitUntil('the receipt attached', () => attached() !== undefined, 120_000).catch(() => undefined);
	const asset = attached();
	const stored = asset ? Buffer.from(await (await fetch(asset.url)).arrayBuffer()) : undefined;
	say(
		`upload across processes (binary data in the database): webhook ${response.status}, the 3 MiB receipt ${stored?.equals(receipt) ? 'stored whole' : 'NOT stored whole'}, attached as ${asset ? `"${asset.name}"` : 'nothing'}`,
	);
	check(stored?.equals(receipt) === true, 'upload: the receipt was not stored whole or not attached');
}

/**
 * The poll trigger in queue mode: n8n polls on the main and hands what a poll emits to the workers. The example that
 * sets each new registration to Processing is activated, then customers register in POLL_ROUNDS, the last while the
 * main restarts; each registration must be set to Processing exactly once, by executions the workers ran.
 */
async function pollOnTheMain(run: Run, workflowId: string): Promise<void> {
	const { sandbox, say, check } = run;
	sandbox.reset();
	const before = lastExecutionId(run.postgresPort);
	const jobsBefore = run.workers.map(jobsOf);
	const polls = () => sandbox.requestsTo('GET', '/api/registrations').length;
	await run.restartMain(async () => await run.n8n.activate(workflowId));
	// The activation's one small request marks "now": registrations after it are new.
	await waitUntil('the activation of the poll example', () => polls() > 0, 120_000);
	const registered: string[] = [];
	const register = (count: number) => {
		const customers = Array.from({ length: count }, (_, index) => ({
			productName: 'Kettle K1',
			customerEmail: `poll-${registered.length + index + 1}@example.com`,
		}));
		registered.push(...sandbox.state.createRegistrations(customers).registrations.map(({ id }) => id));
	};
	const timesSetToProcessing = () =>
		registered.map(
			(id) =>
				sandbox.state.registrations.get(id)?.statusHistory.filter(({ status }) => status === 'Processing').length ?? 0,
		);
	const rounds: string[] = [];
	for (const { count, mainRestarts } of POLL_ROUNDS) {
		const startedAt = Date.now();
		if (mainRestarts) await run.restartMain(async () => register(count));
		else register(count);
		await waitUntil(
			`${registered.length} registrations set to Processing`,
			() => timesSetToProcessing().every((times) => times > 0),
			240_000,
		).catch(() => undefined);
		const seconds = Math.round((Date.now() - startedAt) / 1000);
		rounds.push(`${count}${mainRestarts ? ' while the main restarted' : ''} (through in ${seconds} s)`);
	}
	// One poll more, after which nothing may have come out again.
	const pollsBefore = polls();
	await waitUntil('one more poll', () => polls() > pollsBefore, 120_000).catch(() => undefined);
	const executions = await settledExecutions(run, workflowId, before, 1);
	const times = timesSetToProcessing();
	const once = times.filter((count) => count === 1).length;
	const again = times.filter((count) => count > 1).length;
	const never = times.filter((count) => count === 0).length;
	const jobs = run.workers.map((worker, slot) => jobsOf(worker) - (jobsBefore[slot] ?? 0));
	say(
		`poll trigger at every minute on the main, ${registered.length} registrations in rounds of ${rounds.join(', ')}: ${polls()} requests to the service, executions ${summarize(executions)}, workers ran ${jobs.join(' + ')}; set to Processing once ${once}, more than once ${again}, never ${never}`,
	);
	check(once === registered.length, `poll: ${once} of ${registered.length} set to Processing once`);
	check(
		executions.length > 0 && executions.every(({ status }) => status === 'success'),
		`poll: executions ${summarize(executions)}`,
	);
	const ranOnWorkers = jobs.reduce((sum, count) => sum + count, 0);
	check(ranOnWorkers === executions.length, `poll: the workers ran ${ranOnWorkers} of ${executions.length} executions`);
}

async function main(): Promise<void> {
	const tarball = await packPackage();
	const reports: LineReport[] = [];
	for (const version of N8N_LINES) {
		try {
			reports.push(await queueLine(version, tarball));
		} finally {
			stopAll();
		}
	}
	const failures = reports.flatMap((report) => report.failures.map((failure) => `${report.version}: ${failure}`));
	console.log(`\nn8n's logs: ${LOGS}`);
	console.log(failures.length === 0 ? 'queue mode: every check passed' : `queue mode: FAILED\n${failures.join('\n')}`);
	if (writesDocs() && PHASES.length === ALL_PHASES.length) {
		for (const { version, said, failures: failed } of reports) {
			const verdict = failed.length === 0 ? 'every check passed' : `FAILED: ${failed.join('; ')}`;
			const output = ['```', ...said, verdict, '```'].join('\n');
			writeDocsSection(
				'scale.md',
				`queue-${version}`,
				`REAL_N8N_VERSIONS=${version} npm run test:queue -- --write-docs`,
				output,
			);
		}
	}
	process.exitCode = failures.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error);
	stopAll();
	process.exit(1);
});
