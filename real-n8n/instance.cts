import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { parse } from 'flatted';

/**
 * A real n8n (../shared/tools/real-n8n.sh) in a throw-away user folder, with this package installed the way n8n's
 * community-package installer installs it. Used by the smoke run, the real-n8n benchmark, the screenshots and the
 * queue-mode test; none of them runs in CI.
 */

const run = promisify(execFile);
export const root = join(__dirname, '..');
const TOOL = process.env.REAL_N8N_TOOL ?? join(root, '..', 'shared', 'tools', 'real-n8n.sh');
const PACKAGE_NAME = 'n8n-nodes-product-registration';

/** The n8n lines users run: the last 1.x and the newest 2.x this registry serves. */
export const N8N_LINES = (process.env.REAL_N8N_VERSIONS ?? '1.123.81 2.40.7').split(/\s+/).filter(Boolean);

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

let packed: Promise<string> | undefined;

/**
 * `npm pack` of this repository (which builds it first), once per process; the path of the tarball.
 * `PACKAGE_TARBALL` names a tarball to use instead, e.g. an earlier build to compare with.
 */
export async function packPackage(): Promise<string> {
	if (process.env.PACKAGE_TARBALL) return process.env.PACKAGE_TARBALL;
	packed ??= (async () => {
		const destination = mkdtempSync(join(tmpdir(), 'product-registration-pack-'));
		const { stdout } = await run('npm', ['pack', '--pack-destination', destination, '--silent'], { cwd: root });
		return join(destination, stdout.trim().split('\n').pop()!);
	})();
	return await packed;
}

/** Asks `probe` every 500 ms until it gives a value (anything but undefined), for at most `ms`. */
export async function waitFor<T>(
	what: string,
	probe: () => T | undefined | Promise<T | undefined>,
	ms = 60_000,
): Promise<T> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		const value = await probe();
		if (value !== undefined) return value;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`Timed out waiting for ${what}`);
}

const PEAK_RSS = 'peak-rss-kb';

/** A long-running n8n process (`start`, `worker`), its output going to a file. */
export type ServerProcess = ChildProcess & { logFile: string; log: () => string };

export interface RunOutput {
	stdout: string;
	stderr: string;
	code: number | null;
	ms: number;
	/** The n8n process's peak resident memory, in MB (GNU time's maximum resident set size). */
	peakRssMb?: number;
}

export class RealN8n {
	/** The processes of `n8n start` and of workers, while running. */
	private servers: ServerProcess[] = [];

	private constructor(
		readonly version: string,
		readonly userFolder: string,
		readonly port: number,
		private readonly extraEnv: NodeJS.ProcessEnv,
	) {}

	/** A fresh n8n of this version (its own user folder and sqlite database unless `env` says otherwise). */
	static async create(version: string, env: NodeJS.ProcessEnv = {}): Promise<RealN8n> {
		const userFolder = mkdtempSync(join(tmpdir(), `real-n8n-${version}-`));
		return new RealN8n(version, userFolder, await freePort(), env);
	}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	get line(): 1 | 2 {
		return this.version.startsWith('1.') ? 1 : 2;
	}

	env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
		return {
			...process.env,
			REAL_N8N_VERSION: this.version,
			N8N_USER_FOLDER: this.userFolder,
			N8N_PORT: String(this.port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RESTRICT_FILE_ACCESS_TO: this.userFolder,
			N8N_LOG_LEVEL: 'info',
			...this.extraEnv,
			...extra,
		};
	}

	/**
	 * Installs the packed package as n8n's community-package installer does: unpacked into
	 * `.n8n/nodes/node_modules/<name>`, its dev, peer and optional dependencies dropped, then `npm install` there
	 * without scripts, and recorded in `.n8n/nodes/package.json`.
	 */
	async installPackage(tarball: string): Promise<void> {
		const nodesFolder = join(this.userFolder, '.n8n', 'nodes');
		const packageFolder = join(nodesFolder, 'node_modules', PACKAGE_NAME);
		rmSync(packageFolder, { recursive: true, force: true });
		mkdirSync(packageFolder, { recursive: true });
		await run('tar', ['-xzf', tarball, '-C', packageFolder, '--strip-components=1']);
		const manifestPath = join(packageFolder, 'package.json');
		const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
			readFileSync(manifestPath, 'utf8'),
		) as Record<string, unknown>;
		writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		await run(
			'npm',
			[
				'install',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
				'--audit=false',
				'--fund=false',
			],
			{ cwd: packageFolder },
		);
		writeFileSync(
			join(nodesFolder, 'package.json'),
			JSON.stringify(
				{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: manifest.version } },
				null,
				2,
			),
		);
	}

	/**
	 * Runs an n8n CLI command to its end (killed after `timeoutMs`). Its output goes to a file, not a pipe: n8n exits
	 * right after printing, which cuts a large output written to a pipe short.
	 */
	async cli(
		args: string[],
		options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; nodeOptions?: string } = {},
	): Promise<RunOutput> {
		const started = Date.now();
		const env = this.env({ ...options.env, ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}) });
		const outputFile = join(this.userFolder, `cli-${process.pid}-${Date.now()}.out`);
		const output = openSync(outputFile, 'w');
		const seconds = String(Math.ceil((options.timeoutMs ?? 300_000) / 1000));
		// The tool execs n8n, so GNU time's figure is n8n's own peak memory.
		const child = spawn('timeout', ['-s', 'KILL', seconds, '/usr/bin/time', '-f', `${PEAK_RSS} %M`, TOOL, ...args], {
			env,
			stdio: ['ignore', output, 'pipe'],
		});
		let stderr = '';
		child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
		closeSync(output);
		const stdout = readFileSync(outputFile, 'utf8');
		rmSync(outputFile, { force: true });
		const peakRssKb = new RegExp(`${PEAK_RSS} (\\d+)`).exec(stderr)?.[1];
		const peakRssMb = peakRssKb === undefined ? undefined : Math.round(Number(peakRssKb) / 1024);
		return { stdout, stderr, code, ms: Date.now() - started, peakRssMb };
	}

	private async cliOrThrow(args: string[]): Promise<RunOutput> {
		const output = await this.cli(args);
		if (output.code !== 0)
			throw new Error(`n8n ${args.join(' ')} failed (${output.code}):\n${output.stdout}\n${output.stderr}`);
		return output;
	}

	/** Imports a credential with plain data (n8n encrypts it on import). */
	async importCredential(credential: {
		id: string;
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<void> {
		const file = join(this.userFolder, `credential-${credential.id}.json`);
		writeFileSync(file, JSON.stringify([credential]));
		await this.cliOrThrow(['import:credentials', `--input=${file}`]);
	}

	async importWorkflow(workflow: Record<string, unknown> & { id: string }): Promise<void> {
		const file = join(this.userFolder, `workflow-${workflow.id}.json`);
		writeFileSync(file, JSON.stringify(workflow));
		await this.cliOrThrow(['import:workflow', `--input=${file}`]);
	}

	/** Makes a workflow's triggers listen once n8n starts: 1.x sets it active, 2.x publishes it. */
	async activate(workflowId: string): Promise<void> {
		await this.cliOrThrow(
			this.line === 1
				? ['update:workflow', `--id=${workflowId}`, '--active=true']
				: ['publish:workflow', `--id=${workflowId}`],
		);
	}

	/**
	 * `n8n execute --id --rawOutput`: the run data n8n prints, and each node's own execution time as n8n reports
	 * it (which leaves out process start-up).
	 */
	async execute(
		workflowId: string,
		options: { timeoutMs?: number; nodeOptions?: string; env?: NodeJS.ProcessEnv } = {},
	): Promise<ExecutionResult> {
		const output = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], options);
		// The run data is printed as indented JSON (also after "Execution was NOT successful"): from a "{" line to
		// the first "}" line.
		const lines = output.stdout.split('\n');
		const first = lines.indexOf('{');
		const last = lines.indexOf('}', first);
		let data: ExecutionData | undefined;
		try {
			data =
				first >= 0 && last > first ? (JSON.parse(lines.slice(first, last + 1).join('\n')) as ExecutionData) : undefined;
		} catch {
			data = undefined;
		}
		return { output, data };
	}

	/**
	 * Starts `n8n start` (or another long-running command, e.g. `worker`); for `start`, waits until its REST API is
	 * mounted: its settings come as JSON (/healthz answers earlier than that; so do 404 and, on 2.x, a 200 "n8n is
	 * starting up. Please wait" in plain text).
	 */
	async start(args: string[] = ['start'], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
		const logFile = join(this.userFolder, `${args[0]}-${Date.now()}-${this.servers.length}.log`);
		const log = openSync(logFile, 'w');
		const child = spawn(TOOL, args, { env: this.env(env), stdio: ['ignore', log, log], detached: true });
		closeSync(log);
		const server = Object.assign(child, { logFile, log: () => readFileSync(logFile, 'utf8') });
		this.servers.push(server);
		if (args[0] !== 'start') return server;
		const until = Date.now() + 180_000;
		while (Date.now() < until) {
			if (child.exitCode !== null)
				throw new Error(`n8n ${args.join(' ')} exited (${child.exitCode}):\n${server.log().slice(-5000)}`);
			try {
				const settings = await fetch(`${this.baseUrl}/rest/settings`);
				if (settings.ok && parsedOrUndefined(await settings.text()) !== undefined) return server;
			} catch {
				// not listening yet
			}
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
		throw new Error(`n8n did not start within 180 s:\n${server.log().slice(-5000)}`);
	}

	/** Stops every process this instance started (the whole process group, so n8n's children go too). */
	async stop(): Promise<void> {
		await Promise.all(
			this.servers.map(async (child) => {
				if (child.exitCode !== null || child.pid === undefined) return;
				const exited = new Promise((resolve) => child.once('exit', resolve));
				try {
					process.kill(-child.pid, 'SIGTERM');
				} catch {
					return;
				}
				const timer = setTimeout(() => {
					try {
						process.kill(-child.pid!, 'SIGKILL');
					} catch {
						// already gone
					}
				}, 15_000);
				await exited;
				clearTimeout(timer);
			}),
		);
		this.servers = [];
	}

	/** Creates the instance owner (a fresh n8n has none) and returns the session cookie of the editor's REST API. */
	async ownerSession(): Promise<string> {
		const owner = { email: 'owner@example.com', firstName: 'Shop', lastName: 'Owner', password: 'Passw0rd-for-tests' };
		// n8n 2.x may answer its settings a moment before its other routes are there (404 until then).
		const setup = await waitFor('the owner setup of n8n', async () => {
			const answer = await fetch(`${this.baseUrl}/rest/owner/setup`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(owner),
			});
			return answer.status === 404 ? undefined : answer;
		});
		let cookie = setup.headers.get('set-cookie');
		if (!setup.ok) {
			const login = await fetch(`${this.baseUrl}/rest/login`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password }),
			});
			if (!login.ok) throw new Error(`Could not log in to n8n: ${login.status} ${await login.text()}`);
			cookie = login.headers.get('set-cookie');
		}
		return (cookie ?? '').split(';')[0];
	}

	/**
	 * The finished executions of a workflow, newest first (at most `limit`), each with its run data, read through the
	 * editor's REST API (the run data is stored in flatted form).
	 */
	async executionsOf(workflowId: string, cookie: string, limit = 100): Promise<StoredExecution[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const answer = await fetch(`${this.baseUrl}/rest/executions?filter=${filter}&limit=${limit}`, {
			headers: { cookie },
		});
		const text = await answer.text();
		const list = parsedOrUndefined(text) as { data?: { results: Array<{ id: string }> } } | undefined;
		if (list?.data === undefined)
			throw new Error(`n8n's executions list answered ${answer.status}: ${text.slice(0, 300)}`);
		return await Promise.all(
			list.data.results.map(async ({ id }) => {
				const { data } = (await (
					await fetch(`${this.baseUrl}/rest/executions/${id}`, { headers: { cookie } })
				).json()) as {
					data: { id: string; status: string; data: string };
				};
				return { id: data.id, status: data.status, data: parse(data.data) as ExecutionData['data'] };
			}),
		);
	}

	/** Removes the user folder (database, binaries, installed package). */
	cleanUp(): void {
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** JSON as n8n answered it, or undefined where the answer was something else (an error page, a proxy's text). */
function parsedOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

export interface NodeRun {
	executionTime: number;
	executionStatus?: string;
	error?: { message: string };
	data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> };
}

export interface ExecutionData {
	data: { resultData: { runData: Record<string, NodeRun[]>; error?: { message: string } } };
}

export interface StoredExecution {
	id: string;
	status: string;
	data: ExecutionData['data'];
}

export interface ExecutionResult {
	output: RunOutput;
	data: ExecutionData | undefined;
}

/** The items a node gave in its first run, from an execution's run data. */
export function nodeOutput(execution: ExecutionData | undefined, nodeName: string): Array<Record<string, unknown>> {
	const runs = execution?.data.resultData.runData[nodeName];
	return (runs?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}
